"""The files and directories a command writes: never the store, never half-written.

Every output path goes through this module. A target is refused, before anything is
opened or truncated, when it is a store or its write-ahead log (``STORE.wal``), a
symbolic or hard link to either, or any existing DuckDB database. A file is written to a
temporary file beside the target and renamed over it only once complete; a directory is
built as a temporary directory beside the target and swapped in the same way. A failure
removes the temporary and leaves the target as it was.

A target that exists and is not a regular file (``/dev/stdout``, ``/dev/null``, a FIFO)
is written in place: there is nothing to replace atomically and nothing to destroy.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator

from .errors import SeasaltError, UsageError

#: a DuckDB database file holds these bytes at offset 8 (after its header checksum)
DUCKDB_MAGIC = b"DUCK"
WAL_SUFFIX = ".wal"

StorePaths = Iterable["str | Path | None"]


def foreign_file(path: str | Path) -> bool:
    """Whether ``path`` is a regular file with something in it that is not a DuckDB
    database (a log, a CSV file, ... given where a store or a copy of one belongs)."""
    return os.path.isfile(path) and os.path.getsize(path) > 0 and not is_duckdb_file(path)


def is_duckdb_file(path: str | Path) -> bool:
    """Whether the file at ``path`` is a DuckDB database (its magic bytes; False when it
    cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(12)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False


def _stat(path: str | Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _protected(stores: StorePaths) -> list[tuple[str, str]]:
    """(what, path) of every store and write-ahead log named by ``stores``."""
    found = []
    for s in stores:
        if s is not None:
            found += [("the store", str(s)), ("the store's write-ahead log", f"{s}{WAL_SUFFIX}")]
    return found


def _same(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` are the same file: the same resolved path (links followed,
    also for files not created yet), or the same device and inode (hard links)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    sa, sb = _stat(a), _stat(b)
    return sa is not None and sb is not None and (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def check_target(target: str | Path, stores: StorePaths = (), *, what: str = "output") -> None:
    """Refuse ``target`` (as :class:`UsageError` naming ``what``, e.g. ``--out``) when it is
    one of ``stores``, its write-ahead log or a link to either, or an existing DuckDB
    database or its write-ahead log. Opens nothing for writing."""
    target = str(target)
    for kind, path in _protected(stores):
        if _same(target, path):
            raise UsageError(f"{what} {target} is {kind} ({path}); refusing to overwrite it: "
                             "choose another file")
    real = os.path.realpath(target)
    if os.path.isfile(real) and is_duckdb_file(real):
        raise UsageError(f"{what} {target} is a DuckDB database; refusing to overwrite it: "
                         "choose another file")
    if real.endswith(WAL_SUFFIX) and is_duckdb_file(real[:-len(WAL_SUFFIX)]):
        raise UsageError(f"{what} {target} is the write-ahead log of the DuckDB database "
                         f"{real[:-len(WAL_SUFFIX)]}; refusing to overwrite it: choose another file")


def check_stdout(stores: StorePaths) -> None:
    """Refuse to run when standard output is redirected into a store or its write-ahead log,
    or into any other DuckDB database (``seasalt export --all >> seasalt.duckdb`` would
    append to the store)."""
    try:
        out = os.fstat(1)
    except OSError:
        return
    if not stat.S_ISREG(out.st_mode):
        return
    for kind, path in _protected(stores):
        st = _stat(path)
        if st is not None and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            raise UsageError(f"standard output is {kind} ({path}); refusing to write into it: "
                             "redirect the output elsewhere")
    if is_duckdb_file("/dev/fd/1"):        # reopened for reading where the system can
        raise UsageError("standard output is a DuckDB database; refusing to write into it: "
                         "redirect the output elsewhere")


def fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (best effort: errors are ignored)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _cannot(target: str | Path, exc: OSError) -> SeasaltError:
    return SeasaltError(f"cannot write {target}: {exc.strerror or exc}")


def _remove(path: str) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


@contextmanager
def atomic_path(target: str | Path, stores: StorePaths = (), *,
                what: str = "output") -> Iterator[Path]:
    """Yield a temporary file path beside ``target`` to write; once the block completes it
    is renamed over ``target`` (through a symbolic link, to the file it names). Refuses a
    target :func:`check_target` refuses; on any failure the temporary file is removed and
    ``target`` is unchanged. An OSError becomes a one-line :class:`SeasaltError`."""
    check_target(target, stores, what=what)
    real = Path(os.path.realpath(target))
    if real.is_dir():
        raise UsageError(f"{what} {target} is a directory; give a file name")
    if real.exists() and not real.is_file():         # a device or FIFO: write in place
        try:
            yield real
        except OSError as exc:
            raise _cannot(target, exc) from None
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        os.close(fd)
    except OSError as exc:
        raise _cannot(target, exc) from None
    try:
        yield Path(tmp)
        old = _stat(real)
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if old else 0o666 & ~_umask())
        check_target(target, stores, what=what)      # nothing has become the store meanwhile
        os.replace(tmp, real)
        fsync_dir(real.parent)                      # the rename itself on disk
    except OSError as exc:
        _remove(tmp)
        raise _cannot(target, exc) from None
    except BaseException:
        _remove(tmp)
        raise


@contextmanager
def atomic_file(target: str | Path, stores: StorePaths = (), *, what: str = "output",
                text: bool = False) -> Iterator[IO]:
    """:func:`atomic_path`, opened: yield a binary (or with ``text``, UTF-8 text) file
    whose content replaces ``target`` once the block completes and the data is on disk."""
    with atomic_path(target, stores, what=what) as tmp:
        with (open(tmp, "w", encoding="utf-8", newline="") if text else open(tmp, "wb")) as fh:
            yield fh
            fh.flush()
            if tmp.is_file():
                os.fsync(fh.fileno())


@contextmanager
def atomic_dir(target: str | Path, stores: StorePaths = (), *, what: str = "output",
               check: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Yield a new empty directory beside ``target`` to fill; once the block completes it
    replaces ``target`` (an existing directory is moved aside, then removed). Missing
    parents of ``target`` are created. Refuses a target that is a store, its write-ahead
    log or a link to either, or a directory holding a store; on any failure the temporary
    directory is removed and ``target`` is unchanged. ``check(target)``, if given, runs
    after these refusals and before anything is created, to refuse more."""
    check_target(target, stores, what=what)
    real = Path(os.path.realpath(target))
    if real.exists() and not real.is_dir():
        raise UsageError(f"{what} {target}: not a directory")
    for kind, path in _protected(stores):
        if os.path.exists(path) and Path(os.path.realpath(path)).is_relative_to(real):
            raise UsageError(f"{what} {target} holds {kind} ({path}); refusing to replace it: "
                             "choose another directory")
    if check is not None:
        check(Path(target))
    above = next(p for p in real.parents if p.exists())
    if not above.is_dir():
        raise UsageError(f"{what} {target}: {above} is not a directory")
    made = [p for p in real.parents if not p.exists()]       # removed again on failure
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as exc:
        _rmdirs(made)
        raise _cannot(target, exc) from None
    aside = None
    try:
        yield Path(tmp)
        old = _stat(real)
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if old else 0o777 & ~_umask())
        if old is not None:
            aside = tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".old", dir=real.parent)
            os.replace(real, aside)
        try:
            os.replace(tmp, real)
        except OSError:
            if aside is not None:
                os.replace(aside, real)
                aside = None
            raise
    except OSError as exc:
        _remove(tmp)
        _rmdirs(made)
        raise _cannot(target, exc) from None
    except BaseException:
        _remove(tmp)
        _rmdirs(made)
        raise
    finally:
        if aside is not None:
            _remove(aside)
    fsync_dir(real.parent)


def _rmdirs(directories: list[Path]) -> None:
    """Remove ``directories`` (deepest first) as far as they are empty."""
    for d in directories:
        try:
            d.rmdir()
        except OSError:
            return
