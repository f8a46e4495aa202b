"""Worker processes for the CPU-heavy bulk jobs (a large import, a rebuild).

Python runs one thread of Python code at a time, so checking and projecting many games
uses several processes. They are started fresh (``spawn``: no copy of the parent's DuckDB
connection or threads) and stop by themselves if the parent dies (killed, it cannot tell
them), so that no orphan keeps working or keeps the parent's output open.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Callable

_WATCH_SECONDS = 0.5


def pool(jobs: int, initializer: Callable[..., None] | None = None,
         initargs: tuple = ()) -> ProcessPoolExecutor:
    """``jobs`` worker processes that run ``initializer(*initargs)`` first, with the cyclic
    garbage collector off (folding games makes many small acyclic objects: the collector
    would only walk them again and again)."""
    return ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=_start,
                               initargs=(os.getpid(), initializer, initargs))


def _start(parent: int, initializer, initargs) -> None:
    gc.disable()
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watch").start()
    if initializer is not None:
        initializer(*initargs)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(70)
