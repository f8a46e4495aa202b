"""The hash chain's cost: in an import worker, in `verify --quick`, and the migration.

    python bench/chain_bench.py worker LOG...   # check_chunk of every chunk, in-process
    python bench/chain_bench.py quick DB        # verify_store(quick=True), one process
    python bench/chain_bench.py migrate DB COPY # copy DB, open the copy for writing (migrates it)

``worker`` and ``quick`` print the process CPU seconds (``time.process_time``) of each of
``--repeat`` runs and the best; run them with ``PYTHONPATH`` set to each tree to compare
(A/B in turn). ``migrate`` copies the store to COPY, times its migration by ``Store.open``
(process CPU and wall seconds) and checks it with ``verify --quick``.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import tempfile
import time


def worker(logs: list[str], repeat: int) -> list[float]:
    """CPU seconds of ``check_chunk`` over every chunk of ``logs`` (rows written to a
    scratch directory, as an import's worker writes them), ``repeat`` times."""
    from seasalt_log.importers import chunks as ch
    parts = list(ch.log_chunks(logs))
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            ch._init(ch.WorkerSetup(stored=frozenset(), out_dir=out))
            gc.collect()
            t0 = time.process_time()
            for c in parts:
                ch.check_chunk(c)
            times.append(time.process_time() - t0)
            ch._close()
    return times


def quick(db: str, repeat: int) -> list[float]:
    """CPU seconds of ``verify_store(store, quick=True, jobs=1)`` over the store."""
    from seasalt_log.store import Store
    from seasalt_log.verify import verify_store
    times = []
    with Store.open(db, read_only=True) as store:
        for _ in range(repeat):
            gc.collect()
            t0 = time.process_time()
            report = verify_store(store, quick=True, jobs=1)
            times.append(time.process_time() - t0)
            assert report.ok, report.differences[:5]
    return times


def migrate(db: str, copy: str) -> None:
    """Time the migration of a copy of ``db`` and check the copy."""
    from seasalt_log.store import Store
    from seasalt_log.verify import verify_store
    shutil.copy(db, copy)
    t0, c0 = time.monotonic(), time.process_time()
    store = Store.open(copy)
    print(f"migrated in {time.process_time() - c0:.2f} CPU s, {time.monotonic() - t0:.2f} s wall")
    store.close()
    with Store.open(copy, read_only=True) as store:
        report = verify_store(store, quick=True, jobs=1)
    print(f"verify --quick of the copy: {report.games} games, ok: {report.ok}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("worker", "quick", "migrate"))
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if a.what == "migrate":
        migrate(a.paths[0], a.paths[1])
        return
    times = worker(a.paths, a.repeat) if a.what == "worker" else quick(a.paths[0], a.repeat)
    print(" ".join(f"{t:.3f}" for t in times), f"best {min(times):.3f}")


if __name__ == "__main__":
    main()
