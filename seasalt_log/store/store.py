"""The DuckDB event store: append-only streams keyed ``(game_id, seq)``, with read models
written in the same transaction.

There is no update or delete path for events here, and the table's triggers refuse them.
"""

from __future__ import annotations

import re
import threading
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

import duckdb
import msgspec

from .. import events as ev
from ..arrow_text import string_bytes
from ..engine import State
from ..errors import (SeasaltError, StoreBusyError, StoreDamagedError,
                      UnknownGameError)
from ..outputs import foreign_file
from ..replay import replay_stored
from .appenders import Appenders
from .checked import record_games, table_sizes
from .game_texts import GameTexts
# the events' rows and hash chain, named here as well: the store's API before they moved
from .event_table import HASH_BYTES as HASH_BYTES, Row as Row, chain as chain
from .event_table import event_columns as event_columns, event_rows as event_rows
from .event_table import genesis_hash as genesis_hash
from .format3 import Game, checked, format3_links, relinked_commits, stored_games
from .projections import TABLES, project
from .rebuild import migrate_projections
from .literals import sql_identifier, sql_literal
from .sandbox import check_sql, file_access_refused, locked, query_failed, sandbox
from .heads import FILL_HEADS, advance, commit_conflict
from .schema import EVENTS_DDL, SCHEMA_VERSION
from .fetch import first_row, one_value

if TYPE_CHECKING:
    from .arrow_rows import StagedRows

_SAFE_SETTINGS = ("SET autoinstall_known_extensions = false", "SET autoload_known_extensions = false")


#: the block size of a new store file (DuckDB's default is 256 KiB). A table's data takes
#: whole blocks: at 64 KiB the small read models no longer hold a quarter MiB each, and a
#: store of 1,000 games is 17 % smaller; larger stores are about the same (bench/RESULTS.md,
#: "Against a plain SQLite store"). A file keeps the block size it was made with.
BLOCK_SIZE = 64 * 1024

#: rows per row group of the tables a read-write connection writes (DuckDB's default is
#: 122,880). A transaction's full row groups are written while it loads them, the rest at
#: its COMMIT: with smaller groups an import's COMMIT, after its last check, has less left
#: to compress and write, and what it leaves in the write-ahead log is checkpointed as the
#: store closes (bench/RESULTS.md, "The import's COMMIT and the row group size"). The size
#: is an option of the attach (:func:`_writable`), not kept in the file: a plain
#: ``duckdb.connect(file)`` reads the store as it is, and writes 122,880-row groups.
ROW_GROUP_SIZE = 16_384



def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[Row]) -> None:
    """Insert rows: a few with one INSERT (cheaper than an appender for a row or two), more
    through DuckDB's appender."""
    if not rows:
        return
    if len(rows) <= 3:
        one = "(" + ", ".join("?" * len(rows[0])) + ")"
        con.execute(f"INSERT INTO {table} VALUES " + ", ".join([one] * len(rows)),
                    [v for r in rows for v in r])
    else:
        with con.appender(table) as a:
            a.append_rows(rows)


_DIGITS = re.compile(r"(\d+)")


def natural_key(game_id: str) -> tuple[str | int, ...]:
    """A sort key that orders the numbers inside ids by value: sim-1-2 before sim-1-10."""
    return tuple(int(p) if i % 2 else p for i, p in enumerate(_DIGITS.split(game_id)))


def wal_path(path: Path) -> Path:
    """The store's write-ahead log: committed transactions not yet in the file."""
    return path.with_name(path.name + ".wal")


