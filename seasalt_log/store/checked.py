"""The ``checked_games`` table: what an import vouches for, so that ``verify`` need not
fold a game again that nothing has touched since.

An import checks every game with the engine and computes every row it stores for it (the
events table's columns and every read model). :class:`Digests` sums DuckDB's ``hash()`` of
each of those rows per game as they are inserted; at the commit the store records, per
game loaded whole, the row count, that sum and the :func:`code_fingerprint` of the code
that checked it. ``verify`` later sums the same hashes over the stored rows
(:func:`unvouched_ranges`, one DuckDB query for the whole store): a game whose sum, count and
fingerprint all match has the very rows the engine computed from its events, so folding it
again would find nothing; the hash chain, checked anyway, says its events are the ones
the import stored. Any other game (written live, extended, changed, or checked by other
code) is folded again.

One column is left out of the sum: ``events.event``, the events' text, which the hash chain
covers (``verify`` checks the chain of every game).

The sums detect accidental and partial changes, as the chain does, not a forger who writes
matching rows: a 64-bit hash per row can be made to collide (docs/RELIABILITY.md).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Sequence

import duckdb
import pyarrow as pa

from .projections import TABLES

#: the tables whose rows are summed: the events table, the writes' records (their game
#: numbers are compared with the events' by the fold) and every read model
DIGESTED = ("events", "commits", *TABLES)

#: columns left out of the sum (see the module's text)
_LEFT_OUT = {("events", "event")}


@functools.cache
def code_fingerprint() -> str:
    """16 hex digits of BLAKE2b over the source of the ``seasalt_log`` package (every
    ``.py`` file, by its path in the package) and DuckDB's version (its ``hash()``): any
    change to the code that checks games or computes rows, or to DuckDB, gives another."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.blake2b(digest_size=8)
    h.update(f"duckdb {duckdb.__version__}\n".encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\n")
        h.update(path.read_bytes())
    return h.hexdigest()


def digested_columns(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per table of :data:`DIGESTED` the store has, its summed columns and their types, in
    the table's order, from the store's own catalog."""
    cols: dict[str, list[tuple[str, str]]] = {}
    for table, column, dtype in con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE schema_name = 'main' AND table_name IN (SELECT unnest($t)) "
            "ORDER BY table_name, column_index", {"t": list(DIGESTED)}).fetchall():
        if (table, column) not in _LEFT_OUT:
            cols.setdefault(table, []).append((column, dtype))
    return {t: tuple(cols[t]) for t in DIGESTED if t in cols}


def _row_hash(table: str, columns: Sequence[tuple[str, str]]) -> str:
    """The SQL of one row's hash: the table's name, then each column cast to its stored
    type (a no-op on the table; on Arrow rows, the value the table will hold)."""
    return f"hash('{table}', " + ", ".join(f'CAST("{c}" AS {t})' for c, t in columns) + ")"


def _per_game(table: str, columns: Sequence[tuple[str, str]], source: str) -> str:
    return (f"SELECT game_id, count(*) AS n, sum({_row_hash(table, columns)}) AS d "
            f"FROM {source} GROUP BY game_id")


class Digests:
    """The per-game count and hash sum of the rows an import inserts, table by table
    (:meth:`add` before each INSERT of Arrow rows), until :meth:`rows` takes them."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.columns = digested_columns(con)
        self.games: dict[str, list[int]] = {}

    def add(self, table: str, rows: pa.Table) -> None:
        """Count and sum ``rows`` of ``table`` (a table not summed: nothing)."""
        columns = self.columns.get(table)
        if columns is None or not rows.num_rows:
            return
        _digest_rows = rows  # noqa: F841  (found by DuckDB by its name)
        games = self.games
        for gid, n, d in self.con.execute(_per_game(table, columns, "_digest_rows")).fetchall():
            got = games.get(gid)
            if got is None:
                games[gid] = [n, int(d)]
            else:
                got[0] += n
                got[1] += int(d)

    def rows(self, games: Sequence[str]) -> pa.Table:
        """The ``checked_games`` rows of ``games`` (each summed here), and forget all."""
        engine = code_fingerprint()
        took, self.games = self.games, {}
        sums = [took[g] for g in games]
        return pa.table({"game_id": pa.array(games, pa.string()),
                         "engine": pa.array([engine] * len(games), pa.string()),
                         "rows": pa.array([s[0] for s in sums], pa.int64()),
                         "digest": pa.array([str(s[1]) for s in sums], pa.string())})

    def forget(self) -> None:
        """Drop what was summed (the rows' transaction rolled back)."""
        self.games = {}


def unvouched_ranges(con: duckdb.DuckDBPyConnection) -> list[tuple[int | None, int | None]] | None:
    """The stored games that their ``checked_games`` row, under this code's fingerprint,
    does not vouch for (none, or their rows no longer give its count and sum), each as the
    range of game numbers (lowest, highest) its events and writes carry (None, None: a game
    with rows in read models alone); one query over the whole store. None when no row
    has this fingerprint: every game is to be folded."""
    engine = code_fingerprint()
    if not con.execute("SELECT count(*) FROM checked_games WHERE engine = ?",
                       [engine]).fetchall()[0][0]:
        return None
    columns = digested_columns(con)
    per_table = " UNION ALL ".join(
        f"SELECT game_id, count(*) AS n, sum({_row_hash(t, c)}) AS d, "
        + ("min(game) AS lo, max(game) AS hi" if t in ("events", "commits")
           else "NULL::INTEGER AS lo, NULL::INTEGER AS hi")
        + f" FROM {t} GROUP BY game_id" for t, c in columns.items())
    return con.execute(
        f"WITH s AS (SELECT game_id, sum(n) AS n, sum(d) AS d, min(lo) AS lo, max(hi) AS hi "
        f"FROM ({per_table}) GROUP BY game_id) "
        "SELECT s.lo, s.hi FROM s LEFT JOIN (SELECT * FROM checked_games WHERE engine = $engine) k "
        "USING (game_id) WHERE k.game_id IS NULL OR k.rows <> s.n OR k.digest <> s.d "
        "ORDER BY s.lo", {"engine": engine}).fetchall()
