"""The ``checked_games`` table: what an import vouches for, so that ``verify`` need not
fold a game again that nothing has touched since.

An import checks every game with the engine and computes every row it stores for it (the
events table's columns, its writes' records and every read model). Before its commit the
store records, per game it loaded whole, the count of those rows, the sum of DuckDB's
``hash()`` of each (:func:`record_games`, one query) and the :func:`code_fingerprint` of
the code that checked it. ``verify`` later sums the same hashes over the stored rows
(:func:`unvouched_ranges`, one DuckDB query for the whole store): a game whose sum, count and
fingerprint all match has (but for a hash collision) the very rows the engine computed
from its events, so folding it again would find nothing; the hash chain, checked anyway,
says its events are the ones the import stored. Any other game (written live, extended, changed, or checked by other
code) is folded again; ``verify --record`` (:func:`record_sums`) records those it then
finds sound.

One column is left out of the sum: ``events.event``, the events' text, which the hash chain
covers (``verify`` checks the chain of every game).

The sums detect accidental and partial changes, as the chain does, not a forger who writes
matching rows: a 64-bit hash per row can be made to collide (docs/RELIABILITY.md).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import sys
from pathlib import Path
from typing import Sequence

import duckdb

from .projections import SCHEMA, TABLES
from .schema import COMMIT_COLUMNS, EVENT_COLUMNS

#: the columns summed, by table: the events table's but its text, the writes' records
#: (their game numbers are compared with the events' by the fold) and every read model's
DIGESTED: dict[str, tuple[str, ...]] = {
    "events": tuple(c for c, _ in EVENT_COLUMNS if c != "event"),
    "commits": tuple(c for c, _ in COMMIT_COLUMNS),
    **TABLES}

#: the list columns: each is hashed as its length, then its items (DuckDB's ``hash()`` of
#: several values takes a list's items as values of their own, and a NULL list or an empty
#: one as none: without the length, values could move between list columns unseen)
_LISTS = {(t.name, c.name) for t in SCHEMA for c in t.columns if "[]" in c.type}


@functools.cache
def code_fingerprint() -> str:
    """16 hex digits of BLAKE2b over the source of the ``seasalt_log`` package (every
    ``.py`` file, by its path in the package; the ``.pyc`` files of a build without them),
    its version, and the versions of Python, msgspec and pyarrow (they decode the events and
    make the rows) and of DuckDB (its ``hash()``): any change to the code that checks games
    or computes rows gives another. A package without either kind of file gets a random
    value: nothing another process recorded is taken on its record."""
    import msgspec
    import pyarrow
    from .. import __version__
    root = Path(__file__).resolve().parents[1]
    files = sorted(root.rglob("*.py")) or sorted(root.rglob("*.pyc"))
    if not files:       # (a frozen build: no record made here can vouch for another's)
        return secrets.token_hex(8)
    h = hashlib.blake2b(digest_size=8)
    h.update(f"seasalt {__version__}\npython {sys.version}\nmsgspec {msgspec.__version__}\n"
             f"pyarrow {pyarrow.__version__}\nduckdb {duckdb.__version__}\n".encode())
    for path in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\n")
        h.update(path.read_bytes())
    return h.hexdigest()


def _row_hash(table: str) -> str:
    """The SQL of one row's hash: the table's name, then each summed column in order (a
    list column as its length, NULL for a NULL list, then its items)."""
    return f"hash('{table}', " + ", ".join(
        f'len("{c}"), "{c}"' if (table, c) in _LISTS else f'"{c}"'
        for c in DIGESTED[table]) + ")"


def _sums(where: dict[str, str] | None = None, numbers: bool = False) -> str:
    """The SQL of each game's count and hash sum (``n``, ``d``) over the rows of every
    table of :data:`DIGESTED` (``where``: a condition on some tables' rows; with
    ``numbers``, also ``lo`` and ``hi``, the lowest and highest game number its events and
    writes carry): one aggregate over the rows' hashes of every table."""
    rows = " UNION ALL ".join(
        f"SELECT game_id, {_row_hash(t)} AS h"
        + ((", game AS g" if t in ("events", "commits") else ", NULL::INTEGER AS g")
           if numbers else "")
        + f" FROM {t}" + (f" WHERE {where[t]}" if where and t in where else "")
        for t in DIGESTED)
    return (f"SELECT game_id, count(*) AS n, sum(h) AS d"
            + (", min(g) AS lo, max(g) AS hi" if numbers else "")
            + f" FROM ({rows}) GROUP BY game_id")


def table_sizes(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Past the largest rowid of each table of :data:`DIGESTED` now: every row stored
    before lies below it, every row a transaction adds after this at or past it (see
    :func:`record_games`). (Not the count: rows deleted leave their rowids unused, and the
    rows after them keep theirs.)"""
    ends = con.execute("SELECT " + ", ".join(f"(SELECT coalesce(max(rowid) + 1, 0) FROM {t})"
                                             for t in DIGESTED)).fetchall()[0]
    return dict(zip(DIGESTED, ends))


def record_games(con: duckdb.DuckDBPyConnection, games: Sequence[str],
                 since: dict[str, int]) -> None:
    """Insert the ``checked_games`` rows of ``games``, stored in the open transaction, from
    the rows of each table at or past the rowid ``since`` gives it (:func:`table_sizes`
    before the first was written): the rows written since, and no row stored before."""
    since_sql = {t: f"rowid >= {int(n)}" for t, n in since.items()}
    # (the sums of every game written since, then those of ``games``: a filter on the
    # tables' rows would cost more than summing a few other games' rows)
    con.execute(f"WITH s AS MATERIALIZED ({_sums(since_sql)}) "
                "INSERT INTO checked_games SELECT game_id, $engine, n, d FROM s "
                "WHERE game_id IN (SELECT unnest($games))",
                {"games": list(games), "engine": code_fingerprint()})


def game_sums(con: duckdb.DuckDBPyConnection,
              games: Sequence[str] | None = None) -> dict[str, tuple[int, int]]:
    """Each stored game's (or each of ``games``') count and hash sum of its rows now."""
    where = None if games is None else {t: "game_id IN (SELECT unnest($games))" for t in DIGESTED}
    return {gid: (n, int(d)) for gid, n, d in con.execute(
        _sums(where), {} if games is None else {"games": list(games)}).fetchall()}


def record_sums(con: duckdb.DuckDBPyConnection, sums: dict[str, tuple[int, int]]) -> None:
    """Make the ``checked_games`` rows of the games of ``sums`` these counts and sums under
    this code's fingerprint (their earlier rows removed), inside the caller's transaction."""
    games = list(sums)
    if not games:
        return
    con.execute("DELETE FROM checked_games WHERE game_id IN (SELECT unnest($games))",
                {"games": games})
    con.execute("INSERT INTO checked_games SELECT unnest($games), $engine, unnest($rows), "
                "unnest($digests)::HUGEINT",
                {"games": games, "engine": code_fingerprint(),
                 "rows": [sums[g][0] for g in games], "digests": [str(sums[g][1]) for g in games]})


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
    return con.execute(
        f"WITH s AS ({_sums(numbers=True)}) "
        "SELECT s.lo, s.hi FROM s LEFT JOIN (SELECT * FROM checked_games WHERE engine = $engine) k "
        "USING (game_id) WHERE k.game_id IS NULL OR k.rows IS DISTINCT FROM s.n "
        "OR k.digest IS DISTINCT FROM s.d "
        "ORDER BY s.lo", {"engine": engine}).fetchall()
