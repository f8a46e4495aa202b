"""Limits on user SQL and reports: a time limit and a memory limit, and Ctrl-C that works.

DuckDB runs a statement in C++ without giving Python a chance to handle a signal, so a
long statement would ignore Ctrl-C until it ends. :func:`guarded` therefore runs the
statement on a worker thread while the calling thread waits: the wait ends at the time
limit or on Ctrl-C, and either way ``con.interrupt()`` stops the statement at once.

The memory limit is DuckDB's ``memory_limit`` setting, given when the connection is made
(before its configuration is locked).
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any, Callable, TypeVar

import duckdb
from msgspec import Struct

from ..errors import SeasaltError, UsageError

T = TypeVar("T")

DEFAULT_TIMEOUT = "60s"
DEFAULT_MEMORY_LIMIT = "2GB"
#: the environment variables that change the defaults
TIMEOUT_ENV = "SEASALT_QUERY_TIMEOUT"
MEMORY_ENV = "SEASALT_QUERY_MEMORY"

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h)?", re.ASCII)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
_MEMORY = re.compile(r"(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)", re.ASCII | re.IGNORECASE)


class Limits(Struct, frozen=True):
    """How long a statement may run (seconds, None: no limit) and how much memory DuckDB
    may use (a DuckDB size such as ``2GB``, None: DuckDB's default, 80% of the RAM)."""

    timeout: float | None = 60.0
    memory_limit: str | None = DEFAULT_MEMORY_LIMIT
    #: the option names to quote in messages (the CLI's, or the environment's)
    timeout_name: str = "--timeout"
    memory_name: str = "--memory-limit"


class QueryTimeoutError(SeasaltError):
    """A statement that ran past its time limit (it was stopped)."""


class QueryMemoryError(SeasaltError):
    """A statement that needed more memory than the limit allows."""


class QueryInterrupted(SeasaltError):
    """A statement stopped by Ctrl-C (SIGINT)."""

    exit_code = 130


def parse_timeout(text: str, name: str = "--timeout") -> float | None:
    """Seconds from ``60s``, ``1.5m``, ``500ms``, ``2h`` or a bare number of seconds;
    ``0`` or ``none`` means no limit."""
    text = text.strip()
    if text.lower() in ("0", "none", "off"):
        return None
    m = _DURATION.fullmatch(text)
    if not m:
        raise UsageError(f"{name} {text!r}: give a duration such as 60s, 5m, 500ms, or 0 for "
                         "no limit")
    seconds = float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
    return seconds or None


def parse_memory(text: str, name: str = "--memory-limit") -> str | None:
    """A DuckDB memory size (``2GB``, ``512MB``, ``1.5GiB``); ``0`` or ``none``: DuckDB's
    default."""
    text = text.strip()
    if text.lower() in ("0", "none", "off"):
        return None
    m = _MEMORY.fullmatch(text)
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"{name} {text!r}: give a size such as 2GB, 512MB or 1.5GiB, or 0 "
                         "for DuckDB's default")
    return f"{m.group(1)}{m.group(2)}"


def limits_from(timeout: str | None = None, memory: str | None = None) -> Limits:
    """The limits from options, else the environment, else the defaults. Messages name the
    option when it was given, the environment variable when that was used."""
    t_name, m_name = "--timeout", "--memory-limit"
    if timeout is None:
        timeout = os.environ.get(TIMEOUT_ENV) or None
        t_name = TIMEOUT_ENV if timeout is not None else t_name
    if memory is None:
        memory = os.environ.get(MEMORY_ENV) or None
        m_name = MEMORY_ENV if memory is not None else m_name
    return Limits(timeout=parse_timeout(timeout or DEFAULT_TIMEOUT, t_name),
                  memory_limit=parse_memory(memory or DEFAULT_MEMORY_LIMIT, m_name),
                  timeout_name=t_name, memory_name=m_name)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def guarded(con: duckdb.DuckDBPyConnection, fn: Callable[[], T], limits: Limits) -> T:
    """Run ``fn()`` (statements on ``con``) on a worker thread; stop them with
    ``con.interrupt()`` at the time limit or on Ctrl-C. Raises :class:`QueryTimeoutError`,
    :class:`QueryInterrupted` or :class:`QueryMemoryError`; any other error of ``fn`` as is."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:    # handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="seasalt-query", daemon=True)
    worker.start()
    stopped = None
    try:
        if not done.wait(limits.timeout):
            stopped = "timeout"
    except KeyboardInterrupt:
        stopped = "interrupt"
    if stopped is not None:
        # an interrupted statement stops within milliseconds; one not begun yet (a signal
        # right after the call) is not touched by interrupt(), hence again until it ends
        deadline = time.monotonic() + 5.0
        con.interrupt()
        while not done.wait(0.05) and time.monotonic() < deadline:
            con.interrupt()
        if stopped == "interrupt":
            raise QueryInterrupted("interrupted (Ctrl-C): the query was stopped") from None
        assert limits.timeout is not None, "only a time limit runs out"
        raise QueryTimeoutError(
            f"the query was stopped after {_seconds(limits.timeout)}, its time limit "
            f"({limits.timeout_name}; 0 means no limit)") from None
    error = box.get("error")
    if error is not None:
        if _is_memory(error):
            raise QueryMemoryError(
                f"the query needs more memory than its limit of {limits.memory_limit or 'the default'} "
                f"({limits.memory_name}): {_first_line(error.__context__ or error)}") from None
        raise error
    return box["value"]


def _is_memory(exc: BaseException) -> bool:
    if isinstance(exc, duckdb.OutOfMemoryException):
        return True
    # execute() turns DuckDB's errors into one-line QueryErrors; the original is the context
    return isinstance(exc.__cause__ or exc.__context__, duckdb.OutOfMemoryException)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
