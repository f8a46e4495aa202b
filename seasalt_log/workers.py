"""Worker processes for the CPU-heavy bulk jobs (a large import, a rebuild).

Python runs one thread of Python code at a time, so checking and projecting many games
uses several processes. Each worker is a fresh interpreter (``python -m
seasalt_log.workers``) that reads tasks on its standard input and writes results on its
standard output, both pickled. Unlike :mod:`multiprocessing` it never imports the caller's
``__main__`` again (a script without an ``if __name__ == "__main__"`` guard may call the
library) and copies none of the caller's state (no forked DuckDB threads). A worker stops
when its input closes, so none outlives the process that started it.
"""

from __future__ import annotations

import gc
import itertools
import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
import traceback
from collections import deque
import contextlib
from pathlib import Path
from typing import IO, Any, Callable, ContextManager, Iterable, Iterator, NoReturn

from .errors import SeasaltError
from .process_settings import SharedSetting

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


def _set_gc(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()


_GC = SharedSetting(gc.isenabled, _set_gc)
_SWITCH_INTERVAL = SharedSetting(sys.getswitchinterval, sys.setswitchinterval)


def no_gc() -> ContextManager[None]:
    """The cyclic garbage collector off for a while (in this process; workers run with it
    off): folding games keeps many small acyclic objects alive, which the collector would
    only walk again and again. Blocks may overlap (see :mod:`.process_settings`)."""
    return _GC.held(lambda enabled: False)


class WorkerError(SeasaltError):
    """A worker process failed (its message is the worker's error), or died."""


def scratch_failure(exc: Exception, where: str | None = None) -> SeasaltError:
    """A failure (an OSError, or DuckDB's IO error) to write temporary files in ``where``,
    else the temporary directory, said in one line with what to do: a full or read-only
    TMPDIR is the usual cause."""
    if isinstance(exc, OSError):
        reason = exc.strerror or (os.strerror(exc.errno) if exc.errno else str(exc))
        where = where or exc.filename
    else:
        reason = " ".join(str(exc).split())
    where = where or os.environ.get("TMPDIR") or tempfile.gettempdir()
    return SeasaltError(f"cannot write temporary files in {where}: {reason} (TMPDIR chooses "
                        "the directory: point it at one with more room)")


def _said(exc: BaseException) -> str:
    """An exception as its type and its message, in one line."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


class Pool:
    """``jobs`` worker processes that run ``initializer(*initargs)`` first (with the cyclic
    garbage collector off: folding games makes many small acyclic objects, which the
    collector would only walk again and again). Use it as a context manager.

    The items of :meth:`map` wait in one queue, and each worker takes the next one when it
    is free: a faster worker takes more of them, so that all of them finish at about the
    same time. A process takes its first items once it has started, and holds ``held``
    items besides the one it runs (sent ahead on its input, so that it never waits for
    the next: handing one over takes this process's threads a few switches).

    With ``local`` (a context manager factory: the setting of a thread, see :class:`_Local`),
    one of the ``jobs`` is a thread of this process instead: it takes the first item at
    once, while the processes start, and its results are not pickled."""

    def __init__(self, jobs: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple = (), ahead: int = 4,
                 local: Callable[[], contextlib.AbstractContextManager] | None = None,
                 held: int = 1):
        self.ahead = ahead
        #: (number, fn, item) for the next free worker to run; None: a worker stops
        self.tasks: queue.Queue = queue.Queue()
        #: (number, kind, value) of each item run; number None: a worker failed as a whole
        self.results: queue.Queue = queue.Queue()
        self._numbers = itertools.count()
        self._ready: dict[int, tuple[str, Any]] = {}
        #: the numbers of items of a map stopped early still run: their results are dropped
        self._dropped: set[int] = set()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        self.procs: list[subprocess.Popen] = []
        self.threads: list[threading.Thread] = []
        self.local: _Local | None = None
        try:
            for _ in range(jobs - (local is not None)):
                # each in a process group of its own: Ctrl-C at a terminal signals the
                # importer's group alone, and the importer stops its workers (input closed)
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "seasalt_log.workers"], env=env,
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, process_group=0))
            for proc in self.procs:
                sent: deque[int] = deque()      # the numbers of its items in hand, in order
                free = threading.Semaphore(0)   # released once it is ready for an item
                stopped = threading.Event()     # set once its output ended: it takes no item
                # its drain first: a feeder whose drain could not start would wait on
                # ``free`` for ever (the drain's end releases it)
                for target, args in ((_drain, (proc, self.results, sent, free, held, stopped)),
                                     (_feed, (proc.stdin, (initializer, initargs), self.tasks,
                                              self.results, sent, free, stopped))):
                    t = threading.Thread(target=target, args=args, daemon=True)
                    t.start()
                    self.threads.append(t)
            if local is not None:
                self.local = _Local(local, self.tasks, self.results)
        except BaseException:       # a process or thread that could not start: none left
            self.close(kill=True)
            raise

    @property
    def jobs(self) -> int:
        """The workers: processes, and the local thread if any."""
        return len(self.procs) + (self.local is not None)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any], *,
            weight: Callable[[Any], int] | None = None, budget: int = 0
            ) -> Iterator[tuple[Any, Any]]:
        """``(item, fn(item))`` for each item, in order; each item runs on the first worker
        free to take it, at most ``ahead`` items per worker waiting (and with ``weight``,
        items of at most ``budget`` in all, beyond the oldest). A failure in a worker
        raises here. A map stopped early (its caller stopped taking results, or a failure)
        leaves nothing behind: its items still waiting are dropped, and the results of
        those in hand are dropped when they come (another map of the pool takes their
        workers once they are done)."""
        pending: deque = deque()            # (number, item, weight) not yet given back
        room = self.jobs * self.ahead
        load = 0
        try:
            for item in items:
                w = weight(item) if weight is not None else 0
                k = next(self._numbers)
                self.tasks.put((k, fn, item))
                pending.append((k, item, w))
                load += w
                while len(pending) > room or (len(pending) > 1 and load > budget
                                              and weight is not None):
                    load -= pending[0][2]
                    yield self._result(pending)
            while pending:
                yield self._result(pending)
        finally:
            if pending:
                self._drop({k for k, _, _ in pending})

    def _drop(self, numbers: set[int]) -> None:
        """Forget the items ``numbers`` of a map stopped early: those waiting are taken out
        of the queue, the results of the others dropped (now or when they come)."""
        with self.tasks.mutex:
            waiting = [t for t in self.tasks.queue if t is not None and t[0] in numbers]
            if waiting:
                kept = [t for t in self.tasks.queue if t is None or t[0] not in numbers]
                self.tasks.queue.clear()
                self.tasks.queue.extend(kept)
        for k in numbers.difference(t[0] for t in waiting):
            if self._ready.pop(k, None) is None:
                self._dropped.add(k)

    def _result(self, pending: deque) -> tuple[Any, Any]:
        k, item, w = pending.popleft()
        while k not in self._ready:
            number, kind, value = self.results.get()
            if number is None:              # a worker failed as a whole
                self._failed(kind, value)
            if number in self._dropped:     # of a map stopped early
                self._dropped.discard(number)
                continue
            self._ready[number] = (kind, value)
        kind, value = self._ready.pop(k)
        if kind == "ok":
            return item, value
        self._failed(kind, value)

    def _failed(self, kind: str, value: Any) -> NoReturn:
        """Raise a worker's failure: the local thread's exception as it is, a process's
        message, or its death."""
        if kind == "raise":
            raise value
        if kind == "died":
            raise WorkerError(f"a worker process stopped unexpectedly (exit code {value.wait()})")
        raise WorkerError(value)

    def close(self, *, kill: bool = False) -> None:
        """Stop every worker after the items in hand (a process's: the one it runs and
        those sent ahead to it; the items waiting are dropped); with ``kill``, the
        processes at once."""
        while True:
            try:
                self.tasks.get_nowait()
            except queue.Empty:
                break
        if kill:
            for proc in self.procs:
                proc.kill()
        for _ in range(self.jobs):
            self.tasks.put(None)
        if self.local is not None:
            self.local.close()
        for proc in self.procs:
            proc.wait()
        for t in self.threads:
            t.join(timeout=5)
        for proc in self.procs:         # (those of a process whose threads never started too)
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, exc_type, *_) -> None:
        self.close(kill=exc_type is not None)


class _Local:
    """The worker of a :class:`Pool` that is a thread of this process: it runs the items
    of ``tasks`` as a worker process would, within ``setting()`` (a context manager: the
    worker's initializer, undone at the end), with :func:`quick_switches` while it runs
    (so that this process's other threads get Python's lock back quickly). A task's
    exception is handed back as it is (an OSError as :func:`scratch_failure`)."""

    def __init__(self, setting: Callable[[], contextlib.AbstractContextManager],
                 tasks: queue.Queue, results: queue.Queue):
        self.stop = threading.Event()
        self.switches = quick_switches()
        self.switches.__enter__()
        try:
            self.thread = threading.Thread(target=self._serve, args=(setting, tasks, results),
                                           daemon=True)
            self.thread.start()
        except BaseException:           # no thread: the switch interval put back
            self.switches.__exit__(None, None, None)
            raise

    def _serve(self, setting: Callable[[], contextlib.AbstractContextManager],
               tasks: queue.Queue, results: queue.Queue) -> None:
        try:
            with setting():
                while not self.stop.is_set() and (task := tasks.get()) is not None:
                    k, fn, arg = task
                    try:
                        out = ("ok", fn(arg))
                    except OSError as exc:      # its files, as in a worker: TMPDIR full
                        out = ("raise", scratch_failure(exc))
                    except BaseException as exc:
                        out = ("raise", exc)
                    results.put((k, *out))
        except BaseException as exc:            # the setting failed: the map raises it
            results.put((None, "raise", exc))

    def close(self) -> None:
        """Stop after the item in hand (the pool puts a None in its queue for it)."""
        self.stop.set()
        self.thread.join()
        self.switches.__exit__(None, None, None)


#: Python's thread switch interval while :func:`ahead_in_thread` runs (its default is 5 ms)
QUICK_SWITCH = 0.0005


def quick_switches(interval: float = QUICK_SWITCH) -> ContextManager[None]:
    """Python's thread switch interval at most ``interval`` seconds for a while. A thread
    back from a call that let Python's lock go (a DuckDB insert) waits up to the interval
    for a thread running Python code to hand the lock back, and an insert takes it back
    several times: at the default 5 ms, inserts beside a busy thread took four and a half
    times their CPU time (0.5 ms: about twice, the busy thread as fast). Blocks may overlap
    (see :mod:`.process_settings`)."""
    return _SWITCH_INTERVAL.held(lambda previous: min(previous, interval))


def ahead_in_thread(items: Iterable[Any], ahead: int = 2) -> Iterator[Any]:
    """The items of ``items``, in order, produced by a thread of this process up to
    ``ahead`` items before they are taken: the caller's work on an item (such as DuckDB's
    inserts, which release Python's lock) overlaps the production of the next ones, with
    :func:`quick_switches` meanwhile. An exception of the producer is raised here, where
    its item would have come; when the caller stops taking items, the producer stops (and
    its iterator is closed) too."""
    box: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def put(message: tuple[str, Any]) -> bool:
        """Hand ``message`` over; False once the caller stopped taking them."""
        while not stop.is_set():
            try:
                box.put(message, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        it = iter(items)
        try:
            for item in it:
                if not put(("ok", item)):
                    return
        except BaseException as exc:        # handed to the caller, raised there
            put(("error", exc))
            return
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()
        put(("end", None))

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        with quick_switches():
            yield from _taken(box)
    finally:
        stop.set()                          # the producer stops within its put's timeout
        thread.join()


def _taken(box: queue.Queue) -> Iterator[Any]:
    """The items :func:`ahead_in_thread`'s producer puts in ``box``, up to its end."""
    while True:
        kind, value = box.get()
        if kind == "end":
            return
        if kind == "error":
            raise value
        yield value


def _feed(stdin: IO[bytes], first: tuple, tasks: queue.Queue, results: queue.Queue,
          sent: deque, free: threading.Semaphore, stopped: threading.Event) -> None:
    """Send a worker ``first`` (its initializer), then an item of ``tasks`` each time it is
    free (:func:`_drain` releases ``free``), on its standard input, until a None or the
    worker's end (``stopped``: it takes no item then). An item that cannot be pickled is
    reported as its result, rather than leave the caller waiting."""
    try:
        stdin.write(pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL))
        stdin.flush()
        while True:
            free.acquire()
            if stopped.is_set():
                break
            task = tasks.get()
            if task is None:
                break
            k, fn, item = task
            try:
                data = pickle.dumps((fn, item), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:                    # noqa: BLE001 (any pickling failure)
                results.put((k, "error", f"cannot send a task to a worker process: {_said(exc)}"))
                free.release()                          # (not sent: it is free still)
                continue
            sent.append(k)
            stdin.write(data)
            stdin.flush()
        stdin.close()
    except (BrokenPipeError, OSError, ValueError):      # the worker is gone: _drain says so
        pass


def _drain(proc: subprocess.Popen, results: queue.Queue, sent: deque,
           free: threading.Semaphore, held: int, stopped: threading.Event) -> None:
    """Put a worker's results (its standard output) in ``results`` under the numbers of
    its items ``sent``, releasing ``free`` after each, and 1 + ``held`` times once it is
    ready; at its end, (None, "died", proc), which only a caller still waiting for an
    item reads, and ``stopped`` (its feeder stops). A result that cannot be read, from a
    worker still running (the stream out of step after it), stops the worker: (None,
    "error", why)."""
    stdout = proc.stdout
    assert stdout is not None
    try:
        while True:
            try:
                kind, value = pickle.load(stdout)
            except EOFError:                            # the worker stopped
                results.put((None, "died", proc))
                return
            except Exception as exc:                    # noqa: BLE001 (any unpickling failure)
                try:                                    # (cut short: the worker ended)
                    proc.wait(timeout=1)
                    results.put((None, "died", proc))
                except subprocess.TimeoutExpired:       # (a result this process cannot read)
                    proc.kill()
                    results.put((None, "error",
                                 f"cannot read a worker process's result: {_said(exc)}"))
                return
            if kind == "ready":
                free.release(1 + held)
            elif kind == "failed":                      # its initializer failed: why
                results.put((None, "error", value))
            else:
                results.put((sent.popleft(), kind, value))
                free.release()
    finally:
        stopped.set()
        free.release()                                  # (its feeder, if it waits, stops)


# ---------------------------------------------------------------- the worker's side

def _failure(exc: Exception, bug: str) -> str:
    """A worker's failure in one line: a SeasaltError's message, a :func:`scratch_failure`,
    or (a bug) ``bug`` with the exception (SEASALT_DEBUG=1: its traceback too, on standard
    error)."""
    if isinstance(exc, SeasaltError):
        return str(exc)
    if isinstance(exc, OSError):      # its temporary files: a full or read-only TMPDIR
        return str(scratch_failure(exc))
    if os.environ.get("SEASALT_DEBUG"):
        traceback.print_exc()
    return f"{bug}: {_said(exc)}"


def _serve() -> None:
    tasks, results = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr                  # a stray print must not corrupt the results
    gc.disable()
    try:
        initializer, initargs = pickle.load(tasks)
    except EOFError:        # the importer stopped (Ctrl-C) before it sent anything
        os._exit(0)
    try:
        if initializer is not None:
            initializer(*initargs)
    except Exception as exc:    # said in one line (SEASALT_DEBUG=1: the traceback too)
        pickle.dump(("failed", _failure(exc, "a worker process failed to start")), results,
                    protocol=pickle.HIGHEST_PROTOCOL)
        results.flush()
        sys.stderr.flush()
        os._exit(1)
    pickle.dump(("ready", None), results, protocol=pickle.HIGHEST_PROTOCOL)
    results.flush()             # (its pool sends it an item once it is ready)
    while True:
        try:
            fn, arg = pickle.load(tasks)
        except EOFError:
            break
        try:
            out = ("ok", fn(arg))
        except Exception as exc:
            out = ("error", _failure(exc, "a worker process failed"))
        try:
            data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:      # (its result cannot be sent back: a bug)
            data = pickle.dumps(("error", _failure(exc, "a worker process cannot send back "
                                                        "its result")),
                                protocol=pickle.HIGHEST_PROTOCOL)
        try:
            results.write(data)
            results.flush()
        except BrokenPipeError:
            break
    # every result is flushed and no task holds a file open: skip the interpreter's
    # teardown (freeing every module's objects takes a tenth of a second or so, which the
    # importer would wait for before its commit)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    _serve()
