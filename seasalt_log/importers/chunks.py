"""Large imports in parallel: logs cut into chunks of whole games, each checked (and turned
into store rows) by a worker process or a thread of the importing process.

:func:`split` cuts a log into :class:`Chunk` s at ``game_started`` lines only, so that every
game lies within one chunk and a chunk reads exactly like the same lines of the whole file.
:func:`check_chunk` (run in a worker process, or in a thread of this process: for a small
import, and beside the worker processes of a large one) reads, checks and projects the
chunk's games and leaves the rows of every store table in Arrow files (in this process:
Arrow tables in memory); the importer (:mod:`seasalt_log.importers.writer`) decides per
game what to store and loads the rows (those of several chunks per INSERT).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import BinaryIO, Generator, Iterable, Iterator, Sequence

import msgspec
from msgspec import Struct

from ..digits import is_digits
from .. import events as ev
from .. import workers
from ..errors import LogFormatError, SeasaltError
from ..identifiers import MAX_GAME_BYTES, MAX_LINE_BYTES
from ..log_lines import Lines
from ..engine.state import ENDED
from ..store.arrow_rows import RowSink, Rows, repeated, texts_array, use_system_allocation
from ..store.projections import TABLES, project
from ..store.event_table import event_columns
from .jsonl import CheckedGame, RawGame, check_game, read_games_data
from .outcomes import GameOutcome, failed_outcome, fingerprints

CHUNK_BYTES = 4 << 20          # a chunk is cut at the first game start after this many bytes
AHEAD = 6                      # chunks per worker process checked ahead of the importer
AHEAD_BYTES = 64 << 20         # ... and the bytes of log they may hold in all (a chunk can
                               # be as large as a game: MAX_GAME_BYTES)
#: an input expected to make at most this many chunks per job has one of its workers in
#: the importer's process (see :func:`check_chunks`)
LOCAL_CHUNKS = 4


class Cut(Struct):
    """Where a chunk's log was cut short: at ``line``, the game in progress took more than
    :data:`MAX_GAME_BYTES` (``kind`` "game": the rest of it was skipped), or the line was
    longer than :data:`MAX_LINE_BYTES` (``kind`` "line": the rest of the file was not read)."""

    line: int
    kind: str
    limit: int

    def error(self, source: str) -> LogFormatError:
        """The LOG-FORMAT error this cut reports."""
        if self.kind == "line":
            reason = (f"a line may hold at most {self.limit:,} bytes; line {self.line} is longer "
                      f"(the rest of {source} is not read)")
        else:
            reason = (f"a game may take at most {self.limit:,} bytes of log; this one takes more "
                      f"at line {self.line} (its lines up to the next game_started are skipped)")
        return LogFormatError(reason, file=source, line=self.line)


class Chunk(Struct):
    """Consecutive whole lines of one log, starting at a game start (or the log's start)."""

    source: str               # the log's name, for messages
    index: int                # the chunk's number within the import
    first_line: int           # the line number of the first line of ``data``
    data: bytes
    spilled: str | None = None    # the file holding ``data`` once it left memory
    cut: Cut | None = None    # the log was cut short after ``data``
    #: its load inserts the rows every table has staged (the last chunk's piece before its
    #: last one: :func:`taper`), not only the large tables'
    flush_staged: bool = False

    def lines(self, first: int, last: int) -> list[bytes]:
        """Lines ``first`` .. ``last`` (line numbers of the log) of this chunk."""
        data = self.data if self.spilled is None else Path(self.spilled).read_bytes()
        return data.split(b"\n")[first - self.first_line:last - self.first_line + 1]

    def spill(self, directory: str) -> None:
        """Move ``data`` to a file in ``directory`` (:meth:`lines` reads it from there)."""
        path = Path(directory) / f"chunk-{self.index}.jsonl"
        try:
            path.write_bytes(self.data)
        except OSError as exc:
            path.unlink(missing_ok=True)
            raise workers.scratch_failure(exc, directory) from None
        self.spilled, self.data = str(path), b""

    def forget(self) -> None:
        """Remove the spilled file, if any."""
        if self.spilled is not None:
            os.unlink(self.spilled)
            self.spilled = None


class _TypeOnly(Struct):
    type: str


_type_only = msgspec.json.Decoder(_TypeOnly).decode


def _starts_game(line: bytes | bytearray) -> bool:
    try:
        return _type_only(line).type == "game_started"
    except (msgspec.DecodeError, RecursionError):
        return False


def _game_starts(buf: bytes | bytearray, at: int, found: list[int], final: bool,
                 first: bool = False) -> int:
    """Append to ``found`` the offsets of the ``game_started`` lines of ``buf`` among its
    complete lines (``final``: the last line too) from offset ``at`` (a line start or a
    line's end; ``first``: only the first one); the offset to go on from once more bytes
    came."""
    while True:
        i = buf.find(b"game_started", at)
        if i < 0:
            return max(at, len(buf) - len(b"game_started"))
        begin = buf.rfind(b"\n", 0, i) + 1
        end = buf.find(b"\n", i)
        if end < 0:
            if not final:
                return begin                 # the line is not complete yet
            end = len(buf)
        if _starts_game(buf[begin:end]):
            found.append(begin)
            if first:
                return end
        at = end


def _start_after(buf: bytes | bytearray, after: int, final: bool) -> int | None:
    """The offset of the first ``game_started`` line of ``buf`` that starts after offset
    ``after``, among its complete lines (``final``: the last line too); None if none."""
    end = buf.find(b"\n", after)       # the end of the line holding ``after``
    found: list[int] = []
    if end >= 0:
        _game_starts(buf, end, found, final, first=True)
    return found[0] if found else None


def split(stream: BinaryIO, source: str, first_index: int = 0, size: int = CHUNK_BYTES,
          max_line: int = MAX_LINE_BYTES, max_game: int = MAX_GAME_BYTES) -> Iterator[Chunk]:
    """Cut a binary stream into chunks of about ``size`` bytes or more, each ending just
    before a ``game_started`` line (the last one at the end of the stream).

    Memory stays bounded whatever the stream holds: a line longer than ``max_line`` bytes
    ends the stream (found without reading the rest of the line: the last chunk says so in
    its ``cut``), and of a game longer than ``max_game`` bytes only the lines within that
    size are kept (its chunk's ``cut`` says where), the rest is read and dropped up to the
    next ``game_started`` line."""
    buf = bytearray()           # a chunk's bytes are copied once: out of it
    line = 1                    # the line number of buf[0]
    index = first_index
    checked = 0                 # every complete line before this offset is short enough
    scan = 0                    # game starts are looked for from here
    starts: list[int] = []      # offsets of the game starts found in buf (after 0)
    skipping = False            # dropping the rest of a game over max_game
    long_at: int | None = None  # the offset of a line over max_line
    eof = False

    def drop(n: int) -> bytes:
        """Take the first ``n`` bytes off ``buf``."""
        nonlocal line, checked, scan, starts, long_at
        piece = bytes(memoryview(buf)[:n])
        del buf[:n]             # cheap: a bytearray drops its head without moving the rest
        line += piece.count(b"\n")
        checked, scan = max(0, checked - n), max(0, scan - n)
        starts = [s - n for s in starts if s > n]
        if long_at is not None:
            long_at -= n
        return piece

    def chunk(n: int, cut: Cut | None = None) -> Chunk:
        nonlocal index
        first = line
        c = Chunk(source=source, index=index, first_line=first, data=drop(n), cut=cut)
        index += 1
        return c

    while True:
        block = stream.read(max(size, 1 << 16))
        buf += block
        eof = not block
        while checked + max_line < len(buf):
            j = buf.rfind(b"\n", checked, checked + max_line + 1)
            if j < 0:           # a line longer than max_line: the stream ends there
                long_at = checked
                break
            checked = j + 1
        # every game start is looked for only where a game may be too long (buf holds more
        # than one may take) or is skipped, or the stream ends early; else only the first
        # one past ``size``, where the chunk is cut (the rest of buf is not searched)
        every = skipping or long_at is not None or len(buf) > max_game
        if every:
            scan = _game_starts(buf, scan, starts, eof)
        while True:             # skip the rest of a game too long; find the next one
            limit = (long_at if long_at is not None
                     else len(buf) if eof else buf.rfind(b"\n") + 1)
            before = [s for s in starts if s < limit]
            if skipping:
                if not before:
                    drop(limit)
                    break
                drop(before[0])
                skipping = False
                continue
            bounds = [0, *before, limit]
            big = next((b for b, e in zip(bounds, bounds[1:]) if e - b > max_game), None)
            if big is None:
                break
            if big:
                yield chunk(big)
            end = buf.rfind(b"\n", 0, max_game) + 1
            yield chunk(end, Cut(line=line + buf.count(b"\n", 0, end), kind="game",
                                 limit=max_game))
            skipping = True
        if long_at is not None:
            yield chunk(long_at, Cut(line=line + buf.count(b"\n", 0, long_at), kind="line",
                                     limit=max_line))
            return
        while not skipping and len(buf) > size:
            cut = (next((s for s in starts if s > size), None) if every
                   else _start_after(buf, size, eof))
            if cut is None:
                break
            yield chunk(cut)
        if eof:
            if buf and not skipping:
                yield chunk(len(buf))
            return


# ---------------------------------------------------------------- the worker's side

class ChunkGame(Struct):
    """What a worker found for one game of its chunk."""

    game_id: str | None
    first_line: int
    last_line: int
    events: int = 0               # events (derived included) of a good game
    rows: bool = False            # its rows are in the chunk's files (a new game)
    failure: GameOutcome | None = None    # the failed outcome
    encoded: list[bytes] | None = None   # a game stored already, or met before in the
                                         # chunk: its encoded events, to compare
    fingerprints: bytes = b""     # validating: 8 bytes per event (see outcomes.fingerprints)


class ChunkResult(Struct):
    """A checked chunk: its games in order, and where their rows are."""

    index: int
    games: list[ChunkGame]
    files: dict[str, Rows]        # store table -> Arrow file of its rows, or (checked in
                                  # the importer's process) the rows themselves ({} if none)
    bytes: int


class WorkerSetup(Struct):
    """What every worker is told once: the games stored already, and where to write."""

    stored: frozenset[str]
    out_dir: str | None           # None: validating, no rows wanted
    in_memory: bool = False       # checked in the importer's process: the rows stay in memory


_setup: WorkerSetup | None = None


def _init(setup: WorkerSetup) -> None:
    global _setup
    _setup = setup
    if not setup.in_memory:     # a worker process: its own setting for good
        use_system_allocation()


def _close() -> None:
    """Forget the setup (after an import checked in this process)."""
    global _setup
    _setup = None


def check_chunk(chunk: Chunk) -> ChunkResult:
    """Read and check every game of ``chunk``; write the rows of its new games (neither
    stored already nor met before in the chunk) to Arrow files, one per table (checked in
    the importer's process: kept in memory as Arrow tables, one per table)."""
    assert _setup is not None, "_init first"
    stored, out_dir = _setup.stored, _setup.out_dir
    sink = (RowSink(("events", "commits", *TABLES),
                    directory=None if _setup.in_memory else out_dir, tag=str(chunk.index))
            if out_dir is not None else None)
    games: list[ChunkGame] = []
    here: set[str] = set()
    cut: LogFormatError | None = None
    alone: ChunkGame | None = None      # the cut, reported on its own after the chunk's last game
    cut_game = False                    # the chunk's last game is cut short
    if chunk.cut is not None:
        cut, line = chunk.cut.error(chunk.source), chunk.cut.line
        cut_game = chunk.cut.kind == "game"
        alone = ChunkGame(None, line, line, failure=failed_outcome(cut, chunk.source, line))
    for raw, is_last in _mark_last(read_games_data(chunk.data, chunk.source, chunk.first_line)):
        first = raw.first_line
        last = raw.lines[-1] if raw.lines else first
        try:
            if is_last and cut_game:
                alone = None        # the game is cut short: it fails, at its first error
                if raw.error is None:
                    raw.error = cut
            game = check_game(raw)
            if is_last and cut is not None and game.states[-1].phase != ENDED:
                alone = None        # a game in play when the file stopped being read
                raise cut.locate(game_id=game.game_id)
        except SeasaltError as exc:
            games.append(ChunkGame(getattr(exc, "game_id", None), first, last,
                                   failure=failed_outcome(exc, raw.source, first)))
            continue
        gid, n = game.game_id, len(game.events)
        # the log's lines are the events' JSON when they are canonical and the log left
        # out no derived event (the engine added none)
        texts = raw.texts if raw.texts is not None and len(raw.texts) == n else None
        if sink is None:            # validating (against a store, if any)
            games.append(ChunkGame(gid, first, last, n, fingerprints=fingerprints(game.events),
                                   encoded=_encoded(game, texts) if gid in stored else None))
        elif gid in stored or gid in here:
            games.append(ChunkGame(gid, first, last, n, encoded=_encoded(game, texts)))
        else:
            here.add(gid)       # numbered 0, 1, ... here; the store numbers them when loaded
            number = len(here) - 1
            h = add_events(sink, number, game, texts)
            sink.add({"commits": [(gid, number, n, h)],
                      **project(gid, game.events, game.states, reader_type_codes(texts))})
            games.append(ChunkGame(gid, first, last, n, rows=True))
    if alone is not None:
        games.append(alone)
    files = sink.close() if sink is not None else {}
    return ChunkResult(index=chunk.index, games=games, files=files, bytes=len(chunk.data))


def add_events(sink: RowSink, number: int, game: CheckedGame, texts: Sequence[bytes] | None
               ) -> int:
    """Buffer the events table's columns of ``game`` (numbered ``number`` in its chunk;
    ``texts``: its events' JSON, if known) in ``sink``, its id and JSON columns as Arrow
    arrays (the id's made in C: no string converted per event; the JSON's the log's
    :class:`~seasalt_log.log_lines.Lines`, when they are those texts, which the sink cuts
    out of the log's lines once for the games that follow each other); the chain link of
    the write that stores them."""
    columns, h = event_columns(game.game_id, number, game.events, game.states, texts=texts)
    columns[0] = repeated(game.game_id, len(columns[7]))
    if type(columns[7]) is not Lines:
        columns[7] = texts_array(columns[7])
    sink.add_columns("events", columns)
    return h


def reader_type_codes(texts: Sequence[bytes] | None) -> bytes | None:
    """The type codes of the events whose JSON is ``texts`` (a game's lines), if the log's
    reader made them (:meth:`Lines.codes`)."""
    codes = texts.codes() if type(texts) is Lines else None
    return codes[0] if codes is not None else None


def _encoded(game: CheckedGame, texts: Sequence[bytes] | None) -> list[bytes]:
    """The JSON of each event of ``game``: ``texts`` if known."""
    return list(texts) if texts else ev.encode_each(game.events)


def _mark_last(items: Iterable[RawGame]) -> Iterator[tuple[RawGame, bool]]:
    """Each item with whether it is the last."""
    it = iter(items)
    prev = next(it, None)
    if prev is None:
        return
    for item in it:
        yield prev, False
        prev = item
    yield prev, True



# ---------------------------------------------------------------- the importer's side

_SCRATCH = "seasalt-import-"


@contextmanager
def scratch_dir(wanted: bool = True) -> Iterator[str | None]:
    """A temporary directory for the workers' files (None if not ``wanted``), removed at
    the end. Its name holds this process's id: the directories of imports killed before
    they could remove theirs (their process gone) are removed first."""
    if not wanted:
        yield None
        return
    base = Path(tempfile.gettempdir())
    for old in base.glob(_SCRATCH + "*-*"):
        pid = old.name[len(_SCRATCH):].split("-", 1)[0]
        if is_digits(pid) and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    try:
        path = tempfile.mkdtemp(prefix=f"{_SCRATCH}{os.getpid()}-")
    except OSError as exc:
        raise workers.scratch_failure(exc, str(base)) from None
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # not ours to signal: alive, leave it be
        return True
    return True


def log_chunks(files: Iterable[str | Path], size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """The chunks of every log (``-``: standard input), numbered across them."""
    index = 0
    for f in files:
        if str(f) == "-":
            chunks = split(sys.stdin.buffer, "-", index, size)
        else:
            chunks = _split_file(f, index, size)
        for c in chunks:
            yield c
            index = c.index + 1


def _split_file(path: str | Path, index: int, size: int) -> Iterator[Chunk]:
    with open(path, "rb") as fh:
        yield from split(fh, str(path), index, size)


def check_chunks(chunks: Iterable[Chunk], setup: WorkerSetup, jobs: int,
                 parallel_from: int = 3, in_thread: bool = True, expect: int = 0
                 ) -> Generator[tuple[Chunk, ChunkResult], None, None]:
    """Each chunk with its :func:`check_chunk` result, in order: checked by ``jobs`` worker
    processes (their rows handed over in Arrow files) once there are ``parallel_from``
    chunks (starting them costs more than a small import), else in this process.

    An input expected to make at most :data:`LOCAL_CHUNKS` chunks per job has ``jobs`` - 1
    worker processes and a thread of this process (its rows kept in memory), which checks
    the first chunk while the processes start and then, as they do, the next chunk each
    time it is free (see :class:`workers.Pool`): an interpreter fewer to start, and fewer
    files, for an import of a second or two (while this process loads a chunk, DuckDB lets
    its thread check). A larger one keeps its ``jobs`` processes: this process loads every
    chunk, which leaves it no room for a full share of the checks. At most :data:`AHEAD`
    chunks per worker, and :data:`AHEAD_BYTES` of log in all, wait in memory: enough to keep
    the workers busy while the importer loads a batch.

    Checked in this process alone for an import, the chunks are checked by a thread, one
    chunk ahead of the importer: DuckDB inserts the rows of a chunk while the next one is
    checked (unless not ``in_thread``: chunks read from a stream that may wait for its
    input, such as standard input, where a stopped import must not wait for the thread's
    read; beside worker processes the thread never reads the stream).

    ``expect``: about how many chunks the input makes (its size says so): from
    ``parallel_from`` on, the workers start before the first chunks are cut."""
    chunks = iter(chunks)
    early = jobs > 1 and expect >= parallel_from     # large, its size says: start at once
    local = 0 < expect <= LOCAL_CHUNKS * jobs
    with ExitStack() as stack:
        pool = stack.enter_context(_pool(jobs, setup, local)) if early else None
        # (cut while the workers start; checked in this process alone, the checking thread
        # cuts every chunk itself: its first check starts one chunk sooner)
        head = list(islice(chunks, parallel_from)) if jobs > 1 else []
        if pool is None and jobs > 1 and len(head) >= parallel_from:
            pool = stack.enter_context(_pool(jobs, setup, local))
        if pool is not None:
            yield from pool.map(check_chunk, _tapered(chain(head, chunks)), weight=_size,
                                budget=AHEAD_BYTES)
            return
    if setup.out_dir is not None and in_thread:
        checked = workers.ahead_in_thread(_in_process(_tapered(chain(head, chunks)), setup),
                                          ahead=1)
    else:
        checked = _in_process(chain(head, chunks), setup)
    yield from checked


def _pool(jobs: int, setup: WorkerSetup, local: bool) -> workers.Pool:
    """``jobs`` worker processes, or (``local``) ``jobs`` - 1 and a thread of this process
    (its rows in memory)."""
    return workers.Pool(jobs, _init, (setup,), ahead=AHEAD,
                        local=partial(_in_memory, setup) if local else None)


@contextmanager
def _in_memory(setup: WorkerSetup) -> Iterator[None]:
    """:func:`check_chunk` set up in this process: its rows are handed over in memory."""
    _init(msgspec.structs.replace(setup, in_memory=True))
    try:
        yield
    finally:
        _close()


def _in_process(chunks: Iterable[Chunk], setup: WorkerSetup) -> Iterator[tuple[Chunk, ChunkResult]]:
    """:func:`check_chunks` in this process: the rows are handed over in memory."""
    with _in_memory(setup):
        for c in chunks:
            try:
                result = check_chunk(c)
            except OSError as exc:      # its files, as in a worker: TMPDIR full
                raise workers.scratch_failure(exc) from None
            yield c, result


#: the last chunk of an import is cut into pieces halving down to about this
#: many bytes (see :func:`_tapered`)
TAIL_BYTES = CHUNK_BYTES // 8


def _tapered(chunks: Iterable[Chunk], smallest: int | None = None) -> Iterator[Chunk]:
    """``chunks``, the last one cut into pieces of whole games (:func:`taper`).

    A chunk is checked while the importer loads the one before, but nothing overlaps the
    load of the last one (nor the commit after it): the smaller the last chunk, the
    shorter that tail; and beside worker processes, its pieces go to the workers free
    first, which finish together. The pieces number on from the last chunk's
    ``index`` (no chunk follows it)."""
    it = iter(chunks)
    prev = next(it, None)
    if prev is None:
        return
    for c in it:
        yield prev
        prev = c
    yield from taper(prev, TAIL_BYTES if smallest is None else smallest)


def taper(chunk: Chunk, smallest: int) -> list[Chunk]:
    """``chunk`` cut at ``game_started`` lines into pieces that each hold about half of
    what is left (up to the first game start past its half), until what is left is at most
    ``smallest`` bytes or has no game start past its half: the same lines, games and cut
    (on the last piece), numbered from ``chunk.index``; the piece before the last one
    :attr:`~Chunk.flush_staged`. A spilled chunk is not cut."""
    data = chunk.data
    if len(data) <= smallest or chunk.spilled is not None:
        return [chunk]
    pieces: list[Chunk] = []
    begin, line = 0, chunk.first_line
    while len(data) - begin > smallest:
        at = _start_after(data, begin + (len(data) - begin) // 2 - 1, True)
        if at is None:
            break
        piece = data[begin:at]
        pieces.append(Chunk(source=chunk.source, index=chunk.index + len(pieces),
                            first_line=line, data=piece))
        line += piece.count(b"\n")
        begin = at
    if not pieces:
        return [chunk]
    # the small tables' rows go in with the piece before the last, while the last is
    # checked: once, not at each piece (an INSERT per table each time), nor after the last
    pieces[-1] = msgspec.structs.replace(pieces[-1], flush_staged=True)
    pieces.append(Chunk(source=chunk.source, index=chunk.index + len(pieces), first_line=line,
                        data=data[begin:], cut=chunk.cut))
    return pieces


def _size(chunk: Chunk) -> int:
    return len(chunk.data)
