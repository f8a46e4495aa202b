"""The project's exceptions: one base class, specific subclasses that carry data.

Every failure that input can cause is one of these; the CLI and the HTTP service turn
them into a one-line message and an exit code / status.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Sequence


class SeasaltError(Exception):
    """Base of every error this library raises on purpose."""

    def __str__(self) -> str:
        return self.args[0] if self.args else type(self).__name__

    def __reduce__(self):
        # pickled as it is (args and fields), not by calling the class with ``args``: most
        # subclasses take other arguments than the message ``args`` holds
        return _unpickled, (type(self), self.args, self.__dict__)


def _unpickled(cls: type[SeasaltError], args: tuple, fields: dict) -> SeasaltError:
    """A pickled :class:`SeasaltError` again, its ``__init__`` not called."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(fields)
    return error


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` says Ctrl-C stopped the work: a KeyboardInterrupt, or DuckDB's
    report of it when the signal lands while a statement runs (a RuntimeError "Query
    interrupted", or its InterruptException), which is no failure of the store."""
    return (isinstance(exc, KeyboardInterrupt)
            or type(exc).__name__ == "InterruptException"
            or (isinstance(exc, RuntimeError) and str(exc).startswith("Query interrupted")))


class Where:
    """Mixin: a position in a log (file, line, game, seq, round, turn) prefixing a message."""

    file: str | None = None
    line: int | None = None
    game_id: str | None = None
    seq: int | None = None
    round: int | None = None
    turn: int | None = None

    def locate(self, *, file=None, line=None, game_id=None, seq=None, round=None, turn=None):
        """Fill in whatever position fields are still unknown; returns self."""
        for name, value in (("file", file), ("line", line), ("game_id", game_id),
                            ("seq", seq), ("round", round), ("turn", turn)):
            if value is not None and getattr(self, name) is None:
                setattr(self, name, value)
        return self

    def where(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(f"{self.file}:{self.line}" if self.line is not None else self.file)
        elif self.line is not None:
            parts.append(f"line {self.line}")
        ctx = []
        if self.game_id is not None:
            ctx.append(f"game {self.game_id}")
        if self.round:
            ctx.append(f"round {self.round}")
        if self.turn:
            ctx.append(f"turn {self.turn}")
        if ctx:
            parts.append(", ".join(ctx))
        return ": ".join(parts)


class LogFormatError(Where, SeasaltError, ValueError):
    """A log line that is not well-formed (RULES.md §8, ``LOG-FORMAT``)."""

    rule = "LOG-FORMAT"

    def __init__(self, reason: str, path: str | None = None, **where):
        super().__init__(reason)
        self.reason = reason
        self.path = path
        self.locate(**where)

    def __str__(self) -> str:
        at = f" at {self.path}" if self.path else ""
        w = self.where()
        return f"{w + ': ' if w else ''}{self.rule}: {self.reason}{at}"


def did_you_mean(names: Sequence[str]) -> str:
    """The tail of a message about an unknown name: ``"; did you mean a, b?"`` naming the
    known ``names`` nearest it, or nothing when there are none."""
    return "; did you mean " + ", ".join(names) + "?" if names else ""


def nearest(value: str, names: Iterable[str], cutoff: float = 0.5) -> str:
    """:func:`did_you_mean` of the (up to three) ``names`` nearest ``value``, by
    :func:`difflib.get_close_matches` with that ``cutoff``."""
    return did_you_mean(difflib.get_close_matches(value, list(names), n=3, cutoff=cutoff))


class CardCodeError(SeasaltError, ValueError):
    """A card code that is not in the catalog, or more copies than the deck holds."""

    def __init__(self, code: str, suggestions: list[str], reason: str | None = None):
        if reason is None:
            reason = f"unknown card code {code!r}" + did_you_mean(suggestions)
        super().__init__(reason)
        self.code = code
        self.suggestions = suggestions
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


class IllegalMoveError(Where, SeasaltError, ValueError):
    """An event the rules do not allow here; ``rule`` is the RULES.md id it breaks."""

    def __init__(self, rule: str, reason: str, **where):
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason
        self.locate(**where)

    def __str__(self) -> str:
        w = self.where()
        return f"{w + ': ' if w else ''}{self.rule}: {self.reason}"


class StreamConflictError(SeasaltError):
    """An append whose expected sequence number is stale, or a different history."""

    def __init__(self, game_id: str, expected: int, found: int, reason: str | None = None):
        self.game_id, self.expected, self.found = game_id, expected, found
        self.reason = reason or (f"game {game_id}: expected to append at seq {expected}, "
                                 f"but the stream is at seq {found}")
        super().__init__(self.reason)

    def __str__(self) -> str:
        return self.reason


class GameExistsError(StreamConflictError):
    """A new game whose id a stored game (at seq ``found``) already has."""

    def __init__(self, game_id: str, found: int):
        super().__init__(game_id, 0, found, f"game {game_id} already exists (at seq {found})")


class UnknownGameError(SeasaltError, LookupError):
    """No stored game has this id; ``near``: stored ids a user may have meant."""

    def __init__(self, game_id: str, near: Sequence[str] = ()):
        self.game_id = game_id
        self.near = tuple(near)
        super().__init__(f"no game with id {game_id!r} in the store{did_you_mean(self.near)}")

    def __str__(self) -> str:
        return self.args[0]


class StoreBusyError(SeasaltError):
    """The DuckDB file is locked by another process."""

    def __str__(self) -> str:
        return self.args[0]


class UsageError(SeasaltError, ValueError):
    """A request that cannot be served as asked (bad round number, unknown player, ...)."""

    def __str__(self) -> str:
        return self.args[0]


class StoreDamagedError(SeasaltError):
    """The store file (or its write-ahead log) cannot be read: truncated, overwritten, not
    a DuckDB database, a directory, or a write-ahead log that belongs to another file."""

    def __str__(self) -> str:
        return self.args[0]
