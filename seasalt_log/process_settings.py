"""Settings of the whole process (Python's thread switch interval and garbage collector,
Arrow's memory pool) changed for a while by blocks of code that may overlap: imports run
by a library user's threads, or beside the HTTP service's writer.

Each block putting back the value it found would leave the changed value set for good
when the blocks end in another order than they began; a :class:`SharedSetting` counts the
blocks instead, and the last one to end puts back the value there was before the first
began.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class SharedSetting(Generic[T]):
    """A process-wide setting, read by ``read`` and set by ``write``, held by blocks that
    may overlap (see the module's docstring)."""

    def __init__(self, read: Callable[[], T], write: Callable[[T], None]) -> None:
        self._read, self._write = read, write
        self._lock = threading.Lock()
        self._blocks = 0
        self._before: list[T] = []      # the value before the first block, while any runs

    @contextmanager
    def held(self, value: Callable[[T], T]) -> Iterator[None]:
        """The setting at ``value(the setting before)`` while the block runs; a block that
        begins while others run keeps the value the first one set."""
        with self._lock:
            if not self._blocks:
                before = self._read()
                self._write(value(before))
                self._before.append(before)
            self._blocks += 1
        try:
            yield
        finally:
            with self._lock:
                self._blocks -= 1
                if not self._blocks:
                    self._write(self._before.pop())
