"""The library API under the CLI and the HTTP service: import, validate, append, export.

Every function takes plain arguments and returns data (msgspec Structs); none prints.
"""

from __future__ import annotations

import os
import re
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Callable, ContextManager, Iterable, Iterator, Sequence, cast

import duckdb
from msgspec import Struct

from . import events as ev
from .engine import State, apply, next_derived
from .errors import (GameExistsError, IllegalMoveError, LogFormatError, SeasaltError,
                     StreamConflictError, UnknownGameError)
from .importers.chunks import CHUNK_BYTES, WorkerSetup, check_chunks, log_chunks, scratch_dir
from .importers.jsonl import CheckedGame, check_game, iter_paths, raw_game
from .importers.outcomes import GameOutcome, ImportSummary, failed_outcome
from .importers.writer import ImportRun
from .store.arrow_rows import system_allocation
from .store.heads import advance
from .store.projections import KEY_COLUMNS, TABLES
from .outputs import DUCKDB_MAGIC
from .workers import no_gc
from .store.store import Row, Store, chain, event_rows, genesis_hash, plan_write
from .store.fetch import first_row

__all__ = ["GameOutcome", "ImportSummary", "import_logs", "log_files", "import_games",
           "import_checked", "append_events", "start_game", "export_lines", "export_blocks"]

BATCH_EVENTS = 100_000      # events per write transaction during an import (new games
                            # checked by workers: five times as many, see ImportRun)
IMPORT_MEMORY_LIMIT = "256MB"   # DuckDB's cache while an import writes

Progress = Callable[[int, int | None], None]   # (bytes read, bytes in all: None if unknown)