def connect(path: Path, *, read_only: bool, config: dict[str, Any] | None = None,
            create: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to the store file, or a one-line :class:`SeasaltError`: no store
    (read-only, or ``create`` False), the store busy (:class:`StoreBusyError`), damaged
    (:class:`StoreDamagedError`), or any other failure to open.

    The write-ahead log is folded into the file first, so that the file alone holds every
    committed transaction after any command: a read-write open checkpoints when a log is
    there; a read-only open first tries a short read-write open to do the same, and when it
    cannot (another process reads the store, or the file is not writable) DuckDB replays
    the log in memory and leaves the file for the next writer."""
    if (read_only or not create) and not path.exists():
        raise SeasaltError(f"no store at {path} (import a log first, or pass --db)")
    if path.is_dir():
        raise StoreDamagedError(f"the store {path} is a directory, not a DuckDB file")
    if path.is_file() and path.stat().st_size == 0:
        # DuckDB would open an empty file named *.jsonl, *.csv, ... as an in-memory database
        # and lose every write; an empty *.duckdb it refuses: the same words for both
        raise StoreDamagedError(f"the store {path} is an empty file; it is not a seasalt store")
    if foreign_file(path):
        # DuckDB would open a CSV, JSON or Parquet file as an in-memory database over it
        raise StoreDamagedError(f"the store {path} is not a DuckDB database; it is not a "
                                "seasalt store")
    wal = wal_path(path)
    if read_only and wal.exists():
        try:
            fold = duckdb.connect(str(path), read_only=False)
        except duckdb.Error:
            pass            # busy, read-only file or damaged: the read-only open says which
        else:
            try:
                fold.execute("CHECKPOINT")
            except duckdb.Error:
                pass
            finally:
                fold.close()
    if not read_only and not path.exists():
        if not path.parent.is_dir():
            raise SeasaltError(f"cannot create the store {path}: no directory {path.parent}")
        create_file(path)
    try:
        con = (duckdb.connect(str(path), read_only=True, config=config or {}) if read_only
               else _writable(path, config or {}))
    except duckdb.Error as exc:
        if isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower():
            raise StoreBusyError(
                f"the store {path} is busy: {lock_holder(exc) or 'another process'} has it "
                "open (one process may write to a store, or several may read it, never both "
                "at once); try again when it has finished") from None
        if "unique file handle conflict" in str(exc).lower():   # see _writable
            # not StoreBusyError (another process): this process's own hold, which an
            # interrupted import's clean-up may still meet as it removes the store it made
            raise SeasaltError(
                f"the store {path} is open for writing in this process (the library's "
                "read-write Store); read it through that Store while it is open") from None
        raise store_failure(path, exc) from None
    if not read_only and wal.exists():
        try:
            con.execute("CHECKPOINT")
        except duckdb.Error as exc:
            con.close()
            raise store_failure(path, exc) from None
    return con


#: DuckDB's lock error names the process holding the file (on the systems that say it)
_HOLDER = re.compile(r"Conflicting lock is held in (.*) \(PID (\d+)\)")


def lock_holder(exc: duckdb.Error) -> str:
    """``"process N (COMMAND)"``: who holds a store, as DuckDB's lock error ``exc`` names
    it (the command line from /proc where it can be read, on one line); "" when it does not
    say."""
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


def _writable(path: Path, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    """A read-write connection to the store file attached with :data:`ROW_GROUP_SIZE`, as
    the default database of its DuckDB instance, under the name ``duckdb.connect(path)``
    gives it (the file's stem): users' SQL sees the same catalog. The instance is DuckDB's
    named in-memory database for the file, so that every read-write open of the file in
    this process shares it as plain connections of the file share theirs; when the file
    is open by a plain connection in this process already, or its stem is ``memory`` (the
    in-memory database's own name), the connection is a plain one."""
    key = str(path.resolve())
    with _LOCKS_GUARD:
        lock = _ATTACHING.setdefault(key, threading.Lock())
    with lock:          # two threads' first opens of a file: one attaches, the other shares
        return _attached(path, config)


#: a lock per store file (by resolved path) around its first attach in this process: opens
#: of other stores do not wait for one store's (a long write-ahead log's replay)
_ATTACHING: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _attached(path: Path, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:seasalt:" + str(path.resolve()), config=config)
    try:
        if one_value(con, "SELECT current_database()") != "memory":
            return con          # the file is attached in this instance already
        try:
            con.execute(attach_statement(path))
        except duckdb.Error as exc:
            text = str(exc).lower()     # DuckDB's names are case-insensitive: "Memory"
            if "unique file handle conflict" in text or '"memory" already exists' in text:
                con.close()
                return duckdb.connect(str(path), read_only=False, config=config)
            raise
        name = one_value(con, "SELECT database_name FROM duckdb_databases() "
                              "WHERE NOT internal AND path IS NOT NULL")
        con.execute(f"USE {sql_identifier(name)}")
        con.execute("DETACH memory")    # the store becomes the default of new connections
        if "temp_directory" not in config:      # where a plain connection of the file spills
            con.execute(f"SET temp_directory = {sql_literal(str(path) + '.tmp')}")
    except BaseException:
        con.close()
        raise
    return con


def attach_statement(path: Path, alias: str | None = None) -> str:
    """The ATTACH of a store file (``AS alias`` when given; else DuckDB names it by the
    file's stem) that a read-write connection writes through: :data:`ROW_GROUP_SIZE`."""
    as_alias = f" AS {sql_identifier(alias)}" if alias is not None else ""
    return f"ATTACH {sql_literal(path)}{as_alias} (ROW_GROUP_SIZE {ROW_GROUP_SIZE})"


def create_file(path: Path) -> None:
    """Make ``path`` an empty DuckDB file with :data:`BLOCK_SIZE` blocks. The file says its
    block size, so every connection opens it with DuckDB's default configuration (DuckDB
    refuses a second connection to a file open in the process with another one). A
    failure here is left to the open that follows, which words it."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {sql_literal(path)} AS new_store (BLOCK_SIZE {BLOCK_SIZE})")
        con.execute("DETACH new_store")
    except duckdb.Error:
        pass
    finally:
        con.close()


def store_failure(path: Path, exc: Exception) -> SeasaltError:
    """The one-line error for a DuckDB failure to open or read the store at ``path``:
    :class:`StoreDamagedError` naming the file at fault when the file or its write-ahead
    log is damaged (:func:`damage_error`), else a plain :class:`SeasaltError`."""
    return damage_error(path, exc) or SeasaltError(f"cannot open the store {path}: {_first_line(exc)}")


def damage_error(path: Path, exc: Exception) -> StoreDamagedError | None:
    """:class:`StoreDamagedError` saying what is wrong with the store at ``path`` or its
    write-ahead log when DuckDB's error ``exc`` says one of them is damaged, else None."""
    text = _first_line(exc)
    low = text.lower()
    wal = wal_path(path)
    if "wal" in low and ("replay" in low or "does not match" in low):
        return StoreDamagedError(
            f"the write-ahead log {wal} does not belong to the store {path} or is damaged "
            f"({text}); the store cannot be opened with it: keep both files, and open a copy "
            "of the store without it to read what the file itself holds")
    if "not a valid duckdb database" in low:
        what = "an empty file" if path.is_file() and path.stat().st_size == 0 else "not a DuckDB database"
        return StoreDamagedError(f"the store {path} is {what}; it is not a seasalt store")
    if "is a directory" in low:
        return StoreDamagedError(f"the store {path} is a directory, not a DuckDB file")
    if ("corrupt" in low or "checksum" in low or "could not read enough bytes" in low
            or "serializ" in low or isinstance(exc, (duckdb.InternalException,
                                                     duckdb.SerializationException))):
        return StoreDamagedError(f"the store {path} is damaged (truncated or overwritten): "
                                 f"{text}; restore it from a backup (`seasalt backup`)")
    return None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Store:
    """One DuckDB file. Use :meth:`open`; close it (or use ``with``) when done."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path, read_only: bool):
        self.con = con
        self.path = path
        self.read_only = read_only
        #: game id -> game number, as far as known (a number never changes once stored)
        self._numbers: dict[str, int] = {}
        self._all_numbers = False       # every stored game's number is in _numbers
        self._next: int | None = None   # the next number to give a new game
        self._staged: StagedRows | None = None  # rows of :meth:`load` not inserted yet
        self._loaded: list[str] = []            # games :meth:`load` stored whole, to vouch for
        #: where each table's rows ended before the open transaction's loads (see
        #: :meth:`expect_loads`); None: found at the first load
        self._sizes: dict[str, int] | None = None
        self._texts: GameTexts | None = None    # read-only: games' texts kept in memory
        self._reads = 0                         # games read from the file before that
        self._appenders: Appenders | None = None    # kept across commits (the service)

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False, create: bool = True) -> "Store":
        """Open (and for writing, create or migrate) the store at ``path``; with ``create``
        False a missing store is refused as a read-only open refuses it.

        The write-ahead log is folded into the file first (see :func:`connect`). Raises
        :class:`StoreBusyError` when another process holds the file,
        :class:`StoreDamagedError` when the file or its write-ahead log cannot be read, and
        :class:`SeasaltError` when a read-only store is missing or not a store of this format.
        """
        path = Path(path)
        con = connect(path, read_only=read_only, create=create)
        try:
            return cls._opened(con, path, read_only)
        except duckdb.Error as exc:
            con.close()
            raise store_failure(path, exc) from None

    @classmethod
    def _opened(cls, con: duckdb.DuckDBPyConnection, path: Path, read_only: bool) -> "Store":
        if not locked(con):     # else sandboxed by Store.sql: these are set, and can't be
            for sql in _SAFE_SETTINGS:
                con.execute(sql)
        store = cls(con, path, read_only)
        if not read_only:
            store._migrate()
        elif not store._has_table("events"):
            empty = not one_value(con, "SELECT count(*) FROM duckdb_tables()")
            con.close()
            if empty:       # created, but its first import never committed (or was killed)
                raise SeasaltError(f"the store {path} is empty: nothing has been imported into "
                                   "it yet (run `seasalt import`)")
            raise SeasaltError(f"{path} is not a seasalt store (no events table)")
        elif (fmt := _stored_format(con)) != str(SCHEMA_VERSION):
            con.close()
            _migration(path, fmt)
            raise SeasaltError(
                f"the store {path} is in format {fmt}, this version reads format "
                f"{SCHEMA_VERSION}: run `seasalt rebuild --db {path}` once to bring it up to "
                "date (any command that writes to it does)")
        return store

    def _has_table(self, name: str) -> bool:
        return bool(one_value(self.con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?",
                         [name]))

    def _migrate(self) -> None:
        con = self.con
        con.execute("BEGIN")
        try:
            fmt = _stored_format(con) if self._has_table("store_meta") else None
            if fmt is not None and fmt != str(SCHEMA_VERSION):
                _migration(self.path, fmt)(con)
            con.execute(EVENTS_DDL)
            migrate_projections(con)
            con.execute("INSERT INTO store_meta SELECT 'schema_version', ? WHERE NOT EXISTS "
                        "(SELECT 1 FROM store_meta WHERE key = 'schema_version')", [str(SCHEMA_VERSION)])
            con.execute("COMMIT")
        except Exception:
            # (a statement stopped by Ctrl-C may have ended the transaction already: the
            # ROLLBACK's own failure must not hide why)
            self.abandon()
            raise

    def close(self) -> None:
        if self._appenders is not None:
            self._appenders.drop()
        self.con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ reading

    def heads(self) -> dict[str, int]:
        """Every stored game's last seq, from the ``games`` read model (written in the same
        transaction as the events; reading it is instant where grouping every event is not).
        Should it ever be wrong, the ``heads`` table still refuses a second write."""
        return dict(self.con.execute("SELECT game_id, events FROM games").fetchall())

    def head(self, game_id: str) -> tuple[int, int | None]:
        """(last seq, the chain hash through it) of a game; (0, None) when it is not stored."""
        row = first_row(self.con, "SELECT seq, hash FROM commits WHERE game_id = ? ORDER BY seq "
                        "DESC LIMIT 1", [game_id])
        return (row[0], row[1]) if row else (0, None)

    def unknown_game(self, game_id: str) -> UnknownGameError:
        """The error for ``game_id``, which this store does not have, naming up to three
        stored ids the user may have meant: those it begins, then the closest spellings
        (an empty id begins every id and is spelt like none: it names none)."""
        near = self.con.execute(
            "SELECT game_id FROM (SELECT game_id, $id <> '' AND starts_with(game_id, $id) "
            "AS prefix, "
            "jaro_winkler_similarity(lower(game_id), lower($id)) AS alike FROM heads) "
            "WHERE prefix OR alike >= 0.85 ORDER BY prefix DESC, alike DESC, game_id LIMIT 3",
            {"id": game_id}).fetchall()
        return UnknownGameError(game_id, [r[0] for r in near])

    def number(self, game_id: str) -> int | None:
        """The game's number in this store (``events.game``), None if it is not stored.

        Numbers are remembered: the first lookup asks for one game, the second loads every
        game's (a process that reads many games pays one query, a one-off read no more
        than it needs); a game stored since by another connection is asked for again."""
        n = self._numbers.get(game_id)
        if n is not None:
            return n
        if not self._all_numbers and self._numbers:
            self._numbers.update(self.con.execute(
                "SELECT game_id, min(game) FROM commits GROUP BY game_id").fetchall())
            self._all_numbers = True
            n = self._numbers.get(game_id)
            if n is not None:
                return n
        row = first_row(self.con, "SELECT game FROM commits WHERE game_id = ? LIMIT 1", [game_id])
        if row is None:
            return None
        number: int = row[0]
        self._numbers[game_id] = number
        return number

    def assign(self, game_id: str) -> int:
        """The number of a game about to be written: its own if stored, else a new one.

        Only the store's one writer assigns: once it knows every stored game's number, a
        game it does not know is new (no query per new game)."""
        n = self._numbers.get(game_id)
        if n is None and not self._all_numbers:
            n = self.number(game_id)
        if n is None:
            n = self.reserve(1)
            self._numbers[game_id] = n
        return n

    def reserve(self, count: int) -> int:
        """The first of ``count`` new game numbers, never given out before by this store
        object (numbers of writes rolled back are not given again: gaps are harmless)."""
        if self._next is None:
            self._next = self.con.execute("SELECT coalesce(max(game), 0) + 1 FROM commits"
                                          ).fetchall()[0][0]
        first = self._next
        self._next += count
        return first

    def read_texts(self, game_id: str, after: int = 0) -> list[str]:
        """The stored JSON text of a game's events with seq > ``after``, in order (sorted
        here: cheaper than asking DuckDB to).

        The game is found by its number: the events of a game are written together, so the
        number's min/max statistics let DuckDB skip every other row group (its string
        statistics keep 8 bytes, too few to tell ids apart). A store opened read-only reads
        its first game so; from the second on, it reads a block of games at once and keeps
        them in memory (:mod:`.game_texts`: a one-off read pays one small query, a process
        reading many games no query per game)."""
        n = self.number(game_id)
        if n is None:
            if after == 0:
                raise self.unknown_game(game_id)
            return []
        if self.read_only:
            kept = self._kept_texts(n)
            if kept is not None:
                return kept[after:] if after else kept
        if after:
            rows = self.con.execute("SELECT seq, event FROM events WHERE game = ? AND seq > ?",
                                    [n, after]).fetchall()
        else:
            rows = self.con.execute("SELECT seq, event FROM events WHERE game = ?", [n]).fetchall()
        if not rows and after == 0:
            raise self.unknown_game(game_id)
        rows.sort()
        return [r[1] for r in rows]

    def _kept_texts(self, n: int) -> list[str] | None:
        """Game ``n``'s texts from the in-memory copy, made at the second read; None: read
        the file."""
        if self._texts is None:
            self._reads += 1
            if self._reads < 2:
                return None
            self._texts = GameTexts()
        return self._texts.texts(self.con, n)

    def iter_texts(self, game_ids: Sequence[str], batch: int = 65_536,
                   games_per_query: int = 10_000) -> Iterator[list[str]]:
        """The stored JSON text of every event of ``game_ids``, games in the order given and
        each game's events in seq order, yielded ``batch`` events at a time. One ordered
        query reads ``games_per_query`` games (DuckDB sorts what it reads, so this bounds
        the memory however many games). Raises :class:`UnknownGameError` for the first id
        the store does not have, before anything is yielded."""
        for chunk in self._event_batches(game_ids, "e.event", batch, games_per_query):
            yield chunk.column(0).to_pylist()

    def iter_lines(self, game_ids: Sequence[str], batch: int = 65_536,
                   games_per_query: int = 10_000) -> Iterator[memoryview]:
        """:meth:`iter_texts` as UTF-8 bytes, each event's JSON followed by a newline: the
        bytes of ``seasalt export``, in blocks of ``batch`` events. Each block is the data
        buffer of an Arrow string array, handed on without a Python object per event."""
        for chunk in self._event_batches(game_ids, "e.event || chr(10)", batch,
                                         games_per_query):
            yield string_bytes(chunk.column(0))

    def _event_batches(self, game_ids: Sequence[str], column: str, batch: int,
                       games_per_query: int) -> Iterator[Any]:
        """Arrow record batches of the one ``column`` (an SQL expression over the events
        table ``e``) for :meth:`iter_texts` and :meth:`iter_lines`."""
        ids = list(game_ids)
        known = {r[0] for r in self.con.execute(
            "SELECT game_id FROM games WHERE game_id IN (SELECT unnest(?))", [ids]).fetchall()}
        for gid in ids:
            if gid not in known:
                raise self.unknown_game(gid)
        numbers = dict(self.con.execute(
            "SELECT game_id, min(game) FROM commits WHERE game_id IN (SELECT unnest(?)) "
            "GROUP BY game_id", [ids]).fetchall())
        for start in range(0, len(ids), games_per_query):
            part = ids[start:start + games_per_query]
            # the games' numbers bound the row groups read (events.game: see read_texts)
            found = [numbers[g] for g in part if g in numbers]
            lo, hi = (min(found), max(found)) if len(found) == len(part) else (None, None)
            yield from self.con.cursor().sql(
                f"SELECT {column} FROM events e JOIN (SELECT unnest($ids) AS game_id, "
                "generate_subscripts($ids, 1) AS pos) o USING (game_id) "
                "WHERE $lo IS NULL OR e.game BETWEEN $lo AND $hi ORDER BY o.pos, e.seq",
                params={"ids": part, "lo": lo, "hi": hi}).to_arrow_reader(batch)

    def read_json(self, game_id: str, after: int = 0) -> list[bytes]:
        """The stored JSON of a game's events with seq > ``after``, in order."""
        return [t.encode() for t in self.read_texts(game_id, after)]

    def read_events(self, game_id: str, after: int = 0) -> list[ev.Event]:
        """A game's events (derived ones included) with seq > ``after``."""
        decode = ev.decode
        return [decode(t) for t in self.read_texts(game_id, after)]

    def iter_games(self, games: int = 2000) -> Iterator[tuple[str, list[str]]]:
        """``(game_id, its events' JSON in seq order)`` for every stored game, in the order
        the games were first written (their numbers): :meth:`read_texts` of every game,
        with one query per ``games`` games instead of one per game."""
        ids = dict(self.con.execute("SELECT game, game_id FROM commits").fetchall())
        numbers = sorted(ids)
        for i in range(0, len(numbers), games):
            lo, hi = numbers[i], numbers[min(i + games, len(numbers)) - 1]
            rows = self.con.execute("SELECT game, seq, event FROM events WHERE game BETWEEN ? "
                                    "AND ?", [lo, hi]).fetchall()
            rows.sort()
            for n, group in groupby(rows, itemgetter(0)):
                yield ids[n], [r[2] for r in group]

    def replay(self, game_id: str, *, round: int | None = None, turn: int | None = None,
               seq: int | None = None) -> State:
        """The state of a stored game at one point, as :func:`seasalt_log.replay.replay`
        names it (``seq=N``: after the N-th event; ``round=R, turn=T``: after that turn;
        ``round=R``: after the round's last event; nothing: now). After a turn, only that
        round's events are decoded and folded (:func:`~seasalt_log.replay.replay_stored`)."""
        return replay_stored(self.read_texts(game_id), round=round, turn=turn, seq=seq,
                             game_id=game_id)

    def sql(self, query: str, params: Sequence[object] | dict[str, object] | None = None
            ) -> duckdb.DuckDBPyRelation:
        """One reading statement over the store as a DuckDB relation (``.fetchall()``,
        ``.df()``, ``.pl()``, ``.arrow()``, or more SQL on it), on this read-only store's
        connection locked as ``seasalt query`` locks its own (:mod:`.sandbox`: one reading
        statement, no file access; from the first call on, this connection can no longer
        read or write files). Raises :class:`QueryRefusedError` (not one reading statement,
        or a file read or written) or :class:`QueryError` (DuckDB cannot bind it); the
        relation is lazy, so an error met while computing the rows (a failed cast) is
        DuckDB's own ``duckdb.Error``, raised when the relation is read. ``.df()`` needs
        pandas and ``.pl()`` polars, which the package does not depend on."""
        if not self.read_only:
            raise SeasaltError("Store.sql reads a store opened read-only: "
                               "Store.open(path, read_only=True)")
        sandbox(self.con)
        check_sql(self.con, query)
        try:
            return self.con.cursor().sql(query, params=params)  # a cursor each: relations
                                                                 # may be read in any order
        except duckdb.PermissionException as exc:
            raise file_access_refused(exc) from None
        except duckdb.Error as exc:
            raise query_failed(exc) from None

    def game_ids(self) -> list[str]:
        """Every stored game's id, numbers inside ids in numeric order (sim-1-2 before sim-1-10)."""
        return sorted((r[0] for r in self.con.execute("SELECT game_id FROM games").fetchall()),
                      key=natural_key)

    def exists(self, game_id: str) -> bool:
        return bool(one_value(self.con, "SELECT count(*) FROM games WHERE game_id = ?", [game_id]))

    # ------------------------------------------------------------ writing

    def begin(self) -> None:
        self.con.execute("BEGIN")

    def appenders(self) -> Appenders:
        """This connection's appenders kept across transactions (see
        :mod:`~seasalt_log.store.appenders`); made on first use."""
        if self._appenders is None:
            self._appenders = Appenders(self.con)
        return self._appenders

    def commit(self) -> None:
        self.finish_loads()
        self._vouch()
        try:
            self.con.execute("COMMIT")
        except duckdb.TransactionException as exc:  # another writer stored the game first
            raise commit_conflict(exc) or exc from None

    def rollback(self) -> None:
        if self._staged is not None:
            self._staged.discard()
        self._loaded, self._sizes = [], None
        try:
            self.con.execute("ROLLBACK")
        except duckdb.TransactionException as exc:
            if "no transaction is active" not in str(exc):
                raise           # else a refused COMMIT has ended the transaction already

    def abandon(self) -> None:
        """Roll back whatever transaction is open, if any, after a failure (Ctrl-C
        included) that already has its error: a failure of the rollback itself is
        dropped, as closing the connection rolls back too."""
        try:
            self.rollback()
        except duckdb.Error:
            pass

    def write(self, batch: Iterable["GameWrite"]) -> int:
        """Append events and replace projection rows for each game of ``batch``, inside the
        caller's transaction. Returns the number of events appended.

        A game whose head is not where its write starts (another writer got there first)
        raises :class:`StreamConflictError`; the caller rolls back. Rows :meth:`load` staged
        go in first (each table's rows keep their order).
        """
        self.finish_loads()
        event_rows_all: list[Row] = []
        commit_rows: list[Row] = []
        proj: dict[str, list[Row]] = {t: [] for t in TABLES}
        replaced: list[str] = []
        moves: list[tuple[str, int, int]] = []
        for w in batch:
            moves.append((w.game_id, w.commit_row[2] - len(w.event_rows), w.commit_row[2]))
            event_rows_all.extend(w.event_rows)
            commit_rows.append(w.commit_row)
            if w.replace_projections:
                replaced.append(w.game_id)
            for t, rows in w.projection_rows.items():
                proj[t].extend(rows)
        con = self.con
        advance(con, moves)
        if replaced:
            con.execute("CREATE OR REPLACE TEMP TABLE _replaced (game_id VARCHAR)")
            with con.appender("_replaced") as a:
                a.append_rows([(g,) for g in replaced])
            for t in TABLES:
                con.execute(f"DELETE FROM {t} WHERE game_id IN (SELECT game_id FROM _replaced)")
        insert_rows(con, "events", event_rows_all)   # the heads moved above keep seqs unique
        insert_rows(con, "commits", commit_rows)
        for t, rows in proj.items():
            if rows:
                insert_rows(con, t, rows)
        return len(event_rows_all)


    def load(self, files: dict[str, str], games: Sequence[str], skip: Iterable[str] = ()) -> None:
        """Append the rows of Arrow IPC files (store table -> file, in the table's columns;
        see :class:`~seasalt_log.store.arrow_rows.RowSink`) inside the caller's transaction,
        leaving out the games ``skip``. ``games`` are the ids of the files' games in order:
        their rows number them 0, 1, ... and they get new numbers here.

        The rows of several loads go in together (see
        :class:`~seasalt_log.store.arrow_rows.StagedRows`): call :meth:`finish_loads` after
        each load, or loads; the rows of the small tables wait for :meth:`commit` (a
        rollback forgets them). An error of the rows, such as a game stored already (its
        ``heads`` key), comes from this, from :meth:`finish_loads` or from :meth:`commit`."""
        from .arrow_rows import StagedRows, read_file, renumbered
        if self._staged is None:
            self._staged = StagedRows(self.con)
        skip = set(skip)
        if self._sizes is None:
            self._sizes = table_sizes(self.con)
        base = self.reserve(len(games))
        for t in ("events", "commits", *TABLES):
            if t in files:
                rows = renumbered(read_file(files[t]), base, skip)
                self._staged.add(t, rows)
                if t == "commits":      # new games: their heads' keys refuse stored ones
                    self._staged.add("heads", rows.select(["game_id", "seq"]))
        self._numbers.update((g, base + i) for i, g in enumerate(games) if g not in skip)
        self._loaded.extend(g for g in games if g not in skip)

    def finish_loads(self, every: bool = True) -> None:
        """Insert the rows of :meth:`load` still staged; unless ``every``, only those of
        the large tables (see :meth:`~seasalt_log.store.arrow_rows.StagedRows.flush`): the
        others wait for :meth:`commit`, which inserts them before it commits."""
        if self._staged is not None:
            self._staged.flush(every)

    def expect_loads(self) -> None:
        """Find where each table's rows end now, before an import's first :meth:`load`,
        rather than at that load, while the import's checks keep every CPU busy
        (:func:`~seasalt_log.store.checked.table_sizes`). Only until a commit or rollback:
        the writes an import makes of single games before its loads are committed first."""
        self._sizes = table_sizes(self.con)

    def _vouch(self) -> None:
        """Record in ``checked_games`` the games :meth:`load` stored whole in this
        transaction, with the sums of their rows (see
        :mod:`~seasalt_log.store.checked`)."""
        loaded, self._loaded = self._loaded, []
        sizes, self._sizes = self._sizes, None
        if loaded and sizes is not None:
            record_games(self.con, loaded, sizes)


