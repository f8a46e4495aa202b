"""Read LOG_FORMAT.md JSON Lines: split a stream into games, decode and check every event.

Reading is streamed (one line at a time), so a file of any size is read in bounded memory
per game. Errors carry the file, the line, the game id and the position in the game.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Sequence

import msgspec
from msgspec import Struct

from .. import events as ev
from ..events import derive_game_id  # noqa: F401  (the importers' name for it)
from ..engine import State, apply, next_derived
from ..engine.core import HANDLERS, refusal
from ..engine.state import named
from ..errors import IllegalMoveError, LogFormatError, SeasaltError
from ..identifiers import MAX_LINE_BYTES, game_id_problem
from ..log_lines import Lines, Log


#: A UTF-8 byte-order mark: at the start of a log (line 1) it is read past, as the editors
#: that write it mean it (LOG_FORMAT.md); anywhere else it is an error that names it.
BOM = b"\xef\xbb\xbf"


class RawGame(Struct):
    """One game as read from a file: its decoded events and their line numbers."""

    source: str
    events: list[ev.Event]
    lines: list[int] | range    # each event's line number (a range: the lines in a row, no
                                # int object made per event; a list where _games makes it)
    error: LogFormatError | None = None     # a format error that cut the game short
    texts: Sequence[bytes] | None = None    # each event's line, when it is the event's own
                                            # JSON (events.encode), else not kept

    @property
    def first_line(self) -> int:
        return self.lines[0] if self.lines else 0


class CheckedGame(Struct):
    """A game every event of which the engine accepted, derived events included."""

    game_id: str
    events: list[ev.Event]
    states: list[State]           # the state after each event
    source: str = "-"
    first_line: int = 0


def iter_lines(source: str | Path | BinaryIO | Iterable[bytes], first_line: int = 1
               ) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each non-blank line; ``-`` is standard input. ``source`` may
    also be an open binary file or any iterable of byte lines (the import's progress
    counter is one, a chunk of a log another: its first line is ``first_line``)."""
    if source == "-" or source == Path("-"):
        stream = sys.stdin.buffer
        yield from _numbered(stream)
        return
    if hasattr(source, "read") or not isinstance(source, (str, bytes, Path)):
        yield from _numbered(source, first_line)
        return
    try:
        fh = open(source, "rb")
    except OSError as exc:
        raise LogFormatError(f"cannot read it ({exc.strerror or exc})", file=str(source)) from None
    with fh:
        yield from _numbered(fh)


def _numbered(stream, first_line: int = 1) -> Iterator[tuple[int, bytes]]:
    """Number the lines; a line longer than :data:`MAX_LINE_BYTES` is a LOG-FORMAT error,
    raised without reading the rest of it."""
    if hasattr(stream, "readline"):
        read = functools.partial(stream.readline, MAX_LINE_BYTES + 2)   # and b"\r\n"
        lines = iter(read, b"")
    else:
        lines = iter(stream)
    for no, line in enumerate(lines, first_line):
        if len(line) > MAX_LINE_BYTES and len(line.rstrip(b"\r\n")) > MAX_LINE_BYTES:
            raise LogFormatError(f"a line may hold at most {MAX_LINE_BYTES:,} bytes; line {no} "
                                 "is longer", line=no)
        if line.strip():
            yield no, line


def read_games(source: str | Path | BinaryIO | Iterable[bytes], name: str | None = None,
               first_line: int = 1) -> Iterator[RawGame]:
    """Split a log into games; a format error ends its game (reported on the RawGame) and
    the rest of that game is skipped up to the next ``game_started``. ``first_line``: the
    line number of an iterable ``source``'s first line (a chunk of a log)."""
    name = name or (str(source) if not hasattr(source, "read") else "-")
    return _games(iter_lines(source, first_line), name, ev.decode)


def read_games_data(data: bytes, name: str, first_line: int = 1) -> Iterator[RawGame]:
    """:func:`read_games` of a log's lines held in memory (a chunk of a log). A log whose
    every line is its event's canonical JSON (:func:`events.decode_canonical`) is decoded in
    one call, and its games keep their lines as their events' ``texts`` (a
    :class:`~seasalt_log.log_lines.Lines`: where they lie in ``data``, no bytes object per
    line)."""
    marked = first_line == 1 and data.startswith(BOM)
    if marked:
        data = data[len(BOM):]
    if data and data[-1:] != b"\n":
        data += b"\n"              # the last line of a file without its newline
    canonical = ev.canonical_games(data)
    if canonical is None or not _lines_within(data, MAX_LINE_BYTES):
        lines = data.split(b"\n")
        if marked:                  # read past line by line (its errors count it)
            lines[0] = BOM + lines[0]
        return read_games(lines, name, first_line)
    events, starts, offsets, codes = canonical
    if not starts:      # a format error, or no game_started first: as read_games finds them
        return _games(zip(range(first_line, first_line + len(events)), events), name, None,
                      data.split(b"\n"), first_line)
    log = Log(data, codes)
    ends = [*starts[1:], len(events)]
    return iter([RawGame(source=name, events=events[a:b],
                         lines=range(first_line + a, first_line + b),
                         texts=Lines(log, a, b - a, start, stop))
                 for a, b, start, stop in zip(starts, ends, offsets, offsets[1:])])


