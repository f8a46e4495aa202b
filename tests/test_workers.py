"""Worker processes (seasalt_log.workers): results in order, errors brought back, a dead
worker reported, and no re-import of the caller's script (which multiprocessing's spawn
does, breaking a script without an ``if __name__ == "__main__"`` guard)."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from functools import partial

import pytest

from seasalt_log.errors import SeasaltError
import threading
import time

from seasalt_log.workers import Pool, WorkerError, ahead_in_thread

from .reliability_helpers import valid_games, write_log

_offset = 0


def _set_offset(k: int) -> None:
    global _offset
    _offset = k


def _shifted(x: int) -> tuple[int, int]:
    return x + _offset, os.getpid()


def _fails(x: int) -> int:
    if x == 3:
        raise SeasaltError(f"item {x} is bad")
    return x


def _fails_here(here: int, x: int) -> int:
    """Fails in the process ``here`` (the local thread's)."""
    if os.getpid() == here:
        raise SeasaltError(f"item {x} is bad")
    return x


def _dies(here: int, where: str, x: int) -> int:
    """Ends any process but ``here`` (a worker process) at once; in ``here``, waits for
    that first (so that a worker process takes an item)."""
    if os.getpid() != here:
        Path(where, "dying").touch()
        os._exit(3)
    _wait_for(Path(where, "dying"))
    return x


def _together(where: str, n: int, x: int) -> tuple[int, int]:
    """:func:`_shifted`, once ``n`` processes have come here (each marks ``where``): each
    worker takes an item, whichever is ready first (up to 30 s)."""
    Path(where, str(os.getpid())).touch()
    _wait_until(lambda: len(os.listdir(where)) >= n)
    return _shifted(x)


def test_results_come_back_in_order_from_every_worker(tmp_path):
    with Pool(2, _set_offset, (100,), ahead=2) as pool:
        got = list(pool.map(partial(_together, str(tmp_path), 2), range(20)))
    assert [item for item, _ in got] == list(range(20))
    assert [r for _, (r, _) in got] == [100 + i for i in range(20)]      # the initializer ran
    assert len({pid for _, (_, pid) in got}) == 2 and os.getpid() not in {p for _, (_, p) in got}


def test_an_error_in_a_worker_is_raised_with_its_message():
    with pytest.raises(WorkerError, match="item 3 is bad"):
        with Pool(2) as pool:
            for _ in pool.map(_fails, range(10)):
                pass


@contextlib.contextmanager
def _offset_here(k: int):
    """The local slot's setting: the offset set in this process, and undone at the end."""
    _set_offset(k)
    try:
        yield
    finally:
        _set_offset(0)


def test_a_local_slot_checks_items_in_this_process_beside_the_workers(tmp_path):
    """With ``local``, one of the jobs is a thread of this process (within its setting):
    it takes item 0 while the processes start, then the next item each time it is free, as
    they do; the results come back in order, the setting is undone at the end."""
    for jobs in (2, 3):
        where = tmp_path / str(jobs)
        where.mkdir()
        with Pool(jobs, _set_offset, (100,), ahead=2, local=lambda: _offset_here(100)) as pool:
            got = list(pool.map(partial(_together, str(where), jobs), range(20)))
            assert len(pool.procs) == jobs - 1
        assert [item for item, _ in got] == list(range(20))
        assert [r for _, (r, _) in got] == [100 + i for i in range(20)]
        assert got[0][1][1] == os.getpid()
        assert len({pid for _, (_, pid) in got}) == jobs
        assert _offset == 0


def _slow_elsewhere(here: int, where: str, x: int) -> int:
    """Slow in any process but ``here``; in ``here``, quick once another has begun one."""
    if os.getpid() != here:
        Path(where, "begun").touch()
        time.sleep(0.3)
    else:
        _wait_for(Path(where, "begun"))
    return os.getpid()


def _wait_for(path: Path) -> None:
    _wait_until(path.exists)


def _wait_until(done, seconds: float = 30) -> None:
    """Wait until ``done()`` (at most ``seconds``: the test's assertions then say what failed)."""
    end = time.monotonic() + seconds
    while not done() and time.monotonic() < end:
        time.sleep(0.005)


def test_a_faster_worker_takes_more_items(tmp_path):
    """Each item goes to the first worker free for it (not to each in turn): the local
    thread, quick, takes most of them while the slow process is busy with one or two."""
    here = os.getpid()
    with Pool(2, local=contextlib.nullcontext, ahead=4) as pool:
        got = [pid for _, pid in pool.map(partial(_slow_elsewhere, here, str(tmp_path)),
                                          range(20))]
    assert got.count(here) >= 15 and got.count(here) < 20, got


def test_an_error_in_the_local_slot_is_raised_as_it_is():
    """The local thread's exception comes back itself (not a WorkerError's message); an
    OSError (a full TMPDIR) as one line naming the temporary directory."""
    with pytest.raises(SeasaltError, match=r"item \d is bad") as caught:
        with Pool(2, local=contextlib.nullcontext) as pool:
            list(pool.map(partial(_fails_here, os.getpid()), [0, 1, 3, 4]))
    assert type(caught.value) is SeasaltError
    with pytest.raises(SeasaltError, match="cannot write temporary files.*No space left"):
        with Pool(2, local=contextlib.nullcontext) as pool:
            list(pool.map(_full_disk, range(3)))


@contextlib.contextmanager
def _broken_setting():
    raise SeasaltError("no setting")
    yield


def test_a_local_slot_whose_setting_fails_raises_it_for_its_item():
    """The local thread's setting fails: its first item raises that (nothing waits forever)."""
    with pytest.raises(SeasaltError, match="no setting"):
        with Pool(2, local=_broken_setting) as pool:
            list(pool.map(_shifted, range(4)))


def _full_disk(x: int) -> int:
    if x == 0:                  # the local slot's item
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return x


def test_a_stopped_map_stops_the_local_slot_after_its_item_in_hand():
    """The caller stops taking results (Ctrl-C, a failure): the pool closes at once, the
    local thread after the item in hand, and the items waiting for it are never run."""
    ran: list[int] = []

    def slow(x: int) -> int:
        ran.append(x)
        time.sleep(0.05)
        return x
    with pytest.raises(KeyboardInterrupt):
        with Pool(1, local=contextlib.nullcontext, ahead=6) as pool:
            for item, _ in pool.map(slow, range(6)):
                raise KeyboardInterrupt
    assert ran and len(ran) < 6 and not pool.local.thread.is_alive()


@pytest.mark.parametrize("local", [None, contextlib.nullcontext])
def test_a_task_that_cannot_be_sent_to_a_worker_is_raised_not_waited_for(local):
    """A lambda cannot be pickled: the map raises at once (it waited forever before)."""
    def run() -> None:
        with Pool(2 if local is None else 3, local=local) as pool:
            # (slow in the local thread: the processes start meanwhile, and fail to get one)
            list(pool.map(lambda k: time.sleep(0.1) or k, range(30)))
    error = _raised_within(run, 60, "the map still waits for a task it could not send")
    assert isinstance(error, WorkerError), error
    assert "cannot send a task to a worker process" in str(error)


def _raised_within(fn, seconds: float, hung: str) -> BaseException:
    """What ``fn()`` raised, run in a thread that must end within ``seconds`` (``hung``:
    the failure's message if it does not)."""
    box: list[BaseException] = []
    t = threading.Thread(target=lambda: _caught(fn, box), daemon=True)
    t.start()
    t.join(timeout=seconds)
    assert not t.is_alive(), hung
    assert len(box) == 1, box
    return box[0]


def _caught(fn, box: list) -> None:
    try:
        fn()
    except BaseException as exc:        # noqa: BLE001 (handed to the test's thread)
        box.append(exc)


@pytest.mark.parametrize("local", [None, contextlib.nullcontext])
def test_a_worker_that_dies_is_reported(local, tmp_path):
    """A worker process dies at its first item, beside a local thread or not."""
    with pytest.raises(WorkerError, match=r"stopped unexpectedly \(exit code 3\)"):
        with Pool(2 if local is None else 3, local=local) as pool:
            list(pool.map(partial(_dies, os.getpid(), str(tmp_path)), range(10)))


def _cannot_start() -> None:
    raise RuntimeError("no store here")


def _pool_threads_end(pool: Pool) -> bool:
    return not any(t.is_alive() for t in pool.threads)


@pytest.mark.parametrize("local", [None, contextlib.nullcontext])
def test_a_worker_that_ends_before_it_is_ready_leaves_no_thread_behind(local):
    """A worker process that ends as Python does (its output closes before its input: an
    initializer's error here) stops its feeding thread (it waited forever for the worker
    to be free, and the pool's close waited 5 s for it)."""
    start = time.monotonic()
    with pytest.raises(WorkerError):
        with Pool(2 if local is None else 3, _cannot_start, local=local) as pool:
            list(pool.map(_slowly, range(20)))
    assert time.monotonic() - start < 4 and _pool_threads_end(pool)


def test_a_worker_whose_initializer_fails_says_why_in_one_line():
    with pytest.raises(WorkerError, match=r"^a worker process failed to start: "
                                          r"RuntimeError: no store here$"):
        with Pool(2, _cannot_start) as pool:
            list(pool.map(_slowly, range(20)))


def _slowly(x: int) -> int:
    time.sleep(0.1)
    return x


class _NotHere:
    """Pickled in a worker, but not read back in the caller's process."""

    def __reduce__(self):
        return int, ("not a number",)


class _NotThere:
    def __reduce__(self):
        raise TypeError("cannot go back")


def _odd_result(kind: type, x: int):
    return kind() if x == 1 else x


@pytest.mark.parametrize("kind, said", [
    (_NotHere, r"^cannot read a worker process's result: ValueError: invalid literal"),
    (_NotThere, r"^a worker process cannot send back its result: TypeError: cannot go back$")])
def test_a_result_that_cannot_be_handed_back_is_raised_not_waited_for(kind, said):
    """A result the caller cannot read (the worker's output out of step after it: the
    worker is stopped) waited forever for the worker's end; one the worker cannot pickle
    ended the worker with a traceback and no reason."""
    def run() -> None:
        with Pool(1, ahead=2) as pool:
            list(pool.map(partial(_odd_result, kind), range(6)))
    error = _raised_within(run, 60, "the map still waits for the worker")
    assert isinstance(error, WorkerError), error
    assert re.search(said, str(error)), str(error)


def _ends_mid_result(x: int) -> int:
    if x == 1:              # a result cut short: the worker ends as it writes it
        import pickle
        os.write(1, pickle.dumps(("ok", "y" * 100_000), protocol=5)[:5000])
        os._exit(9)
    return x


def test_a_worker_that_ends_mid_result_is_said_as_its_death():
    with pytest.raises(WorkerError, match=r"stopped unexpectedly \(exit code 9\)"):
        with Pool(1) as pool:
            list(pool.map(_ends_mid_result, range(4)))


def _dies_or_fails(x: int) -> int:
    if x == 0:              # its worker dies once the other worker has failed item 1
        time.sleep(1)
        os._exit(7)
    if x == 1:
        raise SeasaltError("item 1 is bad")
    return x


def test_a_worker_death_is_not_said_as_another_items_error():
    """Item 0 ends its worker; item 1, on the other worker, fails meanwhile: the map says
    the death (item 0's turn), not item 1's error, which it read first."""
    with pytest.raises(WorkerError, match=r"stopped unexpectedly \(exit code 7\)"):
        with Pool(2, ahead=1, held=0) as pool:
            list(pool.map(_dies_or_fails, range(4)))


def _marks(where: str, x: int) -> int:
    Path(where, str(x)).touch()
    # long enough that a worker takes no further item while the test, on a loaded machine,
    # gets from the first result to stopping the map (at 0.1 s one ran 7 items once)
    time.sleep(0.5)
    return x


def test_a_map_stopped_early_leaves_nothing_for_the_next_map(tmp_path):
    """A map the caller stops taking (as verify may, then maps again on the pool): its
    items waiting are not run, and the results of those in hand are not kept."""
    with Pool(2, ahead=4) as pool:
        first = pool.map(partial(_marks, str(tmp_path)), range(16))
        assert next(first) == (0, 0)
        first.close()
        got = list(pool.map(_shifted, range(100, 104)))
        assert [(k, r) for k, (r, _) in got] == [(k, k) for k in range(100, 104)]
        time.sleep(0.3)
        ran = len(os.listdir(tmp_path))
        # 9 items put (8 waiting beside the one given back): each process had one in hand
        # and one sent ahead, and took one more once its first result came back
        assert ran <= 6, ran
        assert not pool._ready and not pool.tasks.qsize()


def test_a_script_without_a_main_guard_imports_in_parallel(tmp_path):
    log = write_log(tmp_path / "a.jsonl", valid_games(6, seed=31))
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent(f"""
        import seasalt_log.service as service
        from seasalt_log.store import Store
        service.BATCH_EVENTS = 300          # small chunks: several, so workers start
        with Store.open({str(tmp_path / 's.duckdb')!r}) as store:
            s = service.import_logs(store, [{str(log)!r}], jobs=2)
        print(s.new, s.failed)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["6", "0"]


def _notes(x: int) -> int:
    import atexit
    atexit.register(print, "torn down")     # run by the interpreter's teardown
    print(f"note {x}", end="")              # a stray print: on the worker's stderr
    return x


def test_a_worker_stops_at_once_when_its_input_closes_and_its_output_is_flushed(capfd):
    """A worker skips the interpreter's teardown at the end (the importer waits for it
    before its commit), with its results and what it printed flushed first."""
    pool = Pool(2)
    try:
        assert [r for _, r in pool.map(_notes, range(4))] == [0, 1, 2, 3]
    finally:
        pool.close()
    assert [p.returncode for p in pool.procs] == [0, 0]
    err = capfd.readouterr().err
    assert all(f"note {x}" in err for x in range(4)) and "torn down" not in err


def test_a_byte_budget_bounds_the_items_waiting_whatever_their_count():
    produced = []

    def items():
        for k in range(12):
            produced.append(k)
            yield k
    waiting = []
    with Pool(1, ahead=6) as pool:
        for k, (item, _) in enumerate(pool.map(_shifted, items(), weight=lambda x: 10,
                                               budget=25)):
            waiting.append(len(produced) - (k + 1))     # sent, not yet given back
            assert item == k
    # 10 bytes each within 25: two wait beside the one given back (six by count alone)
    assert max(waiting) == 2


# ---------------------------------------------------------------- ahead_in_thread

def test_a_thread_ahead_gives_every_item_in_order_and_stays_bounded():
    made: list[int] = []

    def items():
        for k in range(50):
            made.append(k)
            yield k
    got = []
    for k in ahead_in_thread(items(), ahead=2):
        time.sleep(0.001 if k % 7 else 0.02)     # a slow consumer now and then
        # the producer is at most the box (2) and the item in its hand (1) ahead
        assert len(made) - (k + 1) <= 3
        got.append(k)
    assert got == list(range(50))


def test_a_thread_ahead_raises_the_producers_error_where_its_item_would_come():
    def items():
        yield 1
        yield 2
        raise SeasaltError("chunk 3 is bad")
    got = []
    with pytest.raises(SeasaltError, match="chunk 3 is bad"):
        for k in ahead_in_thread(items()):
            got.append(k)
    assert got == [1, 2]


def test_a_consumer_that_stops_stops_the_producer_and_closes_its_iterator():
    closed = threading.Event()

    def items():
        try:
            for k in range(10_000):
                yield k
        finally:
            closed.set()
    before = threading.active_count()
    with pytest.raises(ValueError):
        for k in ahead_in_thread(items(), ahead=1):
            if k == 3:
                raise ValueError("the importer stopped")
    assert closed.wait(2)           # the producer's generator ran its finally (a chunk's _close)
    deadline = time.monotonic() + 2
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == before


@pytest.mark.parametrize("ends", ["done", "producer fails", "consumer stops"])
def test_a_thread_ahead_switches_threads_quickly_and_puts_the_interval_back(ends):
    """While the producer runs, a thread waiting for Python's lock (the importer back from
    a DuckDB insert) gets it within 0.5 ms rather than the default 5 ms; afterwards the
    interval is what it was, however the loop ended."""
    import sys
    from seasalt_log import workers
    before = sys.getswitchinterval()

    def items():
        yield from range(3)
        if ends == "producer fails":
            raise SeasaltError("bad")
    seen = []
    try:
        for k in ahead_in_thread(items()):
            seen.append(sys.getswitchinterval())
            if ends == "consumer stops" and k == 1:
                raise ValueError("stopped")
    except (SeasaltError, ValueError):
        pass
    assert seen and all(s == pytest.approx(min(before, 0.0005)) for s in seen)
    assert workers.QUICK_SWITCH == 0.0005
    assert sys.getswitchinterval() == before


def test_a_pool_that_cannot_start_every_worker_leaves_none_running(monkeypatch):
    """A worker process that cannot be started (no memory, no process left to the user)
    fails the pool's start, and the processes started before it are stopped: nothing is
    left running behind the error."""
    from seasalt_log import workers
    real, started = subprocess.Popen, []

    def popen(*args, **kwargs):
        if started:
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(workers.subprocess, "Popen", popen)
    with pytest.raises(OSError, match="temporarily unavailable"):
        Pool(3)
    assert len(started) == 1 and started[0].poll() is not None


@pytest.mark.parametrize("fail_at", [1, 2, 3, 5])
def test_a_pool_whose_thread_cannot_start_leaves_no_thread_waiting(monkeypatch, fail_at):
    """A thread that cannot be started (the feeder's or drain's of a process, or the local
    worker's) fails the pool's start at once: no thread left waiting for ever, and the
    switch interval the local worker lowered put back."""
    import threading
    import time
    real, calls = threading.Thread.start, []

    def start(self):
        calls.append(self)
        if len(calls) == fail_at:
            raise RuntimeError("can't start new thread")
        return real(self)

    before = sys.getswitchinterval()
    monkeypatch.setattr(threading.Thread, "start", start)
    t = time.monotonic()
    with pytest.raises(RuntimeError, match="can't start"):
        Pool(3, local=contextlib.nullcontext)
    assert time.monotonic() - t < 2
    assert sys.getswitchinterval() == before
    assert not [c for c in calls if c.is_alive()]