class GameWrite(msgspec.Struct):
    """What one game adds to the store in a write."""

    game_id: str
    event_rows: list[Row]
    commit_row: Row             # the commits table's row: the write's chain link
    projection_rows: dict[str, list[Row]]
    replace_projections: bool


def plan_write(game_id: str, game: int, events: Sequence[ev.Event], states: Sequence[State], *,
               stored: int = 0,
               prev_hash: int | None = None) -> GameWrite:
    """The rows to write for a checked game numbered ``game`` of which ``stored`` events
    are already stored (``prev_hash``: the chain link of the write that stored the last of
    them)."""
    rows, h = event_rows(game_id, game, events, states, start=stored, prev_hash=prev_hash)
    return GameWrite(game_id=game_id, event_rows=rows, commit_row=(game_id, game, len(events), h),
                     projection_rows=project(game_id, events, states),
                     replace_projections=stored > 0)


def _migration(path: Path, fmt: str | None) -> Callable[[duckdb.DuckDBPyConnection], None]:
    """The function that brings a store of an older format ``fmt`` to this one; a format
    this version does not know is an error."""
    if fmt not in _MIGRATED:
        raise SeasaltError(f"the store {path} is in format {fmt}, which this version of "
                           f"seasalt does not know (it reads format {SCHEMA_VERSION}): use "
                           "the version that wrote it, or a newer one")
    return _MIGRATED[fmt]


