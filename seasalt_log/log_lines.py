"""A game's lines within the bytes of a log read into memory, kept as those bytes: no bytes
object per line.

A log whose every line is its event's canonical JSON (:func:`events.canonical_games`) is
read in one piece; each of its games keeps its lines as a :class:`Lines`, which the events
table takes as they are: hashed in one piece (:func:`.store.event_table.lines_link`) and
cut into an Arrow column once for all the games of the log
(:func:`.store.arrow_rows.texts_array`).
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence, overload


class Log:
    """The bytes of whole lines of a log, each ending in a newline, shared by the
    :class:`Lines` of its games; ``lines``: the Arrow array of those lines, once made;
    ``codes``: each line's event's type and player as bytes
    (:func:`~seasalt_log.events.event_codes`), if known."""

    __slots__ = ("data", "lines", "codes")

    def __init__(self, data: bytes, codes: tuple[bytes, bytes] | None = None) -> None:
        self.data = data
        self.lines: Any = None
        self.codes = codes


class Lines(Sequence[bytes]):
    """Lines ``first`` .. ``first + n - 1`` (counted from 0) of ``log``, which are its bytes
    ``start`` .. ``stop - 1`` (each line followed by its newline)."""

    __slots__ = ("log", "first", "n", "start", "stop")

    def __init__(self, log: Log, first: int, n: int, start: int, stop: int) -> None:
        self.log, self.first, self.n, self.start, self.stop = log, first, n, start, stop

    def codes(self) -> tuple[bytes, bytes] | None:
        """The lines' events' type and player codes (:attr:`Log.codes`), if known."""
        codes = self.log.codes
        if codes is None:
            return None
        end = self.first + self.n
        return codes[0][self.first:end], codes[1][self.first:end]

    def joined(self) -> memoryview:
        """The lines, each followed by its newline, as one piece of the log's bytes."""
        return memoryview(self.log.data)[self.start:self.stop]

    def split(self) -> list[bytes]:
        """The lines as bytes objects (without their newlines)."""
        out = self.log.data[self.start:self.stop].split(b"\n")
        out.pop()
        return out

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.split())

    @overload
    def __getitem__(self, i: int) -> bytes: ...
    @overload
    def __getitem__(self, i: slice) -> list[bytes]: ...
    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        return self.split()[i]

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same lines."""
        if isinstance(other, Sequence):
            return self.split() == list(other)
        return NotImplemented

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Lines({self.split()!r})"
