"""The events table's rows and the hash chain through them.

:func:`event_columns` turns a checked game's events into the events table's columns and
the chain hash through the last of them; :func:`event_rows` gives the same as rows. Apart
from the store (no DuckDB here), so that a worker process that only builds rows starts
without loading DuckDB.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any, Callable, Iterable, Iterator, Sequence

from .. import events as ev
from ..engine import State

#: one row of a table, as DuckDB gives and takes it
Row = tuple[Any, ...]

HASH_BYTES = 8
_INT64 = struct.Struct(">q")


def genesis_hash(game_id: str) -> int:
    """The chain's starting value for a game."""
    return _hash(b"seasalt-log:" + game_id.encode())


def chain(prev: int, event_json: bytes) -> int:
    """The hash of an event chained to the previous one: BLAKE2b (8-byte digest) of the
    previous hash (8 bytes, big-endian) followed by the event JSON, as a signed integer."""
    value: int = _INT64.unpack(chain_digest(_INT64.pack(prev), event_json))[0]
    return value


_EMPTY_HASHER = hashlib.blake2b(digest_size=HASH_BYTES)


def chain_digest(prev: bytes, event_json: bytes,
                 _fresh: Callable[[], Any] = _EMPTY_HASHER.copy) -> bytes:
    """:func:`chain` on the hashes' 8 bytes (a long run converts only its ends)."""
    h = _fresh()        # a copy of an empty hasher: a third faster than a new one
    h.update(prev)
    h.update(event_json)
    digest: bytes = h.digest()
    return digest


def chain_links(game_id: str, texts: Iterable[bytes]) -> Iterator[int]:
    """The chain hash through each event of a game, from the events' JSON in order."""
    h, fresh, unpack = _INT64.pack(genesis_hash(game_id)), _EMPTY_HASHER.copy, _INT64.unpack
    for text in texts:
        link = fresh()          # chain_digest inlined: a function call per event costs a third
        link.update(h)
        link.update(text)
        h = link.digest()
        yield unpack(h)[0]


def chain_through(prev: bytes, texts: Iterable[bytes]) -> bytes:
    """The chain (:func:`chain_digest`) from ``prev`` through each of ``texts`` in turn."""
    fresh = _EMPTY_HASHER.copy
    for text in texts:
        link = fresh()
        link.update(prev)
        link.update(text)
        prev = link.digest()
    return prev


def chain_ends(game_id: str, texts: Sequence[bytes], ends: Iterable[int]) -> list[int]:
    """The chain hash of a game through event ``end`` (counted from 1) for each of ``ends``
    (rising, none beyond ``len(texts)``), from the events' JSON in order."""
    h, start, found = _INT64.pack(genesis_hash(game_id)), 0, []
    for end in ends:
        h = chain_through(h, texts[start:end])
        found.append(_INT64.unpack(h)[0])
        start = end
    return found


def _hash(data: bytes) -> int:
    value: int = _INT64.unpack(hashlib.blake2b(data, digest_size=HASH_BYTES).digest())[0]
    return value


def event_columns(game_id: str, game: int, events: Sequence[ev.Event], states: Sequence[State],
                  *, start: int = 0, prev_hash: int | None = None,
                  texts: list[bytes] | None = None) -> tuple[list[list[Any]], int]:
    """The events table's columns (in :data:`~.schema.EVENT_COLUMNS` order, one list each)
    for ``events[start:]`` (seq = index + 1) of the game numbered ``game``, and the chain
    hash through the last of them (``prev_hash``, the hash through event ``start``,
    continues the chain; None starts it). The ``event`` column holds each event's JSON as
    UTF-8 bytes, as it is hashed (:func:`event_rows` gives rows of strings); ``texts``, if
    given, is that JSON of each of ``events[start:]`` (:func:`events.encode_each`) already."""
    new = events[start:] if start else events
    datas = ev.encode_each(new) if texts is None else texts
    h = chain_through(_INT64.pack(prev_hash if prev_hash is not None else genesis_hash(game_id)),
                      datas)
    rounds: list[int] = []
    turns: list[int] = []
    add_round, add_turn, round_started = rounds.append, turns.append, ev.RoundStarted
    prev = states[start - 1] if start else None
    for e, s in zip(new, states[start:] if start else states):
        if prev is None:                    # game_started
            add_round(0)
            add_turn(0)
        elif type(e) is round_started:
            add_round(e.round)
            add_turn(0)
        else:
            f = prev.flow
            add_round(f.round)
            add_turn(f.turn)
        prev = s
    n, tags = len(datas), ev.TAGS
    return ([[game_id] * n, list(range(len(events) - n + 1, len(events) + 1)), [game] * n, rounds,
             turns, [getattr(e, "player", None) for e in new], [tags[type(e)] for e in new], datas],
            _INT64.unpack(h)[0])


def event_rows(game_id: str, game: int, events: Sequence[ev.Event], states: Sequence[State], *,
               start: int = 0, prev_hash: int | None = None) -> tuple[list[Row], int]:
    """Rows of the events table for ``events[start:]`` (seq = index + 1) of the game
    numbered ``game``, and the chain hash through the last of them (``prev_hash``, the hash
    through event ``start``, continues the chain; None starts it)."""
    cols, h = event_columns(game_id, game, events, states, start=start, prev_hash=prev_hash)
    cols[7] = [data.decode() for data in cols[7]]
    return list(zip(*cols)), h