def _stored_format(con: duckdb.DuckDBPyConnection) -> str | None:
    row = first_row(con, "SELECT value FROM store_meta WHERE key = 'schema_version'")
    return str(row[0]) if row else None


def migrate_v1(con: duckdb.DuckDBPyConnection) -> None:
    """Turn a store of format 1 into this format, inside the caller's transaction, once
    its chain is checked at every event (:func:`_check_v1_chain`): games are numbered in
    the order they were first written, each game's last chain hash becomes its one
    ``commits`` row (format 1 kept one per event), the events lose their hash column and
    their key (``heads`` takes its place); :func:`_relink` follows (the chain checked
    already is not checked again); the read models are then rebuilt (their version changed
    too)."""
    for op in ("update", "delete"):
        con.execute(f"DROP TRIGGER IF EXISTS events_refuse_{op} ON events")
    _check_v1_chain(con)
    con.execute("ALTER TABLE events RENAME TO events_v1")
    con.execute(EVENTS_DDL)
    con.execute("""CREATE TEMP TABLE _numbers AS
        SELECT game_id, row_number() OVER (ORDER BY min(rowid)) AS game
        FROM events_v1 GROUP BY game_id""")
    con.execute("""INSERT INTO events BY NAME
        SELECT e.* EXCLUDE (hash), n.game FROM events_v1 e JOIN _numbers n USING (game_id)
        ORDER BY n.game, e.seq""")
    con.execute("""INSERT INTO commits BY NAME
        SELECT e.game_id, n.game, e.seq, e.hash FROM events_v1 e JOIN _numbers n USING (game_id)
        JOIN (SELECT game_id, max(seq) AS seq FROM events_v1 GROUP BY game_id) USING (game_id, seq)
        ORDER BY n.game""")
    con.execute("DROP TABLE events_v1")
    con.execute("DROP TABLE _numbers")
    con.execute(FILL_HEADS)
    # every event's link checked above: the writes made of them are relinked unchecked
    _relink(con, stored_games(con, SCHEMA_VERSION))


