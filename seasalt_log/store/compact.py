"""``seasalt compact``: rewrite a store's tables in game order, the layout an import gives.

A store recorded live (``seasalt serve``) writes each game a few events at a time, so one
game's rows end up spread over every row group of the events table: the min/max of
``events.game`` then skips none of them and one game's query decompresses the whole event
column. Its many small commits also leave partly filled and free blocks.

:func:`compact` copies the events, the commits and every per-game read model into new
tables made by the store's own DDL (:data:`~seasalt_log.store.schema.EVENTS_DDL`,
:data:`~seasalt_log.store.projections.PROJECTIONS_DDL`: every column type, constraint,
default, compression setting and trigger as the format defines them), the events and
commits by ``(game, seq)``, a read model's rows by their game's number (each game's rows
in the order they had), drops the old tables and commits: one transaction, so a failure
leaves the store as it was. No row changes; the hash chains, ``verify`` and ``export`` give
what they gave.

DuckDB writes a checkpoint's blocks before it frees the ones they replace, so the first
rewrite cannot land where the old rows were: it fills the blocks that were free, then
grows the file. A second
rewrite (another transaction, the same rows again) fills the blocks the first one freed,
at the front of the file, and the checkpoint after it cuts off the file's free end. It is
made when the file's free blocks can hold every used one (a store recorded live, whose
small commits left many); else it would spill past them and the end could not be cut.
Then (a store with few free blocks: an import followed by a little live recording) the
file keeps the size of the old rows and their copy, half of it free blocks that the
writes that follow fill before the file grows again; only a new file would be smaller
(DuckDB cannot move blocks in place). A store whose events and commits already lie in
game order (an import's) is left as it is: a rewrite would gain no read.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from msgspec import Struct

from ..errors import SeasaltError, UsageError
from .fetch import first_row, one_value
from .projections import PROJECTIONS_DDL, TABLES
from .schema import APPEND_ONLY, EVENTS_DDL
from .stored_order import in_game_order

if TYPE_CHECKING:
    from .store import Store

#: table -> the ORDER BY of its copy (``o``: the old table; ``n.game``: the game's number,
#: NULL for a read-model row of a game with no commit, which ``verify`` reports: kept, last)
ORDER: dict[str, str] = {
    "events": "o.game, o.seq",
    "commits": "o.game, o.seq",
    **{t: "n.game NULLS LAST, o.rowid" for t in TABLES},
}

_OLD = "compact_old_"           # the old tables' names while they are copied


class CompactSummary(Struct):
    """What a compaction did: the file's bytes and the rows of each rewritten table (the
    same before and after)."""

    path: str
    bytes_before: int
    bytes_after: int
    events: int
    games: int
    rows: dict[str, int]        # table it rewrites -> its rows
    passes: int                 # rewrites made (each one transaction; 0: in order already)
    free_bytes: int             # of bytes_after: free blocks, for the writes that follow
    seconds: float

    @property
    def bytes_per_event_before(self) -> float:
        return self.bytes_before / self.events if self.events else 0.0

    @property
    def bytes_per_event_after(self) -> float:
        return self.bytes_after / self.events if self.events else 0.0


def compact(store: "Store", *, passes: int = 2) -> CompactSummary:
    """Rewrite the events, commits and per-game read models of ``store`` (opened for
    writing) in game order, each rewrite one transaction followed by a checkpoint; with
    ``passes`` 2 (the default) a second time when that lets the file shrink (see the
    module's text), with 1 never (the freed blocks are left to later writes). A store in
    game order already is not rewritten (``passes`` 0 in the summary).

    A failure rolls the transaction back: every row stays as it was (after a failure in
    the second rewrite, in the order the first one gave them)."""
    if store.read_only:
        raise UsageError("compact needs the store opened for writing")
    if passes not in (1, 2):
        raise UsageError(f"passes must be 1 or 2, not {passes}")
    t0 = time.perf_counter()
    con = store.con
    store.appenders().drop()        # made on the tables about to be replaced
    con.execute("CHECKPOINT")
    path = Path(store.path)
    before = path.stat().st_size
    rows = {t: one_value(con, f"SELECT count(*) FROM {t}") for t in ORDER}
    done = 0
    if not all(in_game_order(con, table=t) for t in APPEND_ONLY):
        while done < passes and (done == 0 or _room_to_shrink(con)):
            try:
                rows = _rewrite(store)
            except duckdb.IOException as exc:      # a full disk, unless the file is damaged
                from .store import damage_error
                text = str(exc).strip().splitlines()[0]
                raise damage_error(path, exc) or SeasaltError(
                    f"cannot compact the store {path}: {text}; every row is as it was") from None
            done += 1
    _, free, block = _blocks(con)
    return CompactSummary(path=str(path), bytes_before=before, bytes_after=path.stat().st_size,
                          events=rows["events"], games=one_value(con, "SELECT count(*) FROM heads"),
                          rows=rows, passes=done, free_bytes=free * block,
                          seconds=time.perf_counter() - t0)


def _rewrite(store: "Store") -> dict[str, int]:
    """One rewrite (:func:`rewrite_in`) in its own transaction, then a checkpoint."""
    store.begin()
    try:
        rows = rewrite_in(store.con)
        store.commit()
    except BaseException:
        store.rollback()
        raise
    store.con.execute("CHECKPOINT")
    return rows


def _blocks(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
    """(used blocks, free blocks, block size) of the store's file."""
    row = first_row(con, "SELECT used_blocks, free_blocks, block_size FROM pragma_database_size() "
                         "WHERE database_name = current_database()")
    assert row is not None
    return row[0], row[1], row[2]


def _room_to_shrink(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the file's free blocks can hold every used one: a rewrite then lands below
    the blocks it frees, and the checkpoint cuts them off."""
    used, free, _ = _blocks(con)
    return free >= used


def rewrite_in(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The rewrite inside the caller's transaction on ``con``: every table of
    :data:`ORDER` renamed, made again by the store's DDL, filled in order from the old one,
    which is then dropped. Returns each table's rows."""
    con.execute("CREATE OR REPLACE TEMP TABLE compact_numbers AS "
                "SELECT game_id, min(game) AS game FROM commits GROUP BY game_id")
    for t in APPEND_ONLY:           # their triggers are on them; the DDL makes them again
        for op in ("update", "delete"):
            con.execute(f"DROP TRIGGER IF EXISTS {t}_refuse_{op} ON {t}")
    for t in ORDER:
        con.execute(f"ALTER TABLE {t} RENAME TO {_OLD}{t}")
    con.execute(EVENTS_DDL)
    con.execute(PROJECTIONS_DDL)
    rows = {t: copy_table(con, t) for t in ORDER}
    con.execute("DROP TABLE compact_numbers")
    return rows


def copy_table(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """Fill ``table`` from its old copy in :data:`ORDER`'s order, drop the old copy; the
    rows copied."""
    join = "" if table in APPEND_ONLY else " LEFT JOIN compact_numbers n USING (game_id)"
    old = _OLD + table
    count: int = one_value(con, f"INSERT INTO {table} SELECT o.* FROM {old} o{join} "
                                f"ORDER BY {ORDER[table]}")
    con.execute(f"DROP TABLE {old}")
    return count
