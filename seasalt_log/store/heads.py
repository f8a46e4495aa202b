"""Each game's head: the optimistic-concurrency guard of the events table (format 3).

The ``heads`` table has one row per stored game: its id (the key) and its last seq. Every
write of events moves the heads of its games, in the write's transaction, from the seq the
writer expected to the seq it stores (:func:`advance`): a new game's row is inserted, and
its key refuses a second one; a stored game's row is updated only where it still holds the
expected seq, so a stale writer updates nothing and is refused. DuckDB refuses the second
of two open transactions that update one row (or insert one key), so of two writers that
expected the same seq at most one commits. The events table needs no key of its own: a
per-event index cost about 11 bytes an event.
"""

from __future__ import annotations

from typing import Sequence

import duckdb

from ..errors import StreamConflictError
from .fetch import first_row

#: a store of an older format gets its heads from its commits (their largest seq per game)
FILL_HEADS = "INSERT INTO heads SELECT game_id, max(seq) FROM commits GROUP BY game_id"


def advance(con: duckdb.DuckDBPyConnection, moves: Sequence[tuple[str, int, int]]) -> None:
    """Move each game's head from the seq a writer expected to the seq it writes, inside the
    caller's transaction: ``moves`` are ``(game_id, expected seq, new seq)``, an expected 0
    for a new game; moves of one game follow each other (5 -> 8, 8 -> 9).

    Raises :class:`StreamConflictError` when a head is not at the expected seq (another
    writer got there first, or is writing it in a transaction still open); the caller rolls
    back. Two open transactions that both store one new game conflict only when the later
    of them commits (see :func:`commit_conflict`)."""
    span: dict[str, list[int]] = {}
    for gid, expected, new in moves:
        if gid in span and span[gid][1] != expected:
            _refuse(con, gid, expected)
        span.setdefault(gid, [expected, new])[1] = new
    fresh = [(g, n) for g, (e, n) in span.items() if e == 0]
    stored = {g: (e, n) for g, (e, n) in span.items() if e and e != n}
    try:
        if fresh:
            con.execute("INSERT INTO heads SELECT unnest($g), unnest($n)",
                        {"g": [g for g, _ in fresh], "n": [n for _, n in fresh]})
        if len(stored) == 1:        # an append: the plain statement costs half the other
            (gid, (e, n)), = stored.items()
            if not con.execute("UPDATE heads SET seq = ? WHERE game_id = ? AND seq = ?",
                               [n, gid, e]).fetchall()[0][0]:
                _refuse(con, gid, e)
        elif stored:
            moved = {r[0] for r in con.execute(
                "UPDATE heads SET seq = m.new FROM (SELECT unnest($g) AS game_id, unnest($e) "
                "AS expected, unnest($n) AS new) m WHERE heads.game_id = m.game_id AND "
                "heads.seq = m.expected RETURNING heads.game_id",
                {"g": list(stored), "e": [e for e, _ in stored.values()],
                 "n": [n for _, n in stored.values()]}).fetchall()}
            for gid in stored:
                if gid not in moved:
                    _refuse(con, gid, stored[gid][0])
    except (duckdb.ConstraintException, duckdb.TransactionException) as exc:
        gid = _key(str(exc)) or next(iter(span))
        expected = span.get(gid, [0])[0]
        raise StreamConflictError(gid, expected, expected + 1, _reason(gid, expected)) from None


def commit_conflict(exc: duckdb.Error) -> StreamConflictError | None:
    """The :class:`StreamConflictError` of a COMMIT that DuckDB refused because another
    transaction stored the same new game first, else None."""
    text = str(exc)
    if isinstance(exc, duckdb.TransactionException) and "constraint" in text.lower():
        gid = _key(text) or "?"
        return StreamConflictError(gid, 0, 1, _reason(gid, 0))
    return None


def _refuse(con: duckdb.DuckDBPyConnection, gid: str, expected: int) -> None:
    row = first_row(con, "SELECT seq FROM heads WHERE game_id = ?", [gid])
    raise StreamConflictError(gid, expected, row[0] if row else 0, _reason(gid, expected))


def _reason(gid: str, expected: int) -> str:
    return (f"game {gid}: event seq {expected + 1} was already written by another writer "
            "(stale expected sequence)")


def _key(message: str) -> str | None:
    # 'Duplicate key "game_id: g0" violates ...' or '... duplicate key "g0"'
    try:
        inner = message.split('"')[1]
    except IndexError:
        return None
    return inner.split("game_id: ", 1)[1] if inner.startswith("game_id: ") else inner
