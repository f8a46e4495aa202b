"""Where the benchmarks keep their files.

The simulated logs (made once, then only read) are kept in ``bench/.data`` (:data:`LOGS`),
which checkouts may share. What a run writes besides (its stores, exports and other files)
goes to :data:`DATA`: the directory named by the ``SEASALT_BENCH_DATA`` environment variable,
else ``bench/.data`` as well; so two runs measuring at once, each with a directory of its own,
never clobber each other's stores.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the environment variable naming the directory of a run's stores and other written files
ENV = "SEASALT_BENCH_DATA"
#: the shared logs
LOGS = Path(__file__).resolve().parent / ".data"
#: a run's stores and other written files
DATA = Path(os.environ[ENV]).expanduser().resolve() if os.environ.get(ENV) else LOGS
DATA.mkdir(parents=True, exist_ok=True)


def part(path: Path) -> Path:
    """The name a file is written under before it is renamed to ``path`` once complete: one
    of this process's own, so two runs making the same shared log do not write into one."""
    return path.with_name(f"{path.name}.{os.getpid()}.part")
