"""Consistent copies of a store: ``seasalt backup DEST``, directly or through the service.

A copy is taken while no transaction can write: the write-ahead log is folded into the file
first (``CHECKPOINT``), so the file alone holds every committed event, and the file is
copied before any other write may begin (a process that opens the store for writing holds
DuckDB's lock; the service holds its writer's lock). The copy is written to a temporary
file beside the destination, checked (it opens as a store, with as many events as the
source had), and renamed into place: a failure leaves neither a partial file nor a changed
destination.

The destination may never be the store, its write-ahead log, or a link to either: that is
refused before anything is opened or written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, NamedTuple

import duckdb

from ..digits import is_digits
from ..errors import SeasaltError, StoreBusyError
from ..outputs import foreign_file, fsync_dir
from .store import Store, connect, store_failure, wal_path
from .fetch import one_row, one_value

_COPY_BUFFER = 1 << 20


class StoreIdentity(NamedTuple):
    """What says that a path is the store or its write-ahead log, wherever it is seen from:
    the (device, inode) of the store's directory, of the file and of its log, and its name."""

    directory: tuple[int, int] | None
    name: str
    file: tuple[int, int] | None
    wal: tuple[int, int] | None

    @classmethod
    def of(cls, path: Path) -> "StoreIdentity":
        path = Path(os.path.realpath(path))
        return cls(_ident(path.parent), path.name, _ident(path), _ident(wal_path(path)))

    def header(self) -> str:
        """The identity as one HTTP header value (the service sends it with a backup)."""
        def part(i):
            return f"{i[0]}:{i[1]}" if i else "-"
        return " ".join([part(self.directory), part(self.file), part(self.wal), self.name])

    @classmethod
    def from_header(cls, value: str) -> "StoreIdentity":
        def part(text):
            return None if text == "-" else tuple(int(x) for x in text.split(":"))
        d, f, w, name = value.split(" ", 3)
        return cls(part(d), name, part(f), part(w))


class BackupResult(NamedTuple):
    """A completed backup."""

    path: Path
    games: int
    events: int
    size: int


def check_destination(dest: Path, store: StoreIdentity) -> None:
    """Refuse a destination that is the store, its write-ahead log or a link to either, a
    directory or anything else but a regular file, a file that is not a DuckDB database
    (a log given by mistake), or has a write-ahead log of its own beside it (it would be replayed into
    the copy when it is opened); raise :class:`SeasaltError` saying which."""
    real = Path(os.path.realpath(dest))
    if real.is_dir():
        raise SeasaltError(f"the backup destination {dest} is a directory: name the file to write")
    if real.exists() and not real.is_file():    # renaming over /dev/null would replace it
        raise SeasaltError(f"the backup destination {dest} is not a regular file (a device, "
                           "FIFO or socket): name a file to write")
    parent = _ident(real.parent)
    if parent is None:
        raise SeasaltError(f"the backup destination's directory {real.parent} does not exist")
    if parent == store.directory and real.name in (store.name, store.name + ".wal"):
        what = "the store itself" if real.name == store.name else "the store's write-ahead log"
        via = "" if os.path.normpath(os.path.abspath(dest)) == str(real) else "a link to "
        raise SeasaltError(f"refusing to back up onto {dest}: it is {via}{what}; choose "
                           "another file")
    target = _ident(real)
    if target is not None and target in (store.file, store.wal):
        what = "the store" if target == store.file else "the store's write-ahead log"
        raise SeasaltError(f"refusing to back up onto {dest}: it is a link to {what}; "
                           "choose another file")
    if foreign_file(real):
        raise SeasaltError(f"refusing to back up onto {dest}: it is a file that is not a DuckDB "
                           "database (a backup replaces only an earlier copy); choose another "
                           "file")
    if wal_path(real).exists():
        raise SeasaltError(f"{wal_path(dest)} exists beside the backup destination: it would be "
                           "replayed into the copy; move it away or choose another file")


def backup_store(path: Path, dest: Path) -> BackupResult:
    """Copy the store at ``path`` to ``dest`` (see the module's docstring). The store must not
    be open for writing elsewhere: while ``seasalt serve`` runs, back up through it."""
    path, dest = Path(path), Path(dest)
    if not path.exists():
        raise SeasaltError(f"no store at {path} (import a log first, or pass --db)")
    check_destination(dest, StoreIdentity.of(path))
    try:
        con = connect(path, read_only=False)        # folds the write-ahead log in
    except StoreBusyError as exc:
        raise StoreBusyError(f"{exc}; if `seasalt serve` runs on it, back up through the "
                             "service: seasalt backup DEST --url URL") from None
    source = os.open(path, os.O_RDONLY)     # closed after the store: see copy_while_quiet
    try:
        try:
            con.execute("CHECKPOINT")
            Store._opened(con, path, read_only=True)    # a store this version reads
            events = one_value(con, "SELECT count(*) FROM events")
        except duckdb.Error as exc:
            raise store_failure(path, exc) from None
        return write_copy(dest, lambda sink: _copy_from(source, sink), events)
    finally:
        con.close()
        os.close(source)


