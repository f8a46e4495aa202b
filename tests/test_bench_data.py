"""Where the benchmarks write (bench/bench_data.py): the stores and other written files go
to the directory ``SEASALT_BENCH_DATA`` names, the simulated logs stay in ``bench/.data``;
without it, everything is in ``bench/.data`` as before. Each script is imported in a child
process (its paths are fixed when it is imported), nothing is run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"

PATHS = """
import json, store_bench, vs_baseline, archive_bench, large_import, large_results, analytics_bench
import live_store_bench, compact_bench
print(json.dumps({
    "store": str(store_bench.DATA), "logs": str(store_bench.LOGS),
    "corpus": str(store_bench.LOGS / "sim-1000.jsonl"),
    "vs_baseline": str(vs_baseline.DATA), "archive": str(archive_bench.DATA),
    "large_import": str(large_import.DATA), "large_import_logs": str(large_import.LOGS),
    "large_results": str(large_results.CACHE), "analytics": str(analytics_bench.DB.parent),
    "analytics_logs": str(analytics_bench.LOGS.parent),
    "live": str(live_store_bench.DATA), "compact": str(compact_bench.DATA)}))
"""


def paths(env: dict[str, str]) -> dict[str, str]:
    """The directories the bench scripts use, imported with ``env``."""
    base = {k: v for k, v in os.environ.items() if k != "SEASALT_BENCH_DATA"}
    out = subprocess.run([sys.executable, "-c", PATHS], cwd=BENCH, env={**base, **env},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_written_files_go_where_seasalt_bench_data_says(tmp_path):
    mine = tmp_path / "mine"
    got = paths({"SEASALT_BENCH_DATA": str(mine)})
    assert mine.is_dir()                                        # made when missing
    written = ("store", "vs_baseline", "archive", "large_import", "large_results",
               "analytics", "live", "compact")
    assert {k: got[k] for k in written} == {k: str(mine) for k in written}
    shared = str(BENCH.resolve() / ".data")
    assert got["logs"] == got["large_import_logs"] == got["analytics_logs"] == shared


def test_without_it_everything_stays_in_bench_data():
    got = paths({})
    shared = str(BENCH.resolve() / ".data")
    for k in ("store", "logs", "vs_baseline", "archive", "large_import", "analytics", "live",
              "compact"):
        assert got[k] == shared, k
    assert got["large_results"] == str(Path.home() / ".cache" / "seasalt-bench")