def import_logs(store: Store | None, paths: Sequence[str | Path], *, strict: bool = False,
                progress: Progress | None = None, jobs: int | None = None,
                against: Store | None = None) -> ImportSummary:
    """Check every game of the logs and store the good ones (``store`` None: validate only;
    ``against``: validating, compare with that store's games as an import into it would:
    unchanged, extended, or a conflict).

    Each game is stored whole or not at all, with its read-model rows, in one transaction
    (new games a chunk of the logs at a time, see :mod:`seasalt_log.importers.chunks`);
    with ``strict`` nothing is stored unless every game is good. ``jobs``: how many check
    the games of a large import at once, ``jobs`` - 1 worker processes and a thread of this
    process (default: one per CPU; 1: the thread alone).

    Memory stays bounded whatever the size of the logs (see
    :class:`~seasalt_log.importers.writer.ImportRun`), and DuckDB's own cache is capped at
    :data:`IMPORT_MEMORY_LIMIT` meanwhile (its default is 80 % of the machine's memory,
    which a large import fills with the blocks it writes).

    Logs that hold no game at all (nothing but blank lines), and the paths
    :func:`log_files` refuses, raise :class:`~seasalt_log.errors.LogFormatError`.
    """
    files = log_files(paths)
    stdin = any(str(f) == "-" for f in files)
    total = None if stdin else sum(Path(f).stat().st_size for f in files)   # None: unknown
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    # innermost, the guard rolls back before the settings are put back (threads, memory)
    with (_capped_memory(store), _checkpoint_at_commits(store),
          _row_groups_written_when_full(store), no_gc(), system_allocation(),
          scratch_dir(store is not None) as out_dir,
          _one_thread(store) as all_threads, _rolled_back_on_error(store)):
        if store is not None:
            store.expect_loads()
        run = ImportRun(store, strict=strict, batch_events=BATCH_EVENTS, against=against,
                        spill_dir=out_dir)
        setup = WorkerSetup(stored=frozenset(run.heads), out_dir=out_dir)
        done = 0
        size = chunk_size(total, jobs)
        chunks = log_chunks(files, size)
        with closing(check_chunks(chunks, setup, jobs, in_thread=not stdin,
                                  expect=(total or 0) // size)) as checked:
            for chunk, result in checked:       # (closed when stopped: its thread too)
                run.add_chunk(chunk, result)
                done += result.bytes
                if progress is not None:
                    progress(done, total)
        all_threads()
        summary = run.finish()  # the last loads and the commit: every DuckDB thread, alone now
    if paths and not summary.games:     # nothing to do: a mistake, as an empty directory is
        names = ", ".join(str(p) for p in paths)
        raise LogFormatError(("no game in it" if len(paths) == 1 else "no game in any of them")
                             + ": nothing but blank lines, or nothing at all", file=names)
    return summary


#: (first bytes, what a file that starts so is, what to do) of files that are no log
_NOT_LOGS = tuple(
    (magic, f"a {what}-compressed file, not JSON Lines text",
     f"decompress it first ({unpack} {{f}}), or pipe it in ({cat} {{f}} | seasalt import -)")
    for magic, what, unpack, cat in ((b"\x1f\x8b", "gzip", "gunzip -k", "zcat"),
                                     (b"BZh", "bzip2", "bunzip2 -k", "bzcat"),
                                     (b"\xfd7zXZ\x00", "xz", "unxz -k", "xzcat"),
                                     (b"\x28\xb5\x2f\xfd", "zstd", "unzstd", "zstdcat"),
                                     (b"PK\x03\x04", "zip", "unzip", "unzip -p"))
) + tuple(
    (bom, "UTF-16 text (as Windows PowerShell's > writes it), not UTF-8",
     "convert it first (iconv -f UTF-16 -t UTF-8 {f} > games.jsonl)")
    for bom in (b"\xff\xfe", b"\xfe\xff"))


def log_files(paths: Iterable[str | Path]) -> list[str | Path]:
    """The log files ``paths`` name (directories searched for ``*.jsonl``, ``-`` for
    stdin), or a LOG-FORMAT error naming the first path that is missing, unreadable, a
    directory without logs, a compressed file, UTF-16 text (a log is UTF-8 JSON Lines
    text) or a DuckDB database, before anything is read or stored."""
    files = list(iter_paths(paths))
    for f in files:
        if not os.path.isfile(f):       # stdin, a pipe: what is read from it is gone
            continue
        with open(f, "rb") as fh:
            head = fh.read(12)
        for magic, what, todo in _NOT_LOGS:
            if head.startswith(magic):
                raise LogFormatError(f"{what}: {todo.format(f=f)}", file=str(f))
        if head[8:12] == DUCKDB_MAGIC:          # a store given where its log belongs
            raise LogFormatError(f"a DuckDB database (a store), not a log: to copy its games, "
                                 f"seasalt export --all --db {f} | seasalt import -", file=str(f))
    return files


MIN_CHUNK_BYTES = 1 << 20


def chunk_size(total: int | None, jobs: int) -> int:
    """Bytes of log per worker chunk: a few megabytes, but for a log of ``total`` bytes
    small enough that each of ``jobs`` workers gets about four chunks (not under
    :data:`MIN_CHUNK_BYTES` for that), so that the last chunks leave no worker idle for long."""
    size = min(CHUNK_BYTES, BATCH_EVENTS * 40)
    if total is None or jobs < 2:
        return size
    return min(size, max(MIN_CHUNK_BYTES, total // (4 * jobs)))


def import_games(store: Store | None, games: Iterable[Sequence[ev.Event]], *,
                 source: str = "-", strict: bool = False) -> ImportSummary:
    """Check and store games given as event lists (e.g. from the simulator), exactly as
    :func:`import_logs` does for the games of a file."""
    def checked() -> Iterator[CheckedGame | GameOutcome]:
        line = 1
        for events in games:
            raw = raw_game(events, source, line)
            line += len(raw.events)
            try:
                yield check_game(raw)
            except SeasaltError as exc:
                yield failed_outcome(exc, source, raw.first_line)
    return import_checked(store, checked(), strict=strict)


def import_checked(store: Store | None, games: Iterable[CheckedGame | GameOutcome], *,
                   strict: bool = False) -> ImportSummary:
    """Store checked games (``store`` None: validate only); failed outcomes are reported.
    Each game is stored whole or not at all, as :func:`import_logs` does."""
    with _capped_memory(store), no_gc(), _rolled_back_on_error(store):
        run = ImportRun(store, strict=strict, batch_events=BATCH_EVENTS)
        for item in games:
            run.add(item)
        return run.finish()


@contextmanager
def _rolled_back_on_error(store: Store | None) -> Iterator[None]:
    """Roll back the store's open transaction at once when an exception (Ctrl-C included)
    stops the import, before the settings it changed are put back: a statement stopped
    midway (DuckDB's "Query interrupted") leaves the transaction aborted, and any statement
    after it would fail ("Current transaction is aborted") in place of what stopped it."""
    try:
        yield
    except BaseException:
        if store is not None:
            store.abandon()
        raise


@contextmanager
def _capped_memory(store: Store | None) -> Iterator[None]:
    """Lower DuckDB's ``memory_limit`` to :data:`IMPORT_MEMORY_LIMIT` for a while (never
    raise it), then put it back."""
    if store is None or _bytes(_current(store.con, "memory_limit")) <= _bytes(IMPORT_MEMORY_LIMIT):
        yield
        return
    with _setting(store.con, "memory_limit", IMPORT_MEMORY_LIMIT):
        yield


@contextmanager
def _store_setting(store: Store | None, name: str, value: str) -> Iterator[None]:
    """DuckDB's setting ``name`` at ``value`` on ``store`` for a while, then put back (no
    store: nothing to set)."""
    if store is None:
        yield
        return
    with _setting(store.con, name, value):
        yield


def _checkpoint_at_commits(store: Store | None) -> ContextManager[None]:
    """Each commit of the import written straight into the store's file (a checkpoint)
    rather than first into the write-ahead log, which the checkpoint as the store closes
    would copy into the file again: ``checkpoint_threshold`` at 0 for a while, then put
    back. An import's commit holds megabytes; DuckDB checkpoints at a commit when it is
    the only transaction, else it writes the log as before."""
    return _store_setting(store, "checkpoint_threshold", "0 bytes")


def _row_groups_written_when_full(store: Store | None) -> ContextManager[None]:
    """Each row group an import's loads fill written into the file at once (DuckDB's
    ``write_buffer_row_group_count`` at 1 for a while, then put back) rather than five at a
    time: the row groups the loads leave unwritten (by default up to four full ones of each
    large table) are compressed and written by the commit, after the last check, where
    nothing overlaps them."""
    return _store_setting(store, "write_buffer_row_group_count", "1")


def _current(con: duckdb.DuckDBPyConnection, name: str) -> str:
    row = first_row(con, f"SELECT current_setting('{name}')")
    return str(row[0]) if row else ""


@contextmanager
def _setting(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
    """DuckDB's setting ``name`` at ``value`` for a while, then put back: exactly when it
    was the default (RESET), else as DuckDB shows it (to a tenth of its unit)."""
    previous = _current(con, name)
    default = False
    try:
        con.execute(f"RESET {name}")
        default = _current(con, name) == previous  # then RESET puts it back exactly
        con.execute(f"SET {name} = '{value}'")
        yield
    finally:
        con.execute(f"RESET {name}" if default else f"SET {name} = '{previous}'")


@contextmanager
def _one_thread(store: Store | None) -> Iterator[Callable[[], None]]:
    """One DuckDB thread for a while, then as many as before: when the function it yields
    is called, or at the end if it was not. While an import's workers (or its checking
    thread) keep every CPU busy, a second DuckDB thread for the loads costs more CPU than
    it saves (about 15% of the importer's, bench/RESULTS.md); the last commit, with
    nothing else running, takes about half the wall clock with two."""
    if store is None:
        yield lambda: None
        return
    con = store.con
    row = first_row(con, "SELECT current_setting('threads')")
    previous = row[0] if row else 1
    con.execute("SET threads = 1")
    restored = False

    def restore() -> None:
        nonlocal restored
        if not restored:
            restored = True
            con.execute(f"SET threads = {int(previous)}")
    try:
        yield restore
    finally:
        restore()


def _bytes(setting: str) -> float:
    """Bytes in a DuckDB memory setting such as ``'18.8 GiB'`` or ``'256MB'`` (inf when
    it cannot tell)."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT]i?B|bytes?|B)?\s*", setting, re.I)
    if not m:
        return float("inf")
    unit = (m.group(2) or "B").upper().rstrip("S").replace("BYTE", "B")
    scale = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
             "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
    return float(m.group(1)) * scale.get(unit, float("inf"))


# ---------------------------------------------------------------- live appends

from .store.projections import Projector  # noqa: E402

class AppendResult(Struct):
    """The outcome of :func:`append_events`."""

    game_id: str
    seq: int                         # the stream's last seq after the append
    appended: list[ev.Event]         # input and derived events, in stored order


def load_state(store: Store, game_id: str) -> tuple[list[ev.Event], State]:
    """A stored game's events and its current state."""
    events = store.read_events(game_id)
    s = State()
    for e in events:
        s = apply(s, e)
    return events, s


def start_game(store: Store, start: ev.GameStarted) -> AppendResult:
    """Store a new game from its ``game_started`` (the id derived when it has none)."""
    gid = start.game_id or ev.derive_game_id([start])
    found, _ = store.head(gid)
    if found:
        raise GameExistsError(gid, found)
    return _append_checked(store, gid, [], State(), [start], 0)


def append_events(store: Store, game_id: str, new: Sequence[ev.Event], expected_seq: int,
                  *, cached: "GameCache | None" = None) -> AppendResult:
    """Append input events to a stored game if its last seq is ``expected_seq``.

    The engine checks them exactly as an import does; derived events are added (or, when
    given, must match). Nothing is written unless every event is legal.

    ``cached`` (the store's only writer keeps one per game, see :class:`GameCache`) skips
    reloading and re-folding the stored game: the same checks run against the cached state,
    and on success the cache is brought up to date in place.
    """
    if cached is not None:
        if cached.game_id != game_id:
            raise ValueError(f"the cache holds game {cached.game_id}, not {game_id}")
        planned = plan_append(cached, new, expected_seq)
        if not planned.result.appended:        # only derived events already stored
            return planned.result
        write_planned(store, [planned])
        cached.adopt(planned.cache)
        return planned.result
    head, _ = store.head(game_id)
    if head == 0:
        raise store.unknown_game(game_id)
    if head != expected_seq:
        raise StreamConflictError(game_id, expected_seq, head)
    events, state = load_state(store, game_id)
    return _append_checked(store, game_id, events, state, new, head)


def _append_checked(store: Store, game_id: str, events: list[ev.Event], state: State,
                    new: Sequence[ev.Event], head: int) -> AppendResult:
    all_events = list(events)
    states: list[State] = []
    s = State()
    for e in events:            # states of the stored part, for the projections
        s = apply(s, e)
        states.append(s)
    appended, new_states = _check_new(game_id, events, s, new)
    all_events.extend(appended)
    states.extend(new_states)
    write = plan_write(game_id, store.assign(game_id), all_events, states, stored=head,
                       prev_hash=store.head(game_id)[1] if head else None)
    store.begin()
    try:
        store.write([write])
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return AppendResult(game_id=game_id, seq=len(all_events), appended=appended)


def _check_new(game_id: str, events: Sequence[ev.Event], s: State, new: Sequence[ev.Event]
               ) -> tuple[list[ev.Event], list[State]]:
    """Check ``new`` against the game ``events`` (whose state is ``s``): the events to store
    (input and derived, in order) and the state after each. Errors carry ``index``, the
    position in ``new`` of the event refused."""
    n_players = len(cast(ev.GameStarted, events[0]).players) if events else None
    appended: list[ev.Event] = []
    states: list[State] = []
    for i, e in enumerate(new):
        try:
            if type(e) is ev.GameStarted:
                if events or i:
                    raise IllegalMoveError("R-FLOW-GAME", "this game has already started")
                n_players = len(e.players)
                e = _with_id(e, game_id)
            ev.validate(e, n_players)
            if type(e) not in ev.DERIVED_TYPES:
                while (d := next_derived(s)) is not None:
                    s = apply(s, d)
                    states.append(s)
                    appended.append(d)
            s = apply(s, e)
        except SeasaltError as exc:
            exc.index = i                      # type: ignore[attr-defined]
            if hasattr(exc, "locate"):
                exc.locate(game_id=game_id)
            raise
        states.append(s)
        appended.append(e)
    while (d := next_derived(s)) is not None:
        s = apply(s, d)
        states.append(s)
        appended.append(d)
    return appended, states


# ---------------------------------------------------------------- the single writer's cache

class GameCache:
    """A stored game held in memory by the store's only writer (the HTTP service): its
    events, the state after each, its number in the store and the chain link of its last
    write (that of a planned append: its write's, were it written alone; see
    :func:`prepare_write`).

    With it an append checks new events against the cached state instead of reloading and
    re-folding the stored game (:func:`plan_append`, ``append_events(..., cached=)``). It is
    only right while nobody else writes to the store.
    """

    __slots__ = ("game_id", "events", "states", "number", "hash", "projector")

    def __init__(self, game_id: str, events: list[ev.Event], states: list[State], number: int,
                 hash: int | None):
        self.game_id, self.events, self.states, self.hash = game_id, events, states, hash
        self.number = number
        #: the read-model rows stored for these events, kept up to date by the writer
        #: (None: not known, rewrite them all)
        self.projector: Projector | None = None

    @property
    def seq(self) -> int:
        """The last stored seq (0 for a game not stored yet)."""
        return len(self.events)

    @property
    def projection(self) -> dict[str, list[Row]] | None:
        """The read-model rows stored for these events, by table (None: not known)."""
        return self.projector.rows() if self.projector is not None else None

    @property
    def state(self) -> State:
        """The state after the last event."""
        return self.states[-1] if self.states else State()

    @classmethod
    def load(cls, store: Store, game_id: str) -> "GameCache":
        """Read and fold a stored game; raises :class:`UnknownGameError`."""
        events, states = store.read_events(game_id), []
        s = State()
        for e in events:
            s = apply(s, e)
            if s.game_id is None:       # a game_started without its id: name the states
                s = s.changed(game_id=game_id)
            states.append(s)
        number = store.number(game_id)
        if number is None:
            raise store.unknown_game(game_id)
        return cls(game_id, events, states, number, store.head(game_id)[1])

    def adopt(self, other: "GameCache") -> None:
        """Take over ``other``'s contents (after its append was committed)."""
        self.events, self.states, self.hash = other.events, other.states, other.hash
        self.projector = other.projector


class PlannedAppend(Struct):
    """An append checked by the engine and ready to write (:func:`write_planned`)."""

    result: AppendResult
    cache: GameCache           # the game as it will be once the rows are stored
    base: GameCache            # the game it was planned on
    rows: list[Row]            # rows of the events table

    @property
    def stored(self) -> int:
        """The game's last seq before this append."""
        return self.base.seq


def plan_append(cache: GameCache, new: Sequence[ev.Event], expected_seq: int | None
                ) -> PlannedAppend:
    """Check ``new`` against a cached stored game, exactly as :func:`append_events` does,
    without touching the store or ``cache``. ``expected_seq`` None skips the sequence
    check (append at the current end). Raises what :func:`append_events` raises."""
    gid, head = cache.game_id, cache.seq
    if head == 0:
        raise UnknownGameError(gid)
    if expected_seq is not None and head != expected_seq:
        raise StreamConflictError(gid, expected_seq, head)
    rest = new[already_derived(cache, new):]
    appended, states = _check_new(gid, cache.events, cache.state, rest) if rest else ([], [])
    return _planned(cache, appended, states)


def already_derived(cache: GameCache, new: Sequence[ev.Event]) -> int:
    """How many leading events of ``new`` are derived events the stored game already holds:
    the derived events the store added after the game's last input event (a client that
    sends the derived events of its own log, one request per event, sends each after the
    store has added it). Each is compared with the stored one by the engine, at the stored
    one's place: one that differs is refused (R-DERIVED, ``index`` its place in ``new``).
    The first that has no stored counterpart ends the run (the engine then checks it as
    usual). Returns 0 when ``new`` starts with an input event."""
    if not new or type(new[0]) not in ev.DERIVED_TYPES:
        return 0                        # the usual append: nothing to look up
    events, states = cache.events, cache.states
    first = len(events)
    while first and type(events[first - 1]) in ev.DERIVED_TYPES:
        first -= 1
    at, skip = first, 0
    for i, e in enumerate(new):
        if type(e) not in ev.DERIVED_TYPES:
            break
        k = next((k for k in range(at, len(events)) if type(events[k]) is type(e)), None)
        if k is None:
            break
        try:
            apply(states[k - 1] if k else State(), e)      # R-DERIVED when it differs
        except SeasaltError as exc:
            exc.index = i                      # type: ignore[attr-defined]
            if hasattr(exc, "locate"):
                exc.locate(game_id=cache.game_id)
            raise
        at, skip = k + 1, i + 1
    return skip


def plan_start(store: Store, start: ev.GameStarted) -> PlannedAppend:
    """Check a new game's ``game_started`` (its id derived when it has none), as
    :func:`start_game` does, numbering it in ``store``; the caller makes sure no game of
    that id is stored."""
    gid = start.game_id or ev.derive_game_id([start])
    appended, states = _check_new(gid, [], State(), [start])
    return _planned(GameCache(gid, [], [], store.assign(gid), None), appended, states)


def _planned(cache: GameCache, appended: list[ev.Event], states: list[State]) -> PlannedAppend:
    gid, head = cache.game_id, cache.seq
    all_events = cache.events + appended
    all_states = cache.states + states
    rows, h = event_rows(gid, cache.number, all_events, all_states, start=head,
                         prev_hash=cache.hash if head else None)
    after = GameCache(gid, all_events, all_states, cache.number, h)
    return PlannedAppend(result=AppendResult(game_id=gid, seq=len(all_events), appended=appended),
                         cache=after, base=cache, rows=rows)


def write_planned(store: Store, planned: Sequence[PlannedAppend]) -> None:
    """Store planned appends (of one game or many, each planned on the one before it) in
    one transaction, all or nothing, with each game's read models computed once.

    Read-model rows are rewritten only where they changed: the rows last written are kept
    in the caches, and rows are matched by their table's key (an append in a turn rewrites
    that turn's row, not the game's every turn). Each game's final cache records its
    read-model rows (caches of a write that fails must be dropped).
    """
    store_prepared(store, prepare_write(planned))


class PreparedWrite:
    """What :func:`store_prepared` writes in one transaction: computed in Python from
    planned appends by :func:`prepare_write`, without touching the store (so a writer can
    prepare the next transaction while DuckDB stores the last one)."""

    __slots__ = ("heads", "rows", "commits", "whole", "keys", "insert")

    def __init__(self, heads: list[tuple[str, int, int]], rows: list[Row],
                 commits: list[Row], whole: dict[str, list[str]],
                 keys: dict[str, list[Row]], insert: dict[str, list[Row]]):
        self.heads, self.rows, self.commits = heads, rows, commits
        self.whole, self.keys, self.insert = whole, keys, insert


def prepare_write(planned: Sequence[PlannedAppend]) -> PreparedWrite:
    """The rows to write for planned appends (see :func:`write_planned`); each game's final
    cache takes over the read-model rows of the cache it was planned on, brought up to date
    with the new events (the rows of a game whose rows are not known are all rewritten).
    A game of several appends gets one ``commits`` row: its final cache's link becomes
    the link over all their events, from the cache the first was planned on."""
    base: dict[str, GameCache] = {}
    final: dict[str, GameCache] = {}
    rows: list[Row] = []
    appends: dict[str, list[PlannedAppend]] = {}
    for p in planned:
        gid = p.cache.game_id
        appends.setdefault(gid, []).append(p)
        base.setdefault(gid, p.base)
        final[gid] = p.cache
        rows.extend(p.rows)
    for gid, ps in appends.items():
        if len(ps) > 1:             # one commits row: the link over all their events
            b = base[gid]
            final[gid].hash = chain(genesis_hash(gid) if b.hash is None else b.hash,
                                    [r[7].encode("utf-8", "surrogatepass")
                                     for p in ps for r in p.rows])
    whole: dict[str, list[str]] = {t: [] for t in TABLES}      # games whose rows all go
    keys: dict[str, list[Row]] = {t: [] for t in TABLES}       # single rows that go
    insert: dict[str, list[Row]] = {t: [] for t in TABLES}
    for gid, c in final.items():
        b = base[gid]
        proj, b.projector = b.projector, None       # the final cache's from now on
        if proj is None or proj.seq != b.seq:       # a new game, or rows not known
            proj = Projector(gid, cast(ev.GameStarted, c.events[0]))
            if b.seq:
                for t in TABLES:
                    whole[t].append(gid)
        proj.feed(c.events, c.states)
        proj.changes(keys, insert)
        c.projector = proj
    return PreparedWrite([(gid, base[gid].seq, c.seq) for gid, c in final.items()], rows,
                         [(gid, c.number, c.seq, c.hash) for gid, c in final.items()],
                         whole, keys, insert)


def store_prepared(store: Store, w: PreparedWrite) -> None:
    """Write a :class:`PreparedWrite` in one transaction, all or nothing. Rows go in and
    out through the store's appenders kept across commits (:meth:`Store.appenders`)."""
    con = store.con
    appenders = store.appenders()
    store.begin()
    try:
        advance(con, w.heads)
        appenders.insert("events", w.rows)      # the heads moved above keep seqs unique
        appenders.insert("commits", w.commits)
        for t in TABLES:
            appenders.delete(t, ("game_id",), [(g,) for g in w.whole[t]])
            appenders.delete(t, KEY_COLUMNS[t], w.keys[t])
            appenders.insert(t, w.insert[t])
        store.commit()
    except BaseException:
        appenders.drop()
        store.rollback()
        raise


def _with_id(e: ev.GameStarted, game_id: str) -> ev.GameStarted:
    if e.game_id == game_id:
        return e
    from msgspec.structs import replace
    return replace(e, game_id=game_id)


# ---------------------------------------------------------------- export

def export_lines(store: Store, game_ids: Iterable[str]) -> Iterator[bytes]:
    """The stored JSON lines of each game, in order (LOG_FORMAT.md), one line at a time."""
    for texts in store.iter_texts(list(game_ids)):
        for text in texts:
            yield text.encode() + b"\n"


def export_blocks(store: Store, game_ids: Iterable[str]) -> Iterator[bytes | memoryview]:
    """The same bytes as :func:`export_lines`, in blocks of many lines (``seasalt export``:
    one ordered query for every game, and a write per block rather than per line; each
    block the Arrow buffer of :meth:`Store.iter_lines`, with no Python string per event).
    Every game in the order of their numbers, from a store that holds its events in that
    order (:func:`~seasalt_log.store.stored_order.in_game_order`: an imported store), is
    the events table as it lies, read with no sort."""
    from .arrow_text import string_bytes
    from .store.stored_order import ids_by_number, in_game_order, stored_batches
    ids = list(game_ids)
    if ids and ids == ids_by_number(store.con) and in_game_order(store.con):
        for chunk in stored_batches(store.con, "event || chr(10)", 65_536):
            yield string_bytes(chunk.column(0))
        return
    yield from store.iter_lines(ids)