def _copy_from(source: int, sink: BinaryIO) -> None:
    """Copy the whole file open as descriptor ``source`` to ``sink``, leaving ``source`` open
    (a process's lock on a file goes with the first close of any descriptor of it)."""
    offset = 0
    while chunk := os.pread(source, _COPY_BUFFER, offset):
        sink.write(chunk)
        offset += len(chunk)


def check_service_url(url: str) -> None:
    """Refuse, in one line, a ``--url`` that is no http(s) URL of a running service."""
    if not url.startswith(("http://", "https://")):
        raise SeasaltError(f"--url takes the service's URL (http://HOST:PORT), not {url!r}")


def backup_from_service(url: str, dest: Path, *, token: str | None = None,
                        timeout: float = 60.0) -> BackupResult:
    """Ask the service at ``url`` for a copy of its store (``POST /backup``) and write it to
    ``dest``. The destination is checked against the store's identity the service sends
    before anything is written."""
    import http.client
    import json
    import urllib.error
    import urllib.request
    dest = Path(dest)
    check_service_url(url)
    endpoint = url.rstrip("/") + "/backup"
    # a JSON body, as every write to a service without a token must send (docs/HTTP.md)
    try:
        request = urllib.request.Request(endpoint, data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read())["detail"]     # the service's problem body
        except Exception:       # not the service's error body
            message = f"HTTP {exc.code} {exc.reason}"
        raise SeasaltError(f"the service at {url} refused the backup: {message}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise SeasaltError(f"cannot reach the service at {url}: {reason}") from None
    with response:
        ident = response.headers.get("X-Seasalt-Store")
        events = response.headers.get("X-Seasalt-Events")
        if ident is None or events is None or not is_digits(events):
            raise SeasaltError(f"{url} did not answer as a seasalt service (no backup headers)")
        check_destination(dest, StoreIdentity.from_header(ident))

        def fill(sink: BinaryIO) -> None:
            try:
                shutil.copyfileobj(response, sink, _COPY_BUFFER)
            except OSError as exc:
                raise SeasaltError(f"the backup from {url} was cut short: {exc}") from None
        return write_copy(dest, fill, int(events))


def copy_while_quiet(con: duckdb.DuckDBPyConnection, path: Path, source: int,
                     directory: Path) -> tuple[Path, int]:
    """For a process that holds the store open for writing (the service), with its writes
    held back by the caller: fold the write-ahead log into the file and copy the file, read
    through ``source`` (a descriptor of it the caller keeps open: closing any descriptor of
    the file would drop the process's lock on the store), to a new temporary file in
    ``directory``. Returns (the copy, the number of events)."""
    con.execute("CHECKPOINT")
    events = one_value(con, "SELECT count(*) FROM events")
    fd, tmp = tempfile.mkstemp(prefix=f".{Path(path).name}.backup-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as sink:
            _copy_from(source, sink)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp), events


def write_copy(dest: Path, fill: Callable[[BinaryIO], None], events: int | None) -> BackupResult:
    """Write a store copy with ``fill(sink)`` into a temporary file beside ``dest``, check
    that it opens as a store (with ``events`` events, when given), and rename it to ``dest``.
    Nothing is left behind on failure."""
    dest = Path(dest)
    real = Path(os.path.realpath(dest))
    try:
        fd, name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as exc:
        raise SeasaltError(f"cannot write the backup beside {dest}: {exc.strerror or exc}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as sink:
            fill(sink)
            sink.flush()
            os.fsync(sink.fileno())
        with Store.open(tmp, read_only=True) as copy:
            games, got = one_row(
                copy.con, "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events)")
        if events is not None and got != events:
            raise SeasaltError(f"the backup is incomplete: {got} events copied, the store had "
                               f"{events}; {dest} was left as it was")
        size = tmp.stat().st_size
        os.replace(tmp, real)
        fsync_dir(real.parent)
    except OSError as exc:
        raise SeasaltError(f"cannot write the backup {dest}: {exc.strerror or exc}") from None
    except duckdb.Error as exc:
        raise SeasaltError(f"the backup could not be checked ({exc}); {dest} was left as "
                           "it was") from None
    finally:
        for leftover in (tmp, wal_path(tmp)):
            try:
                leftover.unlink()
            except FileNotFoundError:
                pass
    return BackupResult(dest, games, got, size)


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
