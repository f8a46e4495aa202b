"""CSV, JSON and JSON Lines rendered by DuckDB over Arrow (:mod:`seasalt_log.analytics.
bulk_text`) are the same bytes as the Python writers they replaced (the ``csv`` module and
msgspec, row by row: the oracle below, kept as they were), on awkward values and on the
rows of a real store, whether a result holds Python rows or an Arrow table."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import uuid

import duckdb
import msgspec
import pytest

from seasalt_log.analytics.output import (Result, arrow_result, csv_cell, render_text,
                                          rows_result, structs_result)
from seasalt_log.analytics.bulk_text import spellable


# ---------------------------------------------------------------- the oracle: the old writers

def _hook(value):
    return str(value)


_enc = msgspec.json.Encoder(enc_hook=_hook, decimal_format="number")


def _rows(result: Result) -> list[dict]:
    cells = [i for i, t in enumerate(result.types) if t == "JSON"]
    out = []
    for r in result.rows:
        r = list(r)
        for i in cells:
            if r[i] is not None:
                r[i] = msgspec.Raw(r[i].encode())
        out.append(dict(zip(result.columns, r)))
    return out


def old_text(result: Result, fmt: str) -> str:
    buf = io.StringIO()
    if fmt == "csv":
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(result.columns)
        for row in result.rows:
            w.writerow([csv_cell(v) for v in row])
    elif fmt == "jsonl":
        for row in _rows(result):
            buf.write(_enc.encode(row).decode() + "\n")
    else:
        buf.write(msgspec.json.format(_enc.encode(_rows(result)), indent=2).decode() + "\n")
    return buf.getvalue()


FORMATS = ("csv", "json", "jsonl")

AWKWARD = ["plain", "a,b", 'say "hi"', "two\nlines", "cr\rhere", "", " lead", "tab\there",
           "é ü 日本 😀", "\u2028\u2029\ufeff", "back\\slash", "\x00\x01\x0b\x1f\x7f",
           '",\n', "\\u000B", "'single'", None]


def test_python_rows_of_awkward_text_numbers_and_lists():
    rows = []
    floats = [0.0, -0.0, 1.5, 1e-5, 1.2345e-5, -9.87e-5, 1e-7, 1e15, 1e16, 1e20, 1 / 3,
              float("nan"), float("inf"), float("-inf"), 5e-324, 1.7976931348623157e308, None]
    ints = [0, -1, 2**63 - 1, -2**63, 42, None]
    for i, text in enumerate(AWKWARD):
        rows.append((text, floats[i % len(floats)], ints[i % len(ints)], i % 3 == 0 if i % 4 else None,
                     [text, "x"] if text is not None else None, [i, None, -i], '{"a": [1, 2]}'))
    result = Result(columns=["text", "f", "n", "b", "names", "ints", "meta"],
                    types=["VARCHAR", "DOUBLE", "BIGINT", "BOOLEAN", "VARCHAR[]", "INTEGER[]", "JSON"],
                    rows=rows)
    for fmt in FORMATS:
        assert render_text(result, fmt) == old_text(result, fmt), fmt


def test_python_values_without_an_sql_spelling_go_through_the_old_functions():
    """Dates, decimals, blobs, uuids, structs, 128-bit integers and a column that mixes ints
    with floats (or bools) keep the Python spelling, value by value."""
    rows = [(dt.datetime(2026, 1, 2, 3, 4, 5), decimal.Decimal("1.50"), b"\x00\xffbytes",
             uuid.UUID(int=5), {"k": [1, "v,\""]}, 2**100, 1, True),
            (dt.date(2026, 1, 2), decimal.Decimal("-0.001"), b"", None, None, -2**70, 0.5, 2),
            (None, None, None, uuid.UUID(int=2**128 - 1), {"k": None}, None, None, None)]
    result = Result(columns=["when", "d", "blob", "id", "s", "huge", "mixed", "flags"],
                    types=["TIMESTAMP", "DECIMAL(10,3)", "BLOB", "UUID",
                           "STRUCT(k JSON)", "HUGEINT", "BIGINT", "BOOLEAN"], rows=rows)
    for fmt in FORMATS:
        assert render_text(result, fmt) == old_text(result, fmt), fmt


def test_repeated_columns_one_column_empty_values_and_no_rows():
    repeated = Result(columns=["a", "b", "a"], types=["BIGINT", "VARCHAR", "VARCHAR"],
                      rows=[(1, "x", "last"), (2, None, None)])
    alone = Result(columns=["only"], types=["VARCHAR"], rows=[("",), (None,), ("x",), (",",)])
    empty = Result(columns=["a", "b"], types=["BIGINT", "VARCHAR"], rows=[])
    for result in (repeated, alone, empty):
        for fmt in FORMATS:
            assert render_text(result, fmt) == old_text(result, fmt), (result.columns, fmt)
    # worked by hand: the csv module quotes an empty field alone on its line
    assert render_text(alone, "csv") == 'only\n""\n""\nx\n","\n'
    assert render_text(repeated, "jsonl") == '{"a":"last","b":"x"}\n{"a":null,"b":null}\n'


SQL_VALUES = """
SELECT * FROM (VALUES
  (1, 'a,b', 1.5::DOUBLE, true, ['x', 'y"z', NULL], [1, NULL]::INTEGER[], '{"k":1}'::JSON,
   0.1::FLOAT, 255::UTINYINT, 18446744073709551615::UBIGINT, [[1, 2], [3]]),
  (2, E'line\\nbreak\\x01', 'nan'::DOUBLE, false, [], []::INTEGER[], NULL, NULL, 0, 0, NULL),
  (3, NULL, -0.0::DOUBLE, NULL, NULL, NULL, '[1, 2.50]'::JSON, 3.25::FLOAT, NULL, NULL, [[]]),
  (4, '', 1.2345e-5::DOUBLE, true, ['é日😀', E'\\\\', ''], [-2147483648], '"s"'::JSON,
   'inf'::FLOAT, 1, 1, [[NULL]]),
  (5, '-nan', -('nan'::DOUBLE), false, [NULL], [NULL]::INTEGER[], 'null'::JSON, NULL, 2, 2, NULL)
) t(n, text, f, b, names, ints, meta, small, u8, u64, nested)
"""


def test_arrow_rows_from_duckdb_write_what_python_rows_wrote():
    con = duckdb.connect()
    cur = con.execute(SQL_VALUES)
    old = Result(columns=[d[0] for d in cur.description],
                 types=[str(d[1]) for d in cur.description], rows=cur.fetchall())
    new = arrow_result(con.sql(SQL_VALUES))
    assert new.arrow is not None and new.rows == [] and len(new) == 5
    for fmt in FORMATS:
        assert render_text(new, fmt) == old_text(old, fmt), fmt
        assert render_text(old, fmt) == old_text(old, fmt), fmt


def test_a_relation_with_a_type_bulk_text_cannot_spell_stays_python_rows():
    con = duckdb.connect()
    result = arrow_result(con.sql("SELECT TIMESTAMP '2026-01-02 03:04:05' AS t, 1 AS n"))
    assert result.arrow is None and result.rows == [(dt.datetime(2026, 1, 2, 3, 4, 5), 1)]
    assert not spellable(["TIMESTAMP"]) and spellable(["VARCHAR[]", "BIGINT", "JSON"])
    assert render_text(result, "csv") == "t,n\n2026-01-02T03:04:05,1\n"


def test_struct_rows_as_games_lists_them(tmp_path):
    """``structs_result`` (the ``games`` listing): nested lists become JSON columns."""
    class Row(msgspec.Struct):
        game_id: str
        players: list[str]
        winners: list[int] | None
        meta: msgspec.Raw | None
    items = [Row("g,1", ["A", 'B"'], [0], msgspec.Raw(b'{"x": 1.50, "y": "\\u00e9"}')),
             Row("g2", [], None, None)]
    result = structs_result(items, ["game_id", "players", "winners", "meta"])
    for fmt in FORMATS:
        assert render_text(result, fmt) == old_text(result, fmt), fmt
    # by hand: the meta is re-encoded (1.5, é), the lists are JSON
    assert render_text(result, "csv").splitlines()[1] == '"g,1","[""A"",""B\\""""]",[0],"{""x"":1.5,""y"":""é""}"'




