"""The hash chain of store formats 1 to 3, kept for the migration to format 4 alone.

Those formats chained every event: hash(k) = BLAKE2b-64(hash(k-1) as 8 bytes big-endian ||
event k's JSON), from :func:`~.event_table.genesis_hash`; format 1 stored it in every event
row, formats 2 and 3 in each write's ``commits`` row (the hash through its last event).
Before the migration rewrites the links by format 4's definition (:func:`relinked_commits`)
it checks them with this (:func:`checked`, :func:`~.store.migrate_v3`), so that a change
made before it does not go unseen after it.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterable, Iterator, NoReturn

from ..errors import SeasaltError
from .event_table import HASH_BYTES, genesis_hash, link_bytes, link_value, write_link

_EMPTY_HASHER = hashlib.blake2b(digest_size=HASH_BYTES)


def format3_links(game_id: str, texts: Iterable[bytes]) -> Iterator[int]:
    """The format-3 chain hash through each event of a game, from the events' JSON in
    order."""
    h = link_bytes(genesis_hash(game_id))
    for text in texts:
        h = _format3_through(h, (text,))
        yield link_value(h)


def _format3_through(prev: bytes, texts: Iterable[bytes]) -> bytes:
    """The format-3 chain from ``prev`` (8 bytes) through each of ``texts`` in turn."""
    fresh = _EMPTY_HASHER.copy
    for text in texts:
        link = fresh()
        link.update(prev)
        link.update(text)
        prev = link.digest()
    return prev


#: one stored game of a format-3 store: its id, its events' seqs and JSON in seq order,
#: and its writes (rowid, number, seq, format-3 hash) in seq order
Game = tuple[str, list[int], list[bytes], list[tuple]]


def stored_games(con: Any, version: int, games: int = 2000) -> Iterator[Game]:
    """Every game of a format-3 store (``con``, a DuckDB connection) with its writes, the
    events read as Arrow columns ``games`` game numbers at a time, in the order stored; a
    write recorded of a game none of whose events is stored raises :class:`SeasaltError`
    (the migration to format ``version`` is refused) once every stored game is given."""
    import pyarrow as pa

    from .batch import game_starts
    writes: dict[str, list[tuple]] = {}
    for gid, *row in con.execute("SELECT game_id, rowid, game, seq, hash FROM commits "
                                 "ORDER BY game_id, seq, rowid").fetchall():
        writes.setdefault(gid, []).append(tuple(row))
    numbers = [r[0] for r in con.execute("SELECT DISTINCT game FROM events ORDER BY game"
                                         ).fetchall()]
    for i in range(0, len(numbers), games):
        table = con.sql("SELECT game_id, seq, event FROM events WHERE game BETWEEN ? AND ? "
                        "ORDER BY game_id, seq",
                        params=[numbers[i], numbers[min(i + games, len(numbers)) - 1]]
                        ).to_arrow_table()
        starts = game_starts(table.column("game_id"))
        ids = table.column("game_id").take(starts[:-1]).to_pylist()
        seqs = table.column("seq").to_pylist()
        texts = table.column("event").cast(pa.binary()).to_pylist()
        for k, gid in enumerate(ids):
            a, b = starts[k], starts[k + 1]
            yield gid, seqs[a:b], texts[a:b], writes.pop(gid, [])
    for gid, left in writes.items():
        _refuse(version, gid, left[0][2], "a write of it is recorded, but none of its events "
                                          "is stored")


def checked(games: Iterable[Game], version: int) -> Iterator[Game]:
    """Each of ``games`` once its format-3 chain is checked: each write's hash against
    the chain through its events; a broken chain raises :class:`SeasaltError` (and so do
    the writes :func:`relinked_commits` refuses)."""
    for game in games:
        gid, _, texts, writes = game
        old = link_bytes(genesis_hash(gid))
        for (_, _, seq, h), (start, end) in zip(writes, _spans(game, version)):
            old = _format3_through(old, texts[start:end])
            if link_value(old) != h:
                _refuse(version, gid, seq, "its hash chain is broken (an event or a write's "
                                           "hash was changed)")
        yield game


def relinked_commits(games: Iterable[Game], version: int) -> list[tuple]:
    """Every write of ``games`` as a row of the ``commits`` table, in the order of the
    rows' rowids, its hash the write's format-4 link; a write recorded up to no stored
    event after the write before, or events stored after a game's last write, raise
    :class:`SeasaltError` (the migration to format ``version`` is refused). The writes'
    format-3 hashes are not looked at: :func:`checked` checks them."""
    relinked: dict[int, tuple] = {}         # rowid -> the row with its format-4 link
    for game in games:
        gid, _, texts, writes = game
        new = link_bytes(genesis_hash(gid))
        for (rid, number, seq, _), (start, end) in zip(writes, _spans(game, version)):
            new = write_link(new, texts[start:end])
            relinked[rid] = (gid, number, seq, link_value(new))
    return [relinked[rid] for rid in sorted(relinked)]


def _spans(game: Game, version: int) -> list[tuple[int, int]]:
    """(first row, end) of the events each write of a game stored, from its stored events'
    seqs; :func:`_refuse` when a write is recorded up to no stored event after the write
    before, or events are stored after the last write."""
    gid, seqs, _, writes = game
    n = len(seqs)
    at = None if seqs == list(range(1, n + 1)) else {seq: k + 1 for k, seq in enumerate(seqs)}
    start, spans = 0, []
    for _, _, seq, _ in writes:
        end = (seq if 1 <= seq <= n else 0) if at is None else at.get(seq, 0)
        if end <= start:
            _refuse(version, gid, seq, "a write is recorded up to it, which is not a stored "
                                       "event after the write before")
        spans.append((start, end))
        start = end
    if start < n:
        _refuse(version, gid, seqs[start], "it is stored, but no write of it is recorded")
    return spans


def _refuse(version: int, gid: str, seq: int, why: str) -> NoReturn:
    raise SeasaltError(f"cannot migrate the store to format {version}: game {gid}, seq {seq}: "
                       f"{why}; check the store with the version that wrote it "
                       "(`seasalt verify`)")
