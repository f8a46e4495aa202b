"""Large imports in parallel: logs cut into chunks of whole games, each checked (and turned
into store rows) by a worker process.

:func:`split` cuts a log into :class:`Chunk` s at ``game_started`` lines only, so that every
game lies within one chunk and a chunk reads exactly like the same lines of the whole file.
:func:`check_chunk` (run in a worker, or in this process for a small import) reads, checks
and projects the chunk's games and leaves the rows of every store table in Arrow files;
the importer (:mod:`seasalt_log.importers.writer`) decides per game what to store and loads
the files (the rows of several chunks per INSERT).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from itertools import chain, islice
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

import msgspec
from msgspec import Struct

from ..digits import is_digits
from .. import events as ev
from .. import workers
from ..errors import SeasaltError
from .jsonl import check_game, read_games

CHUNK_BYTES = 4 << 20          # a chunk is cut at the first game start after this many bytes
AHEAD = 6                      # chunks per worker process checked ahead of the importer


class Chunk(Struct):
    """Consecutive whole lines of one log, starting at a game start (or the log's start)."""

    source: str               # the log's name, for messages
    index: int                # the chunk's number within the import
    first_line: int           # the line number of the first line of ``data``
    data: bytes
    spilled: str | None = None    # the file holding ``data`` once it left memory

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


def _starts_game(line: bytes) -> bool:
    try:
        return _type_only(line).type == "game_started"
    except (msgspec.DecodeError, RecursionError):
        return False


def _cut(buf: bytes, start: int) -> int | None:
    """The offset of the first ``game_started`` line of ``buf`` that begins after offset
    ``start`` (None: none among its complete lines)."""
    at = start
    while True:
        i = buf.find(b"game_started", at)
        if i < 0:
            return None
        begin = buf.rfind(b"\n", 0, i) + 1
        end = buf.find(b"\n", i)
        if end < 0:
            return None                      # the line is not complete yet
        if begin > start and _starts_game(buf[begin:end]):
            return begin
        at = end


def split(stream: BinaryIO, source: str, first_index: int = 0,
          size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """Cut a binary stream into chunks of about ``size`` bytes or more, each ending just
    before a ``game_started`` line (the last one at the end of the stream)."""
    buf = bytearray()           # a chunk's bytes are copied once: out of it
    line = 1
    index = first_index
    while True:
        block = stream.read(max(size, 1 << 16))
        buf += block
        while len(buf) > size and (cut := _cut(buf, size)) is not None:
            piece = bytes(memoryview(buf)[:cut])
            del buf[:cut]       # cheap: a bytearray drops its head without moving the rest
            yield Chunk(source=source, index=index, first_line=line, data=piece)
            index += 1
            line += piece.count(b"\n")
        if not block:
            if buf:
                yield Chunk(source=source, index=index, first_line=line, data=bytes(buf))
            return


# ---------------------------------------------------------------- the worker's side

class ChunkGame(Struct):
    """What a worker found for one game of its chunk."""

    game_id: str | None
    first_line: int
    last_line: int
    events: int = 0               # events (derived included) of a good game
    rows: bool = False            # its rows are in the chunk's files (a new game)
    failure: object = None        # the failed outcome (seasalt_log.importers.writer.GameOutcome)
    encoded: list[bytes] | None = None   # a game stored already, or met before in the
                                         # chunk: its encoded events, to compare
    fingerprints: bytes = b""     # validating: 8 bytes per event (see writer.fingerprints)


class ChunkResult(Struct):
    """A checked chunk: its games in order, and where their rows are."""

    index: int
    games: list[ChunkGame]
    files: dict[str, str]         # store table -> Arrow file of its rows ({} if none)
    bytes: int


class WorkerSetup(Struct):
    """What every worker is told once: the games stored already, and where to write."""

    stored: frozenset[str]
    out_dir: str | None           # None: validating, no rows wanted


_setup: WorkerSetup | None = None


def _init(setup: WorkerSetup) -> None:
    global _setup
    _setup = setup


def _close() -> None:
    """Forget the setup (after an import checked in this process)."""
    global _setup
    _setup = None


def check_chunk(chunk: Chunk) -> ChunkResult:
    """Read and check every game of ``chunk``; write the rows of its new games (neither
    stored already nor met before in the chunk) to Arrow files, one per table."""
    from ..store.arrow_rows import RowSink
    from ..store.projections import TABLES
    from ..store.store import plan_write
    from .writer import failed_outcome, fingerprints
    assert _setup is not None, "_init first"
    stored, out_dir = _setup.stored, _setup.out_dir
    sink = (RowSink(("events", "commits", *TABLES), directory=out_dir, tag=str(chunk.index))
            if out_dir is not None else None)
    games: list[ChunkGame] = []
    here: set[str] = set()
    for raw in read_games(chunk.data.split(b"\n"), chunk.source, chunk.first_line):
        first = raw.first_line
        last = raw.lines[-1] if raw.lines else first
        try:
            game = check_game(raw)
        except SeasaltError as exc:
            games.append(ChunkGame(getattr(exc, "game_id", None), first, last,
                                   failure=failed_outcome(exc, raw.source, first)))
            continue
        gid, n = game.game_id, len(game.events)
        if out_dir is None:         # validating (against a store, if any)
            games.append(ChunkGame(gid, first, last, n, fingerprints=fingerprints(game.events),
                                   encoded=[ev.encode(e) for e in game.events]
                                   if gid in stored else None))
        elif gid in stored or gid in here:
            games.append(ChunkGame(gid, first, last, n,
                                   encoded=[ev.encode(e) for e in game.events]))
        else:
            here.add(gid)       # numbered 0, 1, ... here; the store numbers them when loaded
            w = plan_write(gid, len(here) - 1, game.events, game.states)
            sink.add({"events": w.event_rows, "commits": [w.commit_row], **w.projection_rows})
            games.append(ChunkGame(gid, first, last, n, rows=True))
    files = sink.close() if sink is not None else {}
    return ChunkResult(index=chunk.index, games=games, files=files, bytes=len(chunk.data))



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
                 parallel_from: int = 3) -> Iterator[tuple[Chunk, ChunkResult]]:
    """Each chunk with its :func:`check_chunk` result, in order: checked by ``jobs`` worker
    processes once there are ``parallel_from`` chunks (starting them costs more than a
    small import), else in this process. At most :data:`AHEAD` chunks per worker wait in
    memory: enough to keep the workers busy while the importer loads a batch."""
    chunks = iter(chunks)
    head = list(islice(chunks, parallel_from))
    if jobs <= 1 or len(head) < parallel_from:
        _init(setup)
        try:
            for c in chain(head, chunks):
                try:
                    result = check_chunk(c)
                except OSError as exc:      # its files, as in a worker: TMPDIR full
                    raise workers.scratch_failure(exc) from None
                yield c, result
        finally:
            _close()
        return
    with workers.Pool(jobs, _init, (setup,), ahead=AHEAD) as pool:
        yield from pool.map(check_chunk, chain(head, chunks))