def migrate_v2(con: duckdb.DuckDBPyConnection) -> None:
    """Turn a store of format 2 into format 3, inside the caller's transaction: the events
    table is copied into one without the ``(game_id, seq)`` key (DuckDB cannot drop a key;
    the copy keeps the rows in game order), and ``heads`` gets each game's last seq from
    ``commits``. :func:`migrate_v3` follows."""
    for op in ("update", "delete"):
        con.execute(f"DROP TRIGGER IF EXISTS events_refuse_{op} ON events")
    con.execute("ALTER TABLE events RENAME TO events_v2")
    con.execute(EVENTS_DDL)
    con.execute("INSERT INTO events SELECT * FROM events_v2 ORDER BY game, seq")
    con.execute("DROP TABLE events_v2")
    con.execute(FILL_HEADS)
    migrate_v3(con)


def migrate_v3(con: duckdb.DuckDBPyConnection) -> None:
    """Turn a store of format 3 into format 4, inside the caller's transaction: each
    game's format-3 chain is checked against its rows (:func:`.format3.checked`; a broken
    one raises :class:`SeasaltError` and the caller rolls back), then :func:`_relink`."""
    _relink(con, checked(stored_games(con, SCHEMA_VERSION), SCHEMA_VERSION))


def migrate_v4(con: duckdb.DuckDBPyConnection) -> None:
    """Turn a store of format 4 into format 5, inside the caller's transaction: only its
    number changes here; the caller's DDL adds the ``checked_games`` table, empty (every
    game is folded by ``verify`` until ``verify --record`` or an import records it)."""
    _set_format(con)


