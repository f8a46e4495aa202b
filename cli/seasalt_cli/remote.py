"""The reading commands while ``seasalt serve`` holds the store: ``--url`` (and ``--token``)
ask the service; without ``--url``, a command that finds the store busy looks for the
service's ``STORE.serve.json`` and asks it, saying so on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

from seasalt_log.errors import StoreBusyError

from .app import db_path, log

T = TypeVar("T")

def local_or_remote(db: Path | None, url: str | None, local: Callable[[Path], T],
                    remote: Callable[[str], T]) -> T:
    """``remote(url)`` with ``--url``; else ``local(store)``, or, when the store is busy and
    the service holding it announced itself, ``remote`` at its URL. A busy store with no
    service found fails in one line naming --url. (``remote`` imports the HTTP client
    itself: it is needed only then, and every other command starts faster without it.)"""
    if url:
        return remote(url)
    path = db_path(db)
    try:
        return local(path)
    except StoreBusyError as exc:
        from seasalt_log.http.discovery import find     # the HTTP package only when needed
        found = find(path)
        if found is None:       # (the error names the process that holds the store)
            raise StoreBusyError(f"{exc}; if `seasalt serve` holds it, read through the "
                                 "service with --url URL (or SEASALT_URL)") from None
    log.info(f"seasalt: {path} is held by `seasalt serve` (pid {found.pid}); asking it at "
             f"{found.url}")
    return remote(found.url)


def held_by(path: Path) -> str:
    """``"process N (COMMAND)"``: who holds the busy store ``path``
    (:func:`~seasalt_log.store.store.lock_holder`); "" when DuckDB does not say (or the
    store has been let go meanwhile)."""
    import duckdb
    from seasalt_log.store.store import lock_holder
    try:
        duckdb.connect(str(path)).close()
    except duckdb.Error as exc:
        return lock_holder(exc)
    return ""
