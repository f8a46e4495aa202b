"""Tamper evidence covers the schema: ``verify`` compares the store's tables (columns, types,
constraints), views, triggers, indexes and macros with those the store format defines, and
names each one changed behind the service's back (plain duckdb, as an attacker would)."""

from __future__ import annotations

import shutil

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log.service import import_logs
from seasalt_log.store import Store
from seasalt_log.verify import verify_store

from .reliability_helpers import valid_games, write_log

runner = CliRunner()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    d = tmp_path_factory.mktemp("schema")
    db = d / "pristine.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [write_log(d / "games.jsonl", valid_games(3, seed=3))]).failed == 0
    return db


@pytest.fixture
def db(pristine, tmp_path):
    path = tmp_path / "store.duckdb"
    shutil.copy(pristine, path)
    return path


def tamper(db, *sql: str) -> None:
    con = duckdb.connect(str(db))
    try:
        for s in sql:
            con.execute(s)
    finally:
        con.close()


def schema_lines(db) -> list[str]:
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
    return [d.message for d in report.differences if d.kind == "schema"]


def test_an_untouched_store_has_the_format_schema(db):
    assert schema_lines(db) == []


def test_a_dropped_trigger(db):
    # The events table's guards are part of the format
    tamper(db, "DROP TRIGGER events_refuse_delete ON events")
    assert schema_lines(db) == ["the trigger events_refuse_delete on events is missing"]
    result = runner.invoke(app, ["verify", "--db", str(db), "--no-progress"])
    assert result.exit_code == 1
    assert "schema: the trigger events_refuse_delete on events is missing" in result.stdout


def test_an_added_trigger(db):
    tamper(db, "CREATE TRIGGER spy AFTER INSERT ON events FOR EACH STATEMENT "
               "INSERT INTO append_only_guard SELECT 'seen'")
    lines = schema_lines(db)
    assert len(lines) == 1 and lines[0].startswith("the trigger spy is not part of the store format")


def test_a_redefined_view(db):
    tamper(db, "CREATE OR REPLACE VIEW v_calls AS SELECT * FROM turns WHERE false")
    lines = schema_lines(db)
    assert len(lines) == 1 and lines[0].startswith("the view v_calls is redefined"), lines
    assert "WHERE false" in lines[0]


def test_a_dropped_view(db):
    tamper(db, "DROP VIEW v_turns")
    assert schema_lines(db) == ["the view v_turns is missing"]


def test_alter_event_type_using(db):
    """Rewrites every event without touching the triggers: the column's type shows it, the
    hash chain the content."""
    tamper(db, "ALTER TABLE events ALTER event TYPE JSON USING json(event)")
    lines = schema_lines(db)
    assert lines == ["the table events column event is JSON NOT NULL, the format defines "
                     "VARCHAR NOT NULL"], lines


def test_alter_event_type_using_keeping_the_type(db):
    """The same type, new content: the schema is the format's, the chain catches the change."""
    tamper(db, "DROP TRIGGER events_refuse_update ON events",
           "ALTER TABLE events ALTER event TYPE VARCHAR USING replace(event, 'deck', 'DECK')",
           "CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events FOR EACH STATEMENT "
           "INSERT INTO append_only_guard SELECT error('the events table is append-only: "
           "UPDATE refused')")
    with Store.open(db, read_only=True) as store:
        report = verify_store(store)
    assert {d.kind for d in report.differences} >= {"hash"}
    assert not [d for d in report.differences if d.kind == "schema"]


def test_create_or_replace_table_events_as(db):
    """Deletes events (the replaced table keeps the first ones) and the table's NOT NULL
    constraints and guards with it."""
    tamper(db, "CREATE OR REPLACE TABLE events AS SELECT * FROM events WHERE seq <= 3")
    lines = schema_lines(db)
    table = [line for line in lines if line.startswith("the table events ")]
    assert len(table) == 1 and "column seq is INTEGER, the format defines INTEGER NOT NULL" in table[0]
    assert "the trigger events_refuse_update on events is missing" in lines
    assert "the trigger events_refuse_delete on events is missing" in lines


def test_a_primary_key_lost_with_the_same_columns(db):
    """The heads table (the concurrency key) rebuilt with the same columns, types and NOT
    NULLs but no primary key."""
    tamper(db, "CREATE TABLE heads2 (game_id VARCHAR NOT NULL, seq INTEGER NOT NULL)",
           "INSERT INTO heads2 SELECT * FROM heads",
           "DROP TABLE heads", "ALTER TABLE heads2 RENAME TO heads")
    lines = schema_lines(db)
    assert lines == ["the table heads lacks the constraint(s) PRIMARY KEY(game_id)"], lines


def test_read_model_column_dropped_and_default_added(db):
    tamper(db, "ALTER TABLE rounds DROP COLUMN caller_won",
           "ALTER TABLE games ALTER status SET DEFAULT 'ended'")
    lines = schema_lines(db)
    assert "the table rounds lacks column(s) caller_won (rebuild the read models)" in lines
    assert ("the table games column status is VARCHAR NOT NULL DEFAULT 'ended', the format "
            "defines VARCHAR NOT NULL (rebuild the read models)") in lines
    assert len(lines) == 2


def test_an_added_index_and_macro(db):
    tamper(db, "CREATE INDEX by_type ON events(type)", "CREATE MACRO twice(x) AS x * 2")
    lines = schema_lines(db)
    assert any(line.startswith("the index by_type is not part of the store format") for line in lines)
    assert any(line.startswith("the macro twice is not part of the store format") for line in lines)
    assert len(lines) == 2
