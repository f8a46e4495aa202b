"""Worker processes (seasalt_log.workers): results in order, errors brought back, a dead
worker reported, and no re-import of the caller's script (which multiprocessing's spawn
does, breaking a script without an ``if __name__ == "__main__"`` guard)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from seasalt_log.errors import SeasaltError
from seasalt_log.workers import Pool, WorkerError

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


def _dies(x: int) -> int:
    if x == 2:
        os._exit(3)
    return x


def test_results_come_back_in_order_from_every_worker():
    with Pool(2, _set_offset, (100,), ahead=2) as pool:
        got = list(pool.map(_shifted, range(20)))
    assert [item for item, _ in got] == list(range(20))
    assert [r for _, (r, _) in got] == [100 + i for i in range(20)]      # the initializer ran
    assert len({pid for _, (_, pid) in got}) == 2 and os.getpid() not in {p for _, (_, p) in got}


def test_an_error_in_a_worker_is_raised_with_its_message():
    with pytest.raises(WorkerError, match="item 3 is bad"):
        with Pool(2) as pool:
            for _ in pool.map(_fails, range(10)):
                pass


def test_a_worker_that_dies_is_reported():
    with pytest.raises(WorkerError, match="stopped unexpectedly"):
        with Pool(2) as pool:
            list(pool.map(_dies, range(10)))


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
