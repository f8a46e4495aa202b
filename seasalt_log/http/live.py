"""The service's hold on the store: a writer of two threads with group commit, one reader
thread, a cache of the games in play, and the wake-ups of followers.

The service process is the store's only writer for its whole life. Appends wait in a
queue; the planner thread takes all that are waiting, checks each against the cached state
of its game (the next one of a game is checked on top of the one before) and prepares the
rows to write; the committer thread, the only one that writes, stores every accepted one
in **one** transaction (group commit), so many clients share the cost of a commit. Each
request is answered only after that commit. A refused request is left out of the batch and
changes nothing.

The two threads work as a pipeline: the planner checks the next batch while DuckDB commits
the last one (DuckDB does not hold Python's lock while it works), on top of the games as
that commit leaves them; it hands the batch over once that commit is done, and checks it
again if that commit failed. Neither waits for the event loop: the planner keeps its own
map of the games it writes, and the committer hands each committed batch to the loop, which
publishes the new states (for reads and followers) and answers.

Reads that need SQL (game lists, summaries, statistics) run on their own thread with a
second DuckDB connection of the same database, so they never wait for a write; event
streams of cached games are served from memory.

Should either writer thread end by an exception, or the event loop fail to answer a
committed batch (a bug: the calls that may fail for a request's sake are guarded, and
their errors answer that request), the writer stops for
good: the batches already handed to the committer are still stored and answered, every
other append waiting and every later one is refused with :class:`WriterFailed` (503), the
error is logged once with its traceback, reads go on, and :meth:`LiveStore.close` returns.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import queue
import threading
import time
from collections import OrderedDict
from contextlib import ExitStack
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from .. import events as ev
from .. import queries
from ..engine.state import ENDED, State
from ..errors import GameExistsError, SeasaltError
from ..service import (AppendResult, GameCache, PlannedAppend, PreparedWrite, plan_append,
                       plan_start, prepare_write, store_prepared)
from ..analytics.limits import limits_from
from ..store import Store
from ..store.backup import copy_while_quiet
from ..process_settings import SharedSetting
from ..workers import quick_switches

#: appends stored together in one transaction at most
MAX_BATCH = 512
#: games kept in memory (least recently written dropped first; reloaded when needed, at
#: the cost of re-reading, re-folding and re-projecting the whole game): about 0.2 MB each.
#: Keep it above the number of games recorded at the same time, or every append reloads.
MAX_CACHED_GAMES = 2048
#: the cyclic garbage collector's first threshold while a service runs (Python's default is
#: 700): every request and append allocates many short-lived tracked objects, and with the
#: default the collector took about 0.1 ms of CPU per one-event append, a sixth of the
#: service's (bench/RESULTS.md, "HTTP service"); the two older generations keep their ratios
GC_THRESHOLD = 20_000
#: how long a thread may keep Python's lock while another waits for it, while a service
#: runs (Python's default is 5 ms): the committer lets the lock go for each DuckDB statement
#: of a commit and must wait to take it back whenever the event loop or the planner is
#: running Python. With 256 clients, one event per request, 0.5 ms made 1-16 % more appends
#: per second than 5 ms in four pairs of runs (bench/RESULTS.md, "HTTP service")
SWITCH_INTERVAL = 0.0005

#: the garbage collector's thresholds, which overlapping services share (see
#: :mod:`..process_settings`)
_GC_THRESHOLD: SharedSetting[tuple[int, ...]] = SharedSetting(
    gc.get_threshold, lambda thresholds: gc.set_threshold(*thresholds))

#: the server's log (uvicorn's), where a writer thread's failure is written
log = logging.getLogger("uvicorn.error")


class ServiceClosed(SeasaltError):
    """The service is shutting down and takes no more writes."""

    def __str__(self) -> str:
        return self.args[0] if self.args else "the service is shutting down"


class WriterFailed(ServiceClosed):
    """The store's writer stopped on an internal error: no append is stored until the
    service is restarted (the error is in the service's log)."""

    def __str__(self) -> str:
        return ("the store's writer stopped on an internal error: no more appends are "
                "stored until the service restarts")


class _Job:
    __slots__ = ("game_id", "start", "events", "expected", "future")

    def __init__(self, game_id: str | None, start: ev.GameStarted | None,
                 events: Sequence[ev.Event], expected: int | None, future: asyncio.Future):
        self.game_id, self.start, self.events = game_id, start, events
        self.expected, self.future = expected, future


class _Batch:
    """Jobs checked together and committed in one transaction."""

    __slots__ = ("jobs", "results", "caches", "planned", "write", "forget", "done", "seconds")

    def __init__(self, jobs: list[_Job], results: list[Any], caches: dict[str, GameCache],
                 planned: list[int], write: PreparedWrite | None):
        self.jobs, self.results, self.caches = jobs, results, caches
        #: the jobs to store (indexes) and their rows; results of the others are final
        self.planned, self.write = planned, write
        self.forget: set[str] = set()       # the games of a commit that failed
        self.seconds: float | None = None   # how long its commit took, once done
        self.done = threading.Event()       # set once committed (or failed)


class LiveStore:
    """A store opened for the life of the service (see the module's docstring).

    Create it, ``await start()`` inside the event loop, ``await close()`` at the end.
    """

    def __init__(self, path, *, max_batch: int = MAX_BATCH,
                 max_cached_games: int = MAX_CACHED_GAMES):
        self.path = path
        self.max_batch = max_batch
        self.max_cached_games = max_cached_games
        self.store: Store | None = None
        self.reader: Store | None = None
        self._write_pool = ThreadPoolExecutor(1, thread_name_prefix="seasalt-writer")
        self._commit_pool = ThreadPoolExecutor(1, thread_name_prefix="seasalt-committer")
        self._read_pool = ThreadPoolExecutor(1, thread_name_prefix="seasalt-reader")
        #: the games as last published (read on the event loop)
        self._caches: OrderedDict[str, GameCache] = OrderedDict()
        #: the games as committed, or about to be by the batch in flight (the planner's own)
        self._written: OrderedDict[str, GameCache] = OrderedDict()
        self._waiters: dict[str, asyncio.Event] = {}
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._commits: queue.SimpleQueue[_Batch | None] = queue.SimpleQueue()
        #: the planner's connection for the games it must read (never writes)
        self._plan_store: Store | None = None
        self._commit_seconds = 0.0          # how long the last commit took
        #: held by the committer while it commits a batch, and by a backup while
        #: it copies the file: no write lands in the middle of a copy
        self._quiet = threading.Lock()
        #: held by the planner while it reads the store, and by a backup (a checkpoint
        #: fails while another connection is in a transaction)
        self._reading = threading.Lock()
        #: a descriptor of the store file that backups read, open until the store closes
        #: (closing any descriptor of the file drops the process's lock on the store)
        self._store_fd: int | None = None
        self._writer: asyncio.Future | None = None      # the planner thread's loop, running
        self._committer: asyncio.Future | None = None   # the committer thread's loop
        self._watch: asyncio.Future | None = None       # ends once both threads have ended
        #: the futures of the appends queued and not answered yet (on the loop)
        self._pending: set[asyncio.Future] = set()
        #: the error a writer thread ended by (None: they run, or ended at the stop mark)
        self._failure: BaseException | None = None
        self._failing = threading.Lock()
        self._committing: _Batch | None = None          # the batch the committer is storing
        #: games whose last commit may or may not have been stored (the committer failed)
        self._unsure: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closing: asyncio.Event | None = None
        self.batches = 0            # transactions committed (for the curious and the bench)
        self.appends = 0            # requests stored
        self.writer_seconds = 0.0   # time spent checking and writing batches (both threads)
        #: the process's settings held from start to stop: the collector's threshold raised,
        #: the quick switches
        self._settings: ExitStack | None = None

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Open the store (on the writer thread) and start the writer; a store started
        already (and not closed since) raises RuntimeError, leaving it as it was."""
        if self._settings is not None:
            raise RuntimeError(f"the live store {self.path} is started already: close it first")
        loop = self._loop = asyncio.get_running_loop()
        self.store = await loop.run_in_executor(self._write_pool, Store.open, self.path)
        self._settings = ExitStack()
        self._settings.enter_context(_GC_THRESHOLD.held(
            lambda before: (max(before[0], GC_THRESHOLD), *before[1:])))
        self._settings.enter_context(quick_switches(SWITCH_INTERVAL))
        memory = limits_from().memory_limit     # DuckDB's limit is the whole database's
        if memory is not None:
            self.store.con.execute(f"SET memory_limit = '{memory}'")   # parse_memory checked it
        # no SQL run by this service may touch a file (POST /query): off for the whole
        # database, which the service's own writes do not need
        await loop.run_in_executor(self._write_pool, self.store.con.execute,
                                   "SET enable_external_access = false")
        con = self.store.con.cursor()      # a second connection to the same database
        self.reader = Store(con, self.store.path, read_only=False)
        self._plan_store = Store(self.store.con.cursor(), self.store.path, read_only=False)
        self.closing = asyncio.Event()
        self._committer = loop.run_in_executor(self._commit_pool, self._guarded,
                                               self._commit_loop, True)
        self._writer = loop.run_in_executor(self._write_pool, self._guarded, self._write_loop,
                                            False)
        self._watch = asyncio.ensure_future(self._after_writer(self._writer, self._committer))

    def stop_followers(self) -> None:
        """Ask every follower stream to end (the server is stopping); writes go on."""
        if self.closing is not None:
            self.closing.set()
        for w in self._waiters.values():
            w.set()
        self._waiters.clear()

    async def close(self) -> None:
        """Finish the appends already queued, then close the store."""
        self.stop_followers()
        if self._writer is not None:
            writer, self._writer = self._writer, None
            self._jobs.put(None)                # the planner stops when it reaches this
            await writer                        # and then stops the committer
            if self._committer is not None:
                committer, self._committer = self._committer, None
                await committer
            if self._watch is not None:
                watch, self._watch = self._watch, None
                await watch
            await asyncio.sleep(0)              # let the last batches be published
        loop = asyncio.get_running_loop()
        if self.reader is not None:
            await loop.run_in_executor(self._read_pool, self.reader.con.close)
            self.reader = None
        if self._plan_store is not None:
            await loop.run_in_executor(self._write_pool, self._plan_store.con.close)
            self._plan_store = None
        if self.store is not None:
            await loop.run_in_executor(self._write_pool, self.store.close)
            self.store = None
        if self._store_fd is not None:
            os.close(self._store_fd)
            self._store_fd = None
        self._write_pool.shutdown(wait=True)
        self._commit_pool.shutdown(wait=True)
        self._read_pool.shutdown(wait=True)
        if self._settings is not None:
            self._settings.close()
            self._settings = None

    # ------------------------------------------------------------ writes

    async def start_game(self, start: ev.GameStarted) -> AppendResult:
        """Store a new game from its ``game_started``; raises GameExistsError if a game
        of that id exists."""
        return await self._submit(_Job(None, start, (start,), 0, self._future()))

    async def append(self, game_id: str, events: Sequence[ev.Event],
                     expected_seq: int | None) -> AppendResult:
        """Append events to a stored game (``expected_seq`` None: at its current end)."""
        return await self._submit(_Job(game_id, None, events, expected_seq, self._future()))

    @property
    def writer_stopped(self) -> bool:
        """True once a writer thread has died: no append will be stored until a restart."""
        return self._failure is not None

    def _future(self) -> asyncio.Future:
        return asyncio.get_running_loop().create_future()

    async def _submit(self, job: _Job) -> AppendResult:
        if self._writer is None:
            raise ServiceClosed()
        if self._failure is not None:
            raise WriterFailed()
        self._pending.add(job.future)
        self._jobs.put(job)
        # shield: a client that hangs up does not cancel an append already queued
        return await asyncio.shield(job.future)

    def _write_loop(self) -> None:
        """The planner thread: take every job waiting, check them and prepare their rows,
        hand the batch to the committer; until the stop mark. Jobs never reach the queue
        after it (``_submit`` refuses them once ``close`` has begun).

        A batch is planned while the one before it is being committed (DuckDB does not
        hold Python's lock while it writes, so the two overlap), on top of that one's
        caches; it is handed over once that commit is done, and planned again if that
        commit failed."""
        jobs, commits = self._jobs, self._commits
        stopping = False
        inflight: _Batch | None = None
        plan_seconds = 0.0              # how long the last batch took to plan
        while not stopping:
            if inflight is not None and inflight.seconds is None:
                # take the next batch late enough to finish planning it as the commit in
                # flight ends: the appends answered meanwhile (by the commit before) join
                # it instead of waiting for the one after (larger commits, shorter waits)
                inflight.done.wait(max(0.0, self._commit_seconds - 1.5 * plan_seconds))
            job = jobs.get()
            if job is None or self._failure is not None:
                break
            batch = [job]
            while len(batch) < self.max_batch:
                try:
                    job = jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                batch.append(job)
            t0 = time.perf_counter()
            planned = self._plan(batch)
            plan_seconds = time.perf_counter() - t0
            self.writer_seconds += plan_seconds
            if inflight is not None:
                inflight.done.wait()
                if self._failure is not None:   # the committer failed: it stores no more
                    break
                if inflight.forget:     # not stored: this batch was planned on it
                    for gid in inflight.forget:
                        self._written.pop(gid, None)
                    t0 = time.perf_counter()
                    planned = self._plan(batch)
                    self.writer_seconds += time.perf_counter() - t0
            self._keep(planned.caches)
            commits.put(planned)
            inflight = planned
        commits.put(None)

    def _plan(self, batch: list[_Job]) -> "_Batch":
        """On the planner thread: check every job against the games as they will be once
        the batch in flight is committed, and prepare the accepted ones' rows."""
        try:
            return self._check(batch)
        except BaseException as exc:           # pragma: no cover - _check catches
            gids = {j.game_id for j in batch if j.game_id is not None}
            for gid in gids:
                self._written.pop(gid, None)
            return _Batch(batch, [exc] * len(batch), {}, [], None)

    def _check(self, batch: list[_Job]) -> "_Batch":
        store = self._plan_store
        assert store is not None
        written = self._written
        results: list[Any] = [None] * len(batch)
        tentative: dict[str, GameCache] = {}
        planned: list[tuple[int, PlannedAppend]] = []
        for i, job in enumerate(batch):
            try:
                if job.start is not None:
                    with self._reading:
                        p = plan_start(store, job.start)
                        gid = p.cache.game_id
                        c = tentative.get(gid) or written.get(gid)
                        if c is not None or store.exists(gid):
                            found = c.seq if c is not None else store.head(gid)[0]
                            raise GameExistsError(gid, found)
                else:
                    assert job.game_id is not None, "a job that starts no game names its game"
                    gid = job.game_id
                    c = tentative.get(gid) or written.get(gid)
                    if c is None:
                        with self._reading:
                            c = GameCache.load(store, gid)
                        tentative[gid] = c
                    p = plan_append(c, job.events, job.expected)
            except Exception as exc:               # refused: changes nothing
                results[i] = exc
                continue
            if not p.result.appended:              # only derived events already stored
                results[i] = p.result
                continue
            tentative[gid] = p.cache
            planned.append((i, p))
        for i, p in planned:
            results[i] = p.result
        write = prepare_write([p for _, p in planned]) if planned else None
        return _Batch(batch, results, tentative, [i for i, _ in planned], write)

    def _keep(self, caches: dict[str, GameCache]) -> None:
        """On the planner thread: the games of the batch about to be committed become the
        base of the next one (the batch before it is committed, so only games of this
        batch must stay)."""
        written = self._written
        for gid, c in caches.items():
            written[gid] = c
            written.move_to_end(gid)
        while len(written) > self.max_cached_games and next(iter(written)) not in caches:
            written.popitem(last=False)

    def _commit_loop(self) -> None:
        """The committer thread: store each planned batch in one transaction, hand the
        outcome to the event loop; until the stop mark."""
        store, commits, loop = self.store, self._commits, self._loop
        assert store is not None and loop is not None
        while (b := commits.get()) is not None:
            self._committing = b
            t0 = time.perf_counter()
            caches = b.caches
            if b.write is not None:
                try:
                    with self._quiet:
                        store_prepared(store, b.write)
                except Exception as exc:
                    b.forget = {b.results[i].game_id for i in b.planned}
                    for i in b.planned:
                        b.results[i] = exc
                    caches = {g: c for g, c in caches.items() if g not in b.forget}
            b.seconds = time.perf_counter() - t0
            self.writer_seconds += b.seconds
            self._commit_seconds = b.seconds if b.write is not None else self._commit_seconds
            b.done.set()
            loop.call_soon_threadsafe(self._publish, b.jobs, b.results, caches, b.forget)
            self._committing = None

    def _guarded(self, body: Callable[[], None], committer: bool) -> None:
        """A writer thread: ``body`` (its loop) until the stop mark; should an exception
        end it, the whole writer stops (:meth:`_stop_writer`)."""
        try:
            body()
        except BaseException as exc:
            self._stop_writer(exc, committer)

    def _stop_writer(self, exc: BaseException, committer: bool) -> None:
        """On a writer thread that ``exc`` ended (or on the loop, a batch it could not
        answer): log it (the first such error only), and
        stop the other thread. The committer stores the batches already handed to it; the
        planner, waiting for a commit or for appends, stops at once. The event loop then
        refuses the appends left (:meth:`_after_writer`)."""
        with self._failing:
            first = self._failure is None
            if first:
                self._failure = exc
        if first:
            log.error("the store's writer stopped on an internal error; appends are refused "
                      "until the service restarts", exc_info=exc)
        self._commits.put(None)                 # the committer's stop mark
        self._jobs.put(None)                    # the planner's, should it wait for a job
        if committer:
            b, self._committing = self._committing, None
            if b is not None:                   # stored or not: its games are read again
                self._unsure.update(b.caches)
                b.done.set()                    # the planner may wait for it

    async def _after_writer(self, *threads: asyncio.Future) -> None:
        """On the loop, once both writer threads have ended (their last batches
        published): if one failed, refuse every append still waiting (:class:`WriterFailed`)
        and drop the cached games whose last commit is in doubt (reads take the store's)."""
        await asyncio.wait(threads)
        if self._failure is None:
            return
        for gid in self._unsure:
            self._caches.pop(gid, None)
        pending, self._pending = self._pending, set()
        for future in pending:
            if not future.done():
                future.set_exception(WriterFailed())

    def _publish(self, batch: list[_Job], results: list, caches: dict[str, GameCache],
                 forget: set[str]) -> None:
        """On the loop: :meth:`_answer` a committed batch; should that fail (a bug), the
        writer stops as if one of its threads had died, and the batch's appends not yet
        answered are refused with the others left (:meth:`_after_writer`)."""
        try:
            self._answer(batch, results, caches, forget)
        except BaseException as exc:
            self._unsure.update(caches)
            self._unsure.update(forget)
            self._stop_writer(exc, committer=False)

    def _answer(self, batch: list[_Job], results: list, caches: dict[str, GameCache],
                forget: set[str]) -> None:
        """On the loop: make the committed games visible, answer, wake the followers."""
        for gid in forget:
            self._caches.pop(gid, None)
        for gid, c in caches.items():
            self._caches[gid] = c
            self._caches.move_to_end(gid)
        while len(self._caches) > self.max_cached_games:
            self._caches.popitem(last=False)
        woken = set()
        stored = 0
        pending = self._pending
        for job, res in zip(batch, results):
            pending.discard(job.future)
            if isinstance(res, BaseException):
                if not job.future.done():
                    job.future.set_exception(res)
                continue
            stored += 1
            woken.add(res.game_id)
            if not job.future.done():
                job.future.set_result(res)
        if stored:
            self.batches += 1
            self.appends += stored
        for gid in woken:
            w = self._waiters.pop(gid, None)
            if w is not None:
                w.set()

    # ------------------------------------------------------------ backups

    async def backup_copy(self) -> tuple[Path, int]:
        """A consistent copy of the store in a temporary file beside it (the caller removes
        it) and its number of events: every append answered so far is in it. Writes wait
        while the file is copied; reads do not."""
        store = self.store
        if store is None or self._writer is None:
            raise ServiceClosed("the service is not running")
        path = Path(store.path)

        def copy() -> tuple[Path, int]:
            with self._quiet, self._reading:
                if self._plan_store is not None:
                    # the planner's last read may hold its transaction open (a result not
                    # read to its end); a checkpoint refuses to run beside it
                    self._plan_store.con.execute("SELECT 1").fetchall()
                if self._store_fd is None:      # kept open: see copy_while_quiet
                    self._store_fd = os.open(path, os.O_RDONLY)
                cur = store.con.cursor()
                try:
                    return copy_while_quiet(cur, path, self._store_fd, path.resolve().parent)
                finally:
                    cur.close()
        return await asyncio.get_running_loop().run_in_executor(None, copy)

    # ------------------------------------------------------------ reads

    async def read(self, fn: Callable[[Store], Any]) -> Any:
        """Run ``fn(reader_store)`` on the reader thread (SQL reads), in one read
        transaction: all its queries see the same committed state."""
        reader = self.reader
        if reader is None:
            raise ServiceClosed("the service is not running")
        return await asyncio.get_running_loop().run_in_executor(
            self._read_pool, _in_snapshot, fn, reader)

    def cached(self, game_id: str) -> GameCache | None:
        """The cached game, as last committed, or None (not cached: read the store)."""
        return self._caches.get(game_id)

    async def events(self, game_id: str) -> list[ev.Event]:
        """Every stored event of a game; raises UnknownGameError."""
        c = self._caches.get(game_id)
        if c is not None:
            return c.events
        return await self.read(lambda s: s.read_events(game_id))

    async def tail(self, game_id: str, after: int) -> tuple[list[bytes], int, bool]:
        """(JSON of the events with seq > ``after``, the game's last seq, whether it has
        ended); raises UnknownGameError."""
        c = self._caches.get(game_id)
        if c is not None:
            encode = ev.encode
            return [encode(e) for e in c.events[after:]], c.seq, c.state.phase == ENDED
        return await self.read(lambda s: _tail(s, game_id, after))

    async def players(self, game_id: str) -> tuple[int, bool]:
        """(number of seats, whether the game has ended); raises UnknownGameError."""
        c = self._caches.get(game_id)
        if c is not None:
            return c.state.n, c.state.phase == ENDED
        row = await self.read(lambda s: queries.get_game(s, game_id))
        return row.n_players, row.status == "ended"

    async def history(self, game_id: str) -> tuple[list[ev.Event], list[State]]:
        """Every event of a game and the state after each (for redacted reads); an uncached
        game is read and folded, not cached."""
        c = self._caches.get(game_id)
        if c is None:
            c = await self.read(lambda s: GameCache.load(s, game_id))
        return c.events, c.states

    async def state_at(self, game_id: str, seq: int | None) -> State | None:
        """The cached state after event ``seq`` (None: the latest), or None when the game
        is not cached (fold its events with replay)."""
        c = self._caches.get(game_id)
        if c is None:
            return None
        if seq is None:
            return c.state
        return c.states[seq - 1] if 1 <= seq <= c.seq else None

    def waiter(self, game_id: str) -> asyncio.Event:
        """An event set at the next commit that appends to ``game_id`` (or at shutdown).
        Take it *before* reading the game, so no append between the two is missed."""
        w = self._waiters.get(game_id)
        if w is None:
            w = self._waiters[game_id] = asyncio.Event()
            if self.closing is not None and self.closing.is_set():
                w.set()
        return w

    async def wait(self, waiter: asyncio.Event, timeout: float) -> bool | None:
        """Wait up to ``timeout`` seconds for ``waiter`` (from :meth:`waiter`): True when an
        append came, False when the time ran out (a follower sends a keep-alive), None once
        the service is closing (the follower's stream ends)."""
        if self.closing is not None and self.closing.is_set():
            return None
        try:
            await asyncio.wait_for(waiter.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        if self.closing is not None and self.closing.is_set():
            return None
        return waiter.is_set()


_END_PREFIX = b'{"type":"game_ended"'


def _in_snapshot(fn: Callable[[Store], Any], store: Store) -> Any:
    store.con.execute("BEGIN TRANSACTION READ ONLY")
    try:
        return fn(store)
    finally:
        store.con.execute("ROLLBACK")


def _tail(store: Store, game_id: str, after: int) -> tuple[list[bytes], int, bool]:
    rows = store.read_json(game_id, after)          # UnknownGameError for no game
    if rows:
        head = after + len(rows)
        last = rows[-1]
    else:
        head, _ = store.head(game_id)
        if head == 0:
            raise store.unknown_game(game_id)
        last = store.read_json(game_id, head - 1)[-1]
    return rows, head, last.startswith(_END_PREFIX)
