"""``seasalt compact``: the store's tables in game order, in a new file that replaces it.

A store recorded live (``seasalt serve``) writes each game a few events at a time, so one
game's rows end up spread over every row group of the events table: the min/max of
``events.game`` then skips none of them and one game's query decompresses the whole event
column. Its many small commits also leave partly filled and free blocks.

:func:`compact` writes a new DuckDB file beside the store (``.NAME.compact-XXXXXXXX``) made
by the store's own DDL (:data:`~seasalt_log.store.schema.EVENTS_DDL`,
:data:`~seasalt_log.store.projections.PROJECTIONS_DDL`: every column type, constraint,
default, compression setting, trigger and view as the format defines them), copies every
table into it, the events and commits by ``(game, seq)``, a read model's rows by their
game's number (each game's rows in the order they had), checks it (the schema, every
table's rows), makes it durable and renames it over the store. No row changes; the hash
chains, ``verify`` and ``export`` give what they gave, and the new file has no free block.

The store file itself is never written on the way (once its write-ahead log is folded into
it, as every command that writes does): a failure or a kill at any moment leaves it as it
was, or replaced by the whole copy. Rewriting in place could not promise that: a DuckDB
checkpoint writes some blocks of the file over themselves, and a write cut short by a
kill (the kernel stops it at a page boundary) leaves such a block torn. A copy left by a
killed compaction is removed by the next one. A store whose events and commits already
lie in game order (an import's) is left as it is: a copy would gain no read.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..outputs import fsync_dir
from .fetch import first_row, one_value
from .layout import schema_differences
from .literals import sql_identifier
from .projections import PROJECTIONS_DDL, TABLES
from .schema import APPEND_ONLY, EVENTS_DDL
from .stored_order import in_game_order

if TYPE_CHECKING:
    from .store import Store

#: table -> the ORDER BY of its copy (``o``: the store's table; ``n.game``: the game's
#: number, NULL for a read-model row of a game with no commit, which ``verify`` reports:
#: kept, last); the store's other tables are copied as they are
ORDER: dict[str, str] = {
    "events": "o.game, o.seq",
    "commits": "o.game, o.seq",
    **{t: "n.game NULLS LAST, o.rowid" for t in TABLES},
}

_NEW = "compact_new"            # the new file while it is filled
_SWAP = "compact_swap"          # the connection's default database while the file is renamed


class CompactSummary(Struct):
    """What a compaction did: the file's bytes and the rows of each table in :data:`ORDER`
    (the same before and after)."""

    path: str
    bytes_before: int
    bytes_after: int
    events: int
    games: int
    rows: dict[str, int]        # table in ORDER -> its rows
    passes: int                 # 1: the file was rewritten; 0: in game order already
    free_bytes: int             # of bytes_after: free blocks, for the writes that follow
    seconds: float

    @property
    def bytes_per_event_before(self) -> float:
        return self.bytes_before / self.events if self.events else 0.0

    @property
    def bytes_per_event_after(self) -> float:
        return self.bytes_after / self.events if self.events else 0.0


def compact(store: "Store") -> CompactSummary:
    """Replace the file of ``store`` (opened for writing) by a copy with the events, commits
    and per-game read models in game order (see the module's text); ``store`` goes on
    with the new file. A store in game order already is not rewritten (``passes`` 0).

    A failure leaves the store's file as it was and removes the copy."""
    if store.read_only:
        raise UsageError("compact needs the store opened for writing")
    t0 = time.perf_counter()
    con = store.con
    path = Path(store.path)
    if one_value(con, "SELECT * FROM duckdb_connection_count()") > 1:
        raise SeasaltError(f"cannot compact the store {path}: other connections of this process "
                           "have it open (close them first); every row is as it was")
    if differences := schema_differences(con):
        raise SeasaltError(f"cannot compact the store {path}: its schema is not the store "
                           f"format's ({differences[0].message}); run `seasalt verify` and "
                           "`seasalt rebuild` first; every row is as it was")
    store.appenders().drop()        # made on the tables about to be replaced
    con.execute("CHECKPOINT")       # the file alone then holds every commit
    before = path.stat().st_size
    real = Path(os.path.realpath(path))     # a symbolic link to the store stays one
    remove_leftovers(real)
    tables = _store_tables(con)
    rows = {t: one_value(con, f"SELECT count(*) FROM {t}") for t in ORDER}
    done = 0
    if not all(in_game_order(con, table=t) for t in APPEND_ONLY):
        try:
            rows = _rewrite(store, real, tables)
        except duckdb.Error as exc:     # a full disk, unless the store's file is damaged
            from .store import damage_error
            text = str(exc).strip().splitlines()[0]
            damaged = None if ".compact-" in text else damage_error(path, exc)    # the copy's
            raise damaged or SeasaltError(
                f"cannot compact the store {path}: {text}; every row is as it was") from None
        done = 1
    _, free, block = _blocks(con)
    return CompactSummary(path=str(path), bytes_before=before, bytes_after=path.stat().st_size,
                          events=rows["events"], games=one_value(con, "SELECT count(*) FROM heads"),
                          rows=rows, passes=done, free_bytes=free * block,
                          seconds=time.perf_counter() - t0)


def remove_leftovers(path: Path) -> None:
    """Remove the copies (and their write-ahead logs) that killed compactions of the store
    at ``path`` left beside it; the caller holds the store for writing, so none is in use."""
    for leftover in glob.glob(glob.escape(str(_copy_prefix(path))) + "*"):
        try:
            os.unlink(leftover)
        except OSError:
            pass


def _copy_prefix(real: Path) -> Path:
    """The start of the name of a compaction's copy of the store file ``real`` (the store's
    name cut so that the copy's log's name stays within a file system's 255 bytes)."""
    return real.parent / f".{real.name[:200]}.compact-"


def _store_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The tables of the store (the connection's default database)."""
    return [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name").fetchall()]


def _rewrite(store: "Store", real: Path, tables: list[str]) -> dict[str, int]:
    """Fill a new file beside the store's file ``real`` (the store's path resolved), check
    it and rename it over the store's file."""
    from .store import attach_statement, create_file, wal_path
    con, path = store.con, Path(store.path)
    name = one_value(con, "SELECT current_database()")
    tmp = Path(f"{_copy_prefix(real)}{secrets.token_hex(4)}")
    alias = f"{_NEW}_{secrets.token_hex(4)}"     # not the store's own name, whatever it is
    try:
        create_file(tmp)
        _same_owner(real, tmp)
        con.execute(attach_statement(tmp, alias))
        try:
            rows = _fill(con, name, alias, tables)
            con.execute(f"CHECKPOINT {alias}")
        except BaseException:
            try:
                con.execute(f"DETACH {alias}")
            except duckdb.Error:
                pass                    # the first failure says why
            raise
        con.execute(f"DETACH {alias}")
        _check(tmp, rows)
        for leftover in (wal_path(tmp), wal_path(real)):
            if leftover.exists():       # a log beside the renamed copy would be replayed on it
                raise SeasaltError(f"cannot compact the store {path}: {leftover} was left "
                                   "beside it; every row is as it was")
        with open(tmp, "rb+") as made:
            os.fsync(made.fileno())
        _swap(con, name, real, tmp)
    except BaseException:
        for leftover in (tmp, wal_path(tmp)):
            try:
                os.unlink(leftover)
            except OSError:
                pass                    # gone, or the error that brought us here says why
        raise
    return {t: rows[t] for t in ORDER}


def _same_owner(real: Path, tmp: Path) -> None:
    """Give the copy the store file's permissions and, where this process may, its owner
    and group (a store a service user owns stays that user's)."""
    shutil.copymode(real, tmp)
    st = real.stat()
    try:
        os.chown(tmp, st.st_uid, st.st_gid)
    except OSError:
        pass                            # not allowed: the copy is this process's user's


def _fill(con: duckdb.DuckDBPyConnection, name: str, alias: str,
          tables: list[str]) -> dict[str, int]:
    """Make the store's schema in the new file (attached as ``alias``) and copy each of
    ``tables`` of the store (the default database ``name``) into it; their rows."""
    con.execute("CREATE OR REPLACE TEMP TABLE compact_numbers AS "
                "SELECT game_id, min(game) AS game FROM commits GROUP BY game_id")
    con.execute(f"USE {alias}")
    try:
        con.execute(EVENTS_DDL)
        con.execute(PROJECTIONS_DDL)
    finally:
        con.execute(f"USE {sql_identifier(name)}")
    copied = {t: copy_table(con, t, alias) for t in tables}
    con.execute("DROP TABLE compact_numbers")
    return copied


def copy_table(con: duckdb.DuckDBPyConnection, table: str, alias: str) -> int:
    """Fill ``table`` of the new file (attached as ``alias``) from the store's, columns by
    name, in :data:`ORDER`'s order for its tables (the card catalog's seed rows replaced by
    the store's); the rows copied."""
    if table not in APPEND_ONLY:
        con.execute(f"DELETE FROM {alias}.main.{table}")
    select = f"SELECT o.* FROM {table} o"
    if table in ORDER:
        join = "" if table in APPEND_ONLY else " LEFT JOIN compact_numbers n USING (game_id)"
        select += f"{join} ORDER BY {ORDER[table]}"
    count: int = one_value(con, f"INSERT INTO {alias}.main.{table} BY NAME {select}")
    return count


def _check(tmp: Path, rows: dict[str, int]) -> None:
    """The new file opens on its own, its schema is the store format's and each table
    holds ``rows``; else a :class:`SeasaltError` (the store is untouched)."""
    check = duckdb.connect(str(tmp), read_only=True)
    try:
        got = {t: one_value(check, f"SELECT count(*) FROM {t}") for t in rows}
        differences = schema_differences(check)
    finally:
        check.close()
    if got != rows or differences:
        what = differences[0].message if differences else f"rows {got}, the store has {rows}"
        raise SeasaltError(f"the compacted copy is not the store ({what}); every row is as it was")


def _swap(con: duckdb.DuckDBPyConnection, name: str, path: Path, tmp: Path) -> None:
    """Rename ``tmp`` over the store's file ``path`` while the old file is still attached
    (and locked: no other process can write to it in between), then attach the new file to
    ``con`` under the store's catalog name, as its default database. Between the detach of
    the old file and the attach of the new one the store is unlocked: a process that opens
    it then has it, and this one says so."""
    from .store import attach_statement
    try:
        os.replace(tmp, path)
    except OSError as exc:
        raise SeasaltError(f"cannot compact the store {path}: {exc.strerror or exc}; every row "
                           "is as it was") from None
    fsync_dir(path.parent)
    store, swap = sql_identifier(name), f"{_SWAP}_{secrets.token_hex(4)}"
    con.execute(f"ATTACH ':memory:' AS {swap}")
    con.execute(f"USE {swap}")
    try:
        con.execute(f"DETACH {store}")
        con.execute(attach_statement(path, name))
    except duckdb.Error as exc:
        raise SeasaltError(f"compacted the store {path}, but could not open it again: "
                           f"{str(exc).strip().splitlines()[0]}; close the store and open it "
                           "anew") from None
    con.execute(f"USE {store}")
    con.execute(f"DETACH {swap}")


def _blocks(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
    """(used blocks, free blocks, block size) of the store's file."""
    row = first_row(con, "SELECT used_blocks, free_blocks, block_size FROM pragma_database_size() "
                         "WHERE database_name = current_database()")
    assert row is not None
    return row[0], row[1], row[2]
