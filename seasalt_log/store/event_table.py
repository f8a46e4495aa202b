"""The events table's rows and the hash chain of a game's writes.

:func:`event_columns` turns a checked game's events into the events table's columns and
the chain link of the write that stores them; :func:`event_rows` gives the same as rows.
Apart from the store (no DuckDB here), so that a worker process that only builds rows starts
without loading DuckDB.

The chain (store format 4) has one link per write of a game, the value its ``commits`` row
records: link(0) is :func:`genesis_hash`, and a write storing events a..b records
link(w) = BLAKE2b-64(link(w-1) as 8 bytes big-endian || JSON(e_a) "\\n" ... JSON(e_b) "\\n"),
link(w-1) being the game's previous write's. The newline after each event makes the
events' boundaries part of what is hashed (canonical JSON holds no raw newline). Formats 1
to 3 chained every event instead (:mod:`.format3`, which the migration checks).
"""

from __future__ import annotations

import hashlib
import struct
from array import array
from typing import Any, Iterable, Iterator, Sequence, overload

from .. import events as ev
from ..engine import State
from ..log_lines import Lines

#: one row of a table, as DuckDB gives and takes it
Row = tuple[Any, ...]

HASH_BYTES = 8
_INT64 = struct.Struct(">q")
_EMPTY_HASHER = hashlib.blake2b(digest_size=HASH_BYTES)


def genesis_hash(game_id: str) -> int:
    """The chain's starting value for a game: the link before its first write."""
    return _hash(b"seasalt-log:" + game_id.encode())


def chain(prev: int, texts: Sequence[bytes]) -> int:
    """The link a write of a game records in its ``commits`` row: BLAKE2b (8-byte digest)
    of ``prev`` (the game's previous write's link, or :func:`genesis_hash` for its first
    write; 8 bytes, big-endian) followed by each of ``texts`` (the JSON of the events the
    write stores, in order) and a newline after each, as a signed integer."""
    return link_value(write_link(link_bytes(prev), texts))


def write_link(prev: bytes, texts: Sequence[bytes]) -> bytes:
    """:func:`chain` on the links' 8 bytes."""
    return lines_link(prev, b"\n".join(texts), b"\n")


def lines_link(prev: bytes, *lines: bytes | memoryview) -> bytes:
    """:func:`write_link` of the events whose JSON, each followed by a newline, is the
    concatenation of ``lines`` (e.g. one slice of an Arrow data buffer: no Python object
    per event)."""
    h = _EMPTY_HASHER.copy()        # a copy of an empty hasher: a third faster than a new one
    h.update(prev)
    for part in lines:
        h.update(part)
    digest: bytes = h.digest()
    return digest


def write_links(game_id: str, texts: Sequence[bytes], ends: Iterable[int]) -> list[int]:
    """The links of a game's writes that ended at the events ``ends`` (counted from 1,
    rising, none beyond ``len(texts)``), each write storing the events after the one
    before it, from the events' JSON in order."""
    h, start, found = link_bytes(genesis_hash(game_id)), 0, []
    for end in ends:
        h = write_link(h, texts[start:end])
        found.append(link_value(h))
        start = end
    return found


def link_value(link: bytes) -> int:
    """A link's 8 bytes as the signed integer the ``commits`` table holds."""
    value: int = _INT64.unpack(link)[0]
    return value


def link_bytes(value: int) -> bytes:
    """The 8 bytes of a link held as a signed integer."""
    return _INT64.pack(value)


def _hash(data: bytes) -> int:
    value: int = _INT64.unpack(hashlib.blake2b(data, digest_size=HASH_BYTES).digest())[0]
    return value


#: 1, 2, 3, ... as C ints, as far as the longest game met: a game's ``seq`` column is a
#: slice of it (a copy of memory; a C array takes about 0.2 µs per value it converts)
_SEQS = array("i")


def _seqs(first: int, last: int) -> array:
    """``first`` .. ``last`` (from 1) as a C array of 32-bit ints."""
    if last > len(_SEQS):
        _SEQS.extend(range(len(_SEQS) + 1, 2 * last + 1))
    return _SEQS[first - 1:last]