@pytest.fixture(scope="module")
def fixture_store(tmp_path_factory):
    from pathlib import Path
    from typer.testing import CliRunner
    from seasalt_cli.main import app
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    db = tmp_path_factory.mktemp("bulk") / "s.duckdb"
    for log in sorted(fixtures.rglob("*.jsonl"))[:6]:
        CliRunner().invoke(app, ["import", str(log), "--db", str(db)])
    return db


@pytest.mark.parametrize("args", [[], ["--sort", "events", "--desc"],
                                  ["--sort", "rounds", "--offset", "1", "--limit", "2"]])
def test_games_writes_what_its_structs_wrote(fixture_store, args):
    """``games --format csv|jsonl|json`` (rows from Arrow) against the listing's structs
    written by the old writers (csv, jsonl) and by msgspec (json)."""
    from typer.testing import CliRunner
    from seasalt_cli.main import app
    from seasalt_cli.store_cmds import GAME_COLUMNS
    from seasalt_log import queries
    from seasalt_log.store import Store
    sort = args[args.index("--sort") + 1] if "--sort" in args else "game"
    with Store.open(fixture_store, read_only=True) as store:
        rows = queries.list_games(store, sort=sort, descending="--desc" in args,
                                  offset=int(args[args.index("--offset") + 1]) if "--offset" in args else 0,
                                  limit=int(args[args.index("--limit") + 1]) if "--limit" in args else None)
    assert rows
    for fmt in FORMATS:
        r = CliRunner().invoke(app, ["games", "--format", fmt, "--db", str(fixture_store), *args])
        assert r.exit_code == 0, r.output
        if fmt == "json":
            want = msgspec.json.format(msgspec.json.encode(rows), indent=2).decode() + "\n"
        else:
            want = old_text(structs_result(rows, GAME_COLUMNS), fmt)
        assert r.stdout == want, fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_fixture_stores_tables_are_the_same_bytes(fmt, fixture_store):
    from seasalt_log.analytics.query import connect_readonly, execute
    con = connect_readonly(fixture_store)
    try:
        for table in ("games", "seats", "rounds", "round_results", "turns", "duos", "cards"):
            sql = f"SELECT * FROM {table} ORDER BY ALL"
            old = execute(con, sql)
            new = execute(con, sql, arrow=True)
            assert new.arrow is not None, table
            assert old.rows, table
            assert render_text(new, fmt) == old_text(old, fmt), table
    finally:
        con.close()


def test_a_table_of_arrow_rows_is_the_table_of_python_rows(fixture_store):
    """A table converts only the rows it shows from Arrow: the same text as from fetchall."""
    from seasalt_log.analytics.output import render_table
    from seasalt_log.analytics.query import connect_readonly, execute
    con = duckdb.connect()
    cur = con.execute(SQL_VALUES)
    old = Result(columns=[d[0] for d in cur.description],
                 types=[str(d[1]) for d in cur.description], rows=cur.fetchall())
    new = arrow_result(con.sql(SQL_VALUES))
    for limit in (None, 2):
        assert render_table(new, limit) == render_table(old, limit)
    store = connect_readonly(fixture_store)
    try:
        for table in ("games", "round_results", "turns"):
            sql = f"SELECT * FROM {table} ORDER BY ALL"
            old, new = execute(store, sql), execute(store, sql, arrow=True)
            assert new.arrow is not None
            for limit in (None, 3):
                assert render_table(new, limit) == render_table(old, limit), table
    finally:
        store.close()
