"""Finding the service that holds a store: ``seasalt serve`` writes ``STORE.serve.json``
beside the store (its URL and process id) once it listens, and removes it when it stops, so
that a reading command that finds the store busy can ask the service instead.

A file left by a service that did not stop cleanly is stale: its process is gone, or the
URL does not answer ``/health`` with that process id. Stale files are ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import msgspec

#: seconds a reading command waits for the found service's /health
PROBE_TIMEOUT = 2.0


class Discovery(msgspec.Struct, frozen=True):
    """What ``STORE.serve.json`` holds."""

    url: str          # where to reach the service, e.g. http://127.0.0.1:8421
    pid: int          # the service's process


def discovery_path(store: Path) -> Path:
    """``STORE.serve.json``, beside the store."""
    return store.with_name(store.name + ".serve.json")


def client_url(host: str, port: int) -> str:
    """The URL a client on this machine uses for a service listening on ``host``:``port``
    (a wildcard address is reached on loopback)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def announce(store: Path, url: str) -> Path:
    """Write the discovery file of ``store`` for this process (atomically); returns it."""
    path = discovery_path(store)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(msgspec.json.encode(Discovery(url=url, pid=os.getpid())))
    os.replace(tmp, path)
    return path


def withdraw(store: Path) -> None:
    """Remove the discovery file of ``store`` if this process wrote it."""
    path = discovery_path(store)
    with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
        if msgspec.json.decode(path.read_bytes(), type=Discovery).pid == os.getpid():
            path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:          # another user's process: it exists
        return True
    except (OSError, ValueError, OverflowError):
        return False
    return True


def find(store: Path) -> Discovery | None:
    """The running service that announced itself for ``store``, or None (no file, a
    malformed one, or a stale one: the process is gone or the URL does not answer as it)."""
    try:
        found = msgspec.json.decode(discovery_path(store).read_bytes(), type=Discovery)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if found.pid <= 0 or not _alive(found.pid):
        return None
    try:
        req = urllib.request.Request(found.url.rstrip("/") + "/health",
                                     headers={"Accept": "application/json"})
        with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT) as r:
            health = json.loads(r.read())
    except urllib.error.HTTPError as exc:       # 503 writer_stopped: it still answers reads
        try:
            health = json.loads(exc.read()) if exc.code == 503 else None
        except (OSError, ValueError):
            return None
    except (OSError, ValueError):
        return None
    return found if isinstance(health, dict) and health.get("pid") == found.pid else None
