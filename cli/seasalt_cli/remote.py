"""The reading commands while ``seasalt serve`` holds the store: ``--url`` (and ``--token``)
ask the service; without ``--url``, a command that finds the store busy looks for the
service's ``STORE.serve.json`` and asks it, saying so on stderr."""

from __future__ import annotations

import re
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
        if found is None:
            holder = held_by(path)
            raise StoreBusyError(f"{exc}{'; it is held by ' + holder if holder else ''}; if "
                                 "`seasalt serve` holds it, read through the service with "
                                 "--url URL (or SEASALT_URL)") from None
    log.info(f"seasalt: {path} is held by `seasalt serve` (pid {found.pid}); asking it at "
             f"{found.url}")
    return remote(found.url)


#: DuckDB's lock error names the process holding the file (on the systems that say it)
_HOLDER = re.compile(r"Conflicting lock is held in (.*) \(PID (\d+)\)")


def held_by(path: Path) -> str:
    """``"process N (COMMAND)"``: who holds the busy store ``path``, as DuckDB's lock error
    names it (the command line from /proc where it can be read, on one line); "" when it
    does not say (or the store has been let go meanwhile)."""
    import duckdb
    try:
        duckdb.connect(str(path)).close()
    except duckdb.Error as exc:
        found = _HOLDER.search(str(exc))
        if found is None:
            return ""
        program, pid = found.group(1), found.group(2)
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            program = " ".join([Path(args[0].decode(errors="replace")).name,
                                *(a.decode(errors="replace") for a in args[1:])])
        except (OSError, IndexError):
            pass
        program = " ".join(program.split())
        if len(program) > 80:
            program = program[:77] + "..."
        return f"process {pid} ({program})"
    return ""