def _lines_within(data: bytes, most: int) -> bool:
    """Whether each line of ``data`` (each ending in a newline) holds at most ``most``
    bytes. They are measured only if some block of ``most // 2`` bytes of ``data`` holds no
    newline: else no line is longer than ``most - 2`` (a few searches in C for a whole
    chunk, no call per line)."""
    half = most // 2
    if all(data.find(b"\n", at, at + half) >= 0 for at in range(0, len(data), half)):
        return True
    return max(map(len, data.split(b"\n")), default=0) <= most


def _games(lines: Iterator[tuple[int, Any]], name: str, decode: Callable[[bytes], ev.Event] | None,
           texts: list[bytes] | None = None, first: int = 1) -> Iterator[RawGame]:
    """The games of :func:`read_games` from (line number, line) pairs, each line decoded by
    ``decode`` (None: the pairs hold the decoded events already, and ``texts`` the lines,
    one per line number from ``first``)."""
    game: RawGame | None = None
    n_players: int | None = None
    skipping = False
    while True:
        try:
            no, line = next(lines)
        except StopIteration:
            break
        except LogFormatError as exc:       # a line too long: the rest is not read
            raise exc.locate(file=name) from None
        try:
            try:
                e = decode(line) if decode is not None else line
            except LogFormatError as exc:
                try:
                    e = _past_bom(exc, decode, line, no)
                except LogFormatError:
                    started = _started_id(line)
                    if started is None:
                        raise
                    # a game_started line too ill-formed to read starts a game all the same:
                    # its error is that game's, not the one before's
                    if game is not None:
                        yield _with_texts(game, texts, first)
                    game, skipping = RawGame(source=name, events=[], lines=[]), True
                    game.error = exc.locate(file=name, line=no, game_id=started or None)
                    continue
            if type(e) is ev.GameStarted:
                if game is not None:
                    yield _with_texts(game, texts, first)
                game, skipping = RawGame(source=name, events=[], lines=[]), False
                n_players = len(e.players)
            elif game is None:
                game = RawGame(source=name, events=[], lines=[])
                raise LogFormatError("the log must begin with a game_started line", "$.type")
            if skipping:
                continue
            ev.validate(e, n_players)
            game.events.append(e)
            game.lines.append(no)   # type: ignore[union-attr]
        except LogFormatError as exc:
            if game is None:
                game = RawGame(source=name, events=[], lines=[])
            if not skipping:
                start = game.events[0] if game.events else None      # a game_started
                gid = start.game_id if isinstance(start, ev.GameStarted) else None
                game.error = exc.locate(file=name, line=no, game_id=gid)
                skipping = True
    if game is not None:
        yield _with_texts(game, texts, first)


def _past_bom(exc: LogFormatError, decode: Callable[[bytes], ev.Event] | None, line: Any,
              no: int) -> ev.Event:
    """The event of a line that ``decode`` refused with ``exc``: read past a byte-order mark
    starting line 1; a mark elsewhere is named; any other error is ``exc``. (Only a refused
    line gets here: the lines read well pay nothing for it.)"""
    if decode is None or not line.startswith(BOM):
        raise exc
    if no != 1:
        raise LogFormatError("a UTF-8 byte-order mark is allowed only at the start of a log "
                             "(line 1)") from None
    # the mark's three bytes as three spaces, JSON's whitespace: a JSON error's byte is the line's
    return decode(b" " * len(BOM) + line[len(BOM):])


class _Started(Struct):
    """What a refused line must be read for: its type and game id (any other field skipped)."""

    type: Any = None
    game_id: Any = None


def _started_id(line: bytes) -> str | None:
    """For a line the decoder refused: its ``game_id`` if it is a JSON object of type
    ``game_started`` ("" when it has no well-formed id), else None."""
    try:
        obj = msgspec.json.decode(line, type=_Started)
    except (msgspec.DecodeError, RecursionError):
        return None
    if obj.type != "game_started":
        return None
    gid = obj.game_id
    return gid if isinstance(gid, str) and game_id_problem(gid) is None else ""