def _set_format(con: duckdb.DuckDBPyConnection) -> None:
    """Record that the store is now of this format."""
    con.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])


def _relink(con: duckdb.DuckDBPyConnection, games: Iterable[Game]) -> None:
    """Every ``commits`` row's hash, format 3's chain through the write's last event,
    becomes the write's link by format 4's definition (:mod:`.event_table`), from
    ``games`` (the store's, :func:`.format3.stored_games`, checked or not as the caller
    decided). The commits table, append-only, is made again with the new hashes, its rows
    in the order they had; the store is then of this format."""
    from .arrow_rows import record_batch
    new = record_batch("commits", relinked_commits(games, SCHEMA_VERSION))
    for op in ("update", "delete"):
        con.execute(f"DROP TRIGGER IF EXISTS commits_refuse_{op} ON commits")
    con.execute("DROP TABLE commits")
    con.execute(EVENTS_DDL)
    con.register("_commits_v4", new)
    try:
        con.execute("INSERT INTO commits SELECT * FROM _commits_v4")
    finally:
        con.unregister("_commits_v4")
    _set_format(con)


def _check_v1_chain(con: duckdb.DuckDBPyConnection, batch: int = 100_000) -> None:
    """Refuse to migrate a format-1 store whose per-event hash chain is broken: format 2
    keeps one link per game, so a change made before the migration would go unseen."""
    cur = con.execute("SELECT game_id, seq, event, hash FROM events ORDER BY game_id, seq")

    def rows() -> Iterator[Row]:
        while got := cur.fetchmany(batch):
            yield from got
    for gid, grouped in groupby(rows(), key=itemgetter(0)):
        game_rows = list(grouped)
        links = format3_links(gid, (r[2].encode("utf-8", "surrogatepass") for r in game_rows))
        for (_, seq, _, stored), computed in zip(game_rows, links):
            if computed != stored:
                raise SeasaltError(
                    f"cannot migrate the store to format {SCHEMA_VERSION}: game {gid}, seq "
                    f"{seq}: its hash chain is broken (the event or its hash was changed); "
                    "check the store with the version that wrote it (`seasalt verify`)")


#: store format -> the function that brings a store of that format to this one
_MIGRATED = {"1": migrate_v1, "2": migrate_v2, "3": migrate_v3, "4": migrate_v4}