class Coded(Sequence[Any]):
    """A column of values taken from a few (``values``), held as the index of each one's in
    ``values``, a byte: a :class:`~.arrow_rows.RowSink` turns it into Arrow in C (no Python
    object per value); read as a sequence, it gives the values."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: bytes | bytearray, values: tuple[Any, ...]) -> None:
        self.codes, self.values = codes, values

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self) -> Iterator[Any]:
        return map(self.values.__getitem__, self.codes)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        return self.values[self.codes[i]] if isinstance(i, int) else list(self)[i]

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same values."""
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Coded({list(self)!r})"


#: the ``type`` column's values, in the order of their codes (:data:`events.TYPE_CODES`)
TYPE_NAMES = tuple(ev.TAGS[t] for t in ev.EVENT_TYPES)
_ROUND_STARTED = ev.TYPE_CODES[ev.RoundStarted]
#: the ``player`` column's values: a seat (the engine allows no other), or NULL (an event
#: without a player, :data:`events.NO_SEAT`)
SEATS = (0, 1, 2, 3, None)
assert SEATS.index(None) == ev.NO_SEAT


def event_columns(game_id: str, game: int, events: Sequence[ev.Event], states: Sequence[State],
                  *, start: int = 0, prev_hash: int | None = None,
                  texts: Sequence[bytes] | None = None) -> tuple[list[Any], int]:
    """The events table's columns (in :data:`~.schema.EVENT_COLUMNS` order)
    for ``events[start:]`` (seq = index + 1) of the game numbered ``game``, and the chain
    link of the write that stores them (``prev_hash``, the link of the game's previous
    write, which stored events up to ``start``; None: this is the game's first write).
    The ``event`` column holds each event's JSON as UTF-8 bytes, as it is hashed
    (:func:`event_rows` gives rows of strings); ``texts``, if given, is that JSON of each
    of ``events[start:]`` (:func:`events.encode_each`) already: the column is then
    ``texts`` itself (a :class:`~seasalt_log.log_lines.Lines` is hashed as the log's bytes
    hold it). The ``seq``, ``game`` and ``round`` columns are C arrays of 32-bit ints, the
    column type (a :class:`~.arrow_rows.RowSink` takes them with no conversion per value),
    the ``type`` and ``player`` columns :class:`Coded`, the others lists."""
    new = events[start:] if start else events
    datas = ev.encode_each(new) if texts is None else texts
    prev = _INT64.pack(prev_hash if prev_hash is not None else genesis_hash(game_id))
    h = lines_link(prev, datas.joined()) if type(datas) is Lines else write_link(prev, datas)
    # an event's round and turn are those of the flow before it: a game's first event is
    # in round 0, turn 0, a round_started in its own round, turn 0. The round changes only
    # there, so the rounds column is runs between the round starts (found in C); the turns
    # are read in one comprehension (its specialised attribute reads cost less than
    # ``operator.attrgetter`` or a test per event)
    before = states[start - 1:len(events) - 1] if start else states[:len(events) - 1]
    turns = [s.flow.turn for s in before]
    if not start and new:
        turns.insert(0, 0)
    codes = (datas.codes() if type(datas) is Lines and len(datas) == len(new) else None
             ) or ev.event_codes(new)
    assert codes is not None        # a checked event's seat is one of its game's
    types, seats = codes
    rounds = array("i")
    rnd, at = before[0].flow.round if start and new else 0, 0
    try:
        while True:
            i = types.index(_ROUND_STARTED, at)
            rounds += array("i", (rnd,)) * (i - at)
            rnd, at = new[i].round, i + 1      # type: ignore[attr-defined]
            rounds.append(rnd)
            turns[i] = 0
    except ValueError:
        rounds += array("i", (rnd,)) * (len(new) - at)
    n, end = len(datas), len(events)
    return ([[game_id] * n, _seqs(end - n + 1, end), array("i", (game,)) * n, rounds, turns,
             Coded(seats, SEATS), Coded(types, TYPE_NAMES), datas], _INT64.unpack(h)[0])


def event_rows(game_id: str, game: int, events: Sequence[ev.Event], states: Sequence[State], *,
               start: int = 0, prev_hash: int | None = None) -> tuple[list[Row], int]:
    """Rows of the events table for ``events[start:]`` (seq = index + 1) of the game
    numbered ``game``, and the chain link of the write that stores them (``prev_hash``: as
    :func:`event_columns` takes it)."""
    cols, h = event_columns(game_id, game, events, states, start=start, prev_hash=prev_hash)
    cols[7] = [data.decode() for data in cols[7]]
    return list(zip(*cols)), h
