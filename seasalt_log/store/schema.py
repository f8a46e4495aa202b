"""The store's DDL: the append-only events table, its guards, and the schema version.

The read models (projections) have their own DDL in :mod:`seasalt_log.store.projections`.
``python -m seasalt_log.store.schema`` writes the whole DDL to ``schemas/store.sql``.
"""

from __future__ import annotations

from pathlib import Path

from .projections import PROJECTIONS_DDL

SCHEMA_VERSION = 5
"""The store format. 1 had a chain hash per event and no game numbers; 2 had the key
``(game_id, seq)`` on the events table instead of the ``heads`` table; 3 (like 1 and 2)
chained every event, its ``commits`` rows holding the chain through each write's last event
where 4 chains the writes (:mod:`seasalt_log.store.event_table`); 5 adds the
``checked_games`` table (:mod:`seasalt_log.store.checked`). A store of an older
format is migrated in place when opened for writing (:mod:`seasalt_log.store.store`)."""

# Plain INTEGER/VARCHAR columns: DuckDB compresses them as well as narrow types or an ENUM
# (bit-packing, dictionaries), and the appender fills them about twice as fast.

#: the events table's columns and types, in order (the DDL below spells them out)
EVENT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"), ("seq", "INTEGER"), ("game", "INTEGER"), ("round", "INTEGER"),
    ("turn", "INTEGER"), ("player", "INTEGER"), ("type", "VARCHAR"), ("event", "VARCHAR"))

#: the commits table's columns and types, in order
COMMIT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"), ("game", "INTEGER"), ("seq", "INTEGER"), ("hash", "BIGINT"))

#: the tables no code path updates or deletes from, each guarded by two triggers
APPEND_ONLY = ("events", "commits")

_GUARDS = "".join(f"""CREATE TRIGGER IF NOT EXISTS {t}_refuse_{op.lower()} BEFORE {op} ON {t} FOR EACH STATEMENT
    INSERT INTO append_only_guard SELECT error('the {t} table is append-only: {op} refused');
""" for t in APPEND_ONLY for op in ("UPDATE", "DELETE"))

#: the ``checked_games`` table (:mod:`seasalt_log.store.checked`; part of :data:`EVENTS_DDL`)
CHECKED_DDL = """
-- One row per game an import checked with the engine and stored whole (or `seasalt verify
-- --record` checked): the count and the sum of DuckDB hash() of its rows (events without
-- their text, commits, every read model), and the fingerprint of the code that checked it.
-- `seasalt verify` folds again only the games whose stored rows no longer give these values.
CREATE TABLE IF NOT EXISTS checked_games (
    game_id  VARCHAR   NOT NULL,
    engine   VARCHAR   NOT NULL,   -- code_fingerprint() of the checking code
    rows     BIGINT    NOT NULL,   -- rows summed
    digest   HUGEINT   NOT NULL    -- the sum of their hashes
);
"""

EVENTS_DDL = """
-- One row per event, append-only. seq runs 1, 2, ... within a game (game_started is 1);
-- (game_id, seq) is unique, kept so by the heads table below (no per-event index).
CREATE TABLE IF NOT EXISTS events (
    game_id  VARCHAR   NOT NULL,
    seq      INTEGER   NOT NULL,
    game     INTEGER   NOT NULL,   -- the game's number in this store (commits.game): reads use it
    round    INTEGER   NOT NULL,   -- 0 before the first round_started
    turn     INTEGER   NOT NULL,   -- 0 outside turns (game_started, round_started)
    player   INTEGER,              -- the acting seat of a turn event, else NULL
    type     VARCHAR   NOT NULL,   -- the event's type tag
    event    VARCHAR   NOT NULL USING COMPRESSION zstd    -- the event exactly as LOG_FORMAT.md JSON
);

-- One row per stored game: its last seq, the optimistic-concurrency key. Every write moves
-- it in the write's transaction from the seq the writer expected (a new game's row is
-- inserted): of two writers that expected the same seq, at most one commits.
CREATE TABLE IF NOT EXISTS heads (
    game_id  VARCHAR   PRIMARY KEY,
    seq      INTEGER   NOT NULL    -- the game's last stored event (= its commits' largest seq)
);

-- One row per write of a game (an import's batch, an append), append-only: the write's link
-- of the game's hash chain. A write storing events a..b records hash = BLAKE2b-64(the hash
-- of the game's previous write, 8 bytes big-endian || the JSON of event a, then of each
-- event to b, each followed by a newline), the first write chaining from a genesis value
-- made of the game id; `seasalt verify` recomputes it.
CREATE TABLE IF NOT EXISTS commits (
    game_id  VARCHAR   NOT NULL,
    game     INTEGER   NOT NULL,   -- the game's number: increasing in order of first write
    seq      INTEGER   NOT NULL,   -- the last event of the game this write stored
    hash     BIGINT    NOT NULL    -- the write's chain link, as a signed integer
);

-- The guards' target: a statement trigger needs a statement to run; error() aborts it.
CREATE TABLE IF NOT EXISTS append_only_guard (refused VARCHAR);
""" + _GUARDS + """
CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
""" + CHECKED_DDL


def full_ddl() -> str:
    """The events DDL followed by every projection's DDL."""
    return EVENTS_DDL.strip() + "\n\n" + PROJECTIONS_DDL.strip() + "\n"


def main() -> None:  # pragma: no cover - exercised by the staleness test's command
    out = Path(__file__).resolve().parents[2] / "schemas" / "store.sql"
    out.write_text("-- generated by `python -m seasalt_log.store.schema`; do not edit\n" + full_ddl())
    print(f"wrote {out.name}")


if __name__ == "__main__":
    main()