def _with_texts(game: RawGame, texts: list[bytes] | None, first: int) -> RawGame:
    """``game`` with its events' lines from ``texts`` (line ``first`` is ``texts[0]``)."""
    if texts is not None and game.error is None and game.lines:
        game.texts = texts[game.lines[0] - first:game.lines[-1] - first + 1]
    return game


def raw_game(events: Sequence[ev.Event], source: str = "-", first_line: int = 1) -> RawGame:
    """A game given as events (not read from a file), format-checked like :func:`read_games`;
    event ``i`` counts as line ``first_line + i``."""
    events = list(events)
    raw = RawGame(source=source, events=events,
                  lines=list(range(first_line, first_line + len(events))))
    n_players = len(events[0].players) if events and isinstance(events[0], ev.GameStarted) else None
    for e, line in zip(events, raw.lines):
        try:
            ev.validate(e, n_players)
        except LogFormatError as exc:
            raw.error = exc.locate(file=source, line=line)
            break
    return raw


def check_game(raw: RawGame) -> CheckedGame:
    """Run every event through the engine, adding derived events the log leaves out.

    Raises the format error the game carries, or the first :class:`IllegalMoveError`,
    located at its file and line.
    """
    if raw.error is not None:
        if raw.events and raw.error.game_id is None:
            raw.error.locate(game_id=_game_id(raw.events))
        raise raw.error
    gid = _game_id(raw.events)
    events = raw.events
    states: list[State] = []
    # (place in the game's events, derived event) of each one the log left out
    added: list[tuple[int, ev.Event]] = []
    s = State()
    handlers, derived = HANDLERS, ev.DERIVED_TYPES
    try:
        for e in events:
            try:                # apply(s, e), without a call of its own per event
                s = handlers[type(e)](s, e)
            except (IndexError, KeyError, IllegalMoveError, LogFormatError) as exc:
                # every input event is refused while a derived event is owed (R-DERIVED), so
                # an owed event the log left out is looked for only here, not at every event
                if s.flow.due is not None and type(e) not in derived:
                    s = apply(_add_owed(s, states, added), e)
                elif isinstance(exc, LogFormatError):
                    raise
                else:
                    raise refusal(s, e, exc) from None
            states.append(s)    # list.append called by name: the interpreter's own fast path
        s = _add_owed(s, states, added)
    except SeasaltError as exc:
        if hasattr(exc, "locate"):
            exc.locate(file=raw.source, line=_line_of(raw, len(states) - len(added)),
                       game_id=gid)
        raise
    out = list(events)
    for at, d in added:         # in order: each at its place among those before it
        out.insert(at, d)
    if states and states[0].game.game_id is None:
        states = named(states, gid)
    return CheckedGame(game_id=gid, events=out, states=states, source=raw.source,
                       first_line=raw.first_line)


def _add_owed(s: State, states: list[State], added: list[tuple[int, ev.Event]]) -> State:
    """``s`` after the derived events owed there (:func:`next_derived`), each appended to
    ``states`` and, with its place among them, to ``added``."""
    while (d := next_derived(s)) is not None:
        s = apply(s, d)
        added.append((len(states), d))
        states.append(s)
    return s


def _line_of(raw: RawGame, i: int) -> int:
    """The line of the game's event ``i`` (its last line past the end, the game's first
    line if it has no event): where an error found at that event is reported."""
    lines = raw.lines
    return lines[i] if i < len(lines) else lines[-1] if lines else raw.first_line


def _game_id(events: list[ev.Event]) -> str:
    first = events[0] if events else None
    if isinstance(first, ev.GameStarted) and first.game_id:
        return first.game_id
    return derive_game_id(events)


def iter_paths(paths: Iterable[str | Path]) -> Iterator[str | Path]:
    """Expand directories recursively (``*.jsonl`` files, sorted; a directory with none is
    a LOG-FORMAT error); ``-`` passes through."""
    for p in paths:
        if str(p) == "-":
            yield "-"
            continue
        path = Path(p)
        try:
            if path.is_dir():
                found = sorted(q for q in path.rglob("*.jsonl") if q.is_file())
                if not found:           # a mistyped directory, most likely: say so
                    raise LogFormatError("no *.jsonl file in this directory or below it",
                                         file=str(p))
            elif path.exists():
                found = [path]
            else:
                raise LogFormatError("no such file or directory", file=str(p))
            for q in found:
                open(q, "rb").close()           # unreadable: say so now, not mid-import
        except OSError as exc:                 # too long a name, no permission, ...
            raise LogFormatError(f"cannot read it ({exc.strerror or exc})", file=str(p)) from None
        yield from found
