"""The library API under the CLI and the HTTP service: import, validate, append, export.

Every function takes plain arguments and returns data (msgspec Structs); none prints.
"""

from __future__ import annotations

import hashlib
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import duckdb
from msgspec import Struct

from . import events as ev
from .engine import State, apply, next_derived
from .errors import IllegalMoveError, SeasaltError, StreamConflictError, UnknownGameError
from .importers.jsonl import CheckedGame, check_game, iter_paths, raw_game, read_games
from .store.projections import TABLES, project
from .store.store import GameWrite, Store, event_rows, plan_write

BATCH_EVENTS = 100_000      # events per write transaction during an import
IMPORT_MEMORY_LIMIT = "256MB"   # DuckDB's cache while an import writes

Progress = Callable[[int, int], None]   # (bytes read, bytes in all)


class GameOutcome(Struct):
    """What an import did with one game."""

    game_id: str | None
    status: str                 # "new" | "extended" | "unchanged" | "failed"
    events: int = 0             # events appended (new/extended) or in the log
    source: str = "-"
    line: int = 0
    error: str | None = None
    rule: str | None = None


class ImportSummary(Struct):
    """The closing summary of an import or a validate."""

    new: int = 0
    extended: int = 0
    unchanged: int = 0
    failed: int = 0
    events_stored: int = 0
    written: bool = True
    games: list[GameOutcome] = []

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def tally(self) -> "ImportSummary":
        """Count the outcomes (kept in input order in ``games``)."""
        for status in ("new", "extended", "unchanged", "failed"):
            setattr(self, status, sum(g.status == status for g in self.games))
        self.events_stored = sum(g.events for g in self.games if g.status != "failed")
        return self


class _CountingFile:
    """A binary file whose lines report the bytes read so far."""

    def __init__(self, path: Path, progress: Progress, done_before: int, total: int):
        self.fh = open(path, "rb")
        self.progress, self.done, self.total = progress, done_before, total

    def __iter__(self):
        with self.fh:
            tick = 0
            for line in self.fh:
                self.done += len(line)
                tick += 1
                if tick & 1023 == 0:
                    self.progress(self.done, self.total)
                yield line
        self.progress(self.done, self.total)


def _sources(paths, progress: Progress | None) -> Iterator[tuple[str, object]]:
    files = list(iter_paths(paths))
    total = sum(Path(f).stat().st_size for f in files if f != "-")
    done = 0
    for f in files:
        if f == "-" or progress is None:
            yield str(f), f
            continue
        yield str(f), _CountingFile(Path(f), progress, done, total)
        done += Path(f).stat().st_size


def check_logs(paths: Sequence[str | Path], progress: Progress | None = None
               ) -> Iterator[CheckedGame | GameOutcome]:
    """Every game of the logs, checked by the engine: a CheckedGame, or a failed outcome."""
    for name, source in _sources(paths, progress):
        for raw in read_games(source, name):
            try:
                yield check_game(raw)
            except SeasaltError as exc:
                yield _failed(exc, raw.source, raw.first_line)


def _failed(exc: SeasaltError, source: str, line: int) -> GameOutcome:
    return GameOutcome(game_id=getattr(exc, "game_id", None), status="failed", source=source,
                       line=getattr(exc, "line", None) or line, error=str(exc),
                       rule=getattr(exc, "rule", None))


def _compare(game: CheckedGame, stored_json: list[bytes]) -> tuple[str, str | None]:
    """("new"/"extended"/"unchanged"/"failed", error) of a game against its stored stream."""
    for i, (old, e) in enumerate(zip(stored_json, game.events)):
        new = ev.encode(e)
        if old != new:
            a, b = _around_difference(old.decode(), new.decode())
            return "failed", (f"game {game.game_id}: a different history is stored under this id; "
                              f"event seq {i + 1} differs (stored {a}, log {b})")
    return ("extended", None) if len(game.events) > len(stored_json) else ("unchanged", None)


def _around_difference(a: str, b: str, limit: int = 600) -> tuple[str, str]:
    """Two JSON texts for a message: whole when short, else cut around where they differ
    (a message quotes the input, it does not echo all of it)."""
    if len(a) <= limit and len(b) <= limit:
        return _printable(a), _printable(b)
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, k - 80)

    def cut(t: str) -> str:
        part = _printable(t[start:start + 240])
        return ("..." if start else "") + part + ("..." if start + 240 < len(t) else "")
    return cut(a), cut(b)


def _printable(text: str) -> str:
    """JSON text with every unprintable character (line separators included) written as
    its ``\\uXXXX`` escape, so that a message quoting it stays on one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    o = ord(c)
    if o < 0x10000:
        return f"\\u{o:04x}"
    o -= 0x10000
    return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"


def import_logs(store: Store | None, paths: Sequence[str | Path], *, strict: bool = False,
                progress: Progress | None = None) -> ImportSummary:
    """Check every game of the logs and store the good ones (``store`` None: validate only).

    See :func:`import_checked`, which this calls on the games of the logs.
    """
    return import_checked(store, check_logs(paths, progress), strict=strict)


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
                yield _failed(exc, source, raw.first_line)
    return import_checked(store, checked(), strict=strict)


def import_checked(store: Store | None, games: Iterable[CheckedGame | GameOutcome], *,
                   strict: bool = False) -> ImportSummary:
    """Store checked games (``store`` None: validate only); failed outcomes are reported.

    Each game is stored whole or not at all, with its read-model rows, in one transaction;
    with ``strict`` nothing is stored unless every game is good.

    Memory stays bounded whatever the size of the logs: see :func:`_import_checked`, and
    DuckDB's own cache is capped at :data:`IMPORT_MEMORY_LIMIT` meanwhile (its default is
    80 % of the machine's memory, which a large import fills with the blocks it writes).
    """
    with _capped_memory(store):
        return _import_checked(store, games, strict=strict)


@contextmanager
def _capped_memory(store: Store | None) -> Iterator[None]:
    """Lower DuckDB's ``memory_limit`` to :data:`IMPORT_MEMORY_LIMIT` for a while (never
    raise it), then put it back (exactly when it was the default; else as DuckDB shows
    it, to a tenth of its unit)."""
    if store is None:
        yield
        return
    con = store.con

    def current() -> str:
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    previous = current()
    lower = _bytes(previous) > _bytes(IMPORT_MEMORY_LIMIT)
    if lower:
        con.execute("RESET memory_limit")
        default = current() == previous      # then RESET puts it back exactly
        con.execute(f"SET memory_limit = '{IMPORT_MEMORY_LIMIT}'")
    try:
        yield
    finally:
        if lower:
            con.execute("RESET memory_limit" if default else f"SET memory_limit = '{previous}'")


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


def _import_checked(store: Store | None, games: Iterable[CheckedGame | GameOutcome], *,
                    strict: bool = False) -> ImportSummary:
    """:func:`import_checked` itself.

    Memory stays bounded whatever the size of the logs: games are read one at a time and
    written in batches of about :data:`BATCH_EVENTS` events; of the games already handled
    only their id and length are kept (a game id met again is compared with the store
    itself; validating, with 8-byte fingerprints of its events).
    """
    summary = ImportSummary(written=store is not None)
    heads = store.heads() if store is not None else {}
    seen: dict[str, tuple[int, bytes]] = {}   # games of this import: (events, fingerprints)
    pending: list[tuple[GameWrite, GameOutcome]] = []
    pending_ids: set[str] = set()
    pending_events = 0
    if store is not None and strict:
        store.begin()

    def write(batch: list[tuple[GameWrite, GameOutcome]]) -> SeasaltError | None:
        """Write ``batch`` (in its own transaction unless strict); the error, rolled back."""
        if not strict:
            store.begin()
        try:
            store.write(w for w, _ in batch)
            if not strict:
                store.commit()
            return None
        except (SeasaltError, duckdb.Error) as exc:
            store.rollback()
            if strict:
                store.begin()
            if isinstance(exc, SeasaltError):
                return exc
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return SeasaltError(f"the store refused the write: {first}")

    def flush() -> None:
        nonlocal pending, pending_events
        if not pending or store is None:
            return
        error = write(pending)
        if error is not None and not strict and len(pending) > 1:
            for item in pending:                   # one game at a time: only the bad one fails
                e = write([item])
                if e is not None:
                    _, o = item
                    msg = str(e) if f"game {o.game_id}" in str(e) else f"game {o.game_id}: {e}"
                    o.status, o.error, o.events = "failed", msg, 0
        elif error is not None:
            for _, o in pending:
                o.status, o.error, o.events = "failed", str(error), 0
        pending, pending_events = [], 0
        pending_ids.clear()

    for item in games:
        if isinstance(item, GameOutcome):
            summary.games.append(item)
            continue
        game = item
        gid = game.game_id
        outcome = GameOutcome(game_id=gid, status="new", source=game.source, line=game.first_line)
        summary.games.append(outcome)
        if gid in pending_ids:
            flush()
        if store is not None and gid in seen:
            stored, prev_hash = store.head(gid)     # what this import really stored
        else:
            stored, prev_hash = heads.get(gid, 0), None
            if store is None and gid in seen:
                stored = seen[gid][0]
        if stored:
            if store is not None:
                status, error = _compare(game, store.read_json(gid))
                if status != "unchanged" and prev_hash is None:
                    prev_hash = store.head(gid)[1]
            else:
                status, error = _compare_digest(game, *seen[gid])
            if status == "failed":
                outcome.status, outcome.error, outcome.rule = status, error, "CONFLICT"
                continue
            outcome.status = status
            if status == "unchanged":
                continue
        planned = plan_write(gid, game.events, game.states, stored=stored, prev_hash=prev_hash)
        outcome.events = len(planned.event_rows)
        seen[gid] = (len(game.events), b"" if store is not None else _fingerprints(game.events))
        if store is None:
            continue
        pending.append((planned, outcome))
        pending_ids.add(gid)
        pending_events += outcome.events
        if pending_events >= BATCH_EVENTS:
            flush()
    flush()
    summary.tally()
    if store is not None and strict:
        if summary.failed:
            store.rollback()
            summary.written = False
            summary.events_stored = 0
        else:
            store.commit()
    return summary


def _fingerprints(events: Sequence[ev.Event]) -> bytes:
    """8 bytes per event: a sha256 chain over the encoded events (prefix ``k`` of a game is
    identified by bytes ``8k-8 .. 8k``)."""
    h = hashlib.sha256()
    out = bytearray()
    for e in events:
        h.update(ev.encode(e))
        h.update(b"\n")
        out += h.copy().digest()[:8]
    return bytes(out)


def _compare_digest(game: CheckedGame, n: int, prints: bytes) -> tuple[str, str | None]:
    """:func:`_compare` against a game met earlier in the same validation, known by its
    length and :func:`_fingerprints` (validating keeps no events, only 8 bytes each)."""
    mine = _fingerprints(game.events)
    k = min(n, len(game.events))
    if k and mine[8 * k - 8:8 * k] != prints[8 * k - 8:8 * k]:
        return "failed", (f"game {game.game_id}: a different history is given earlier in this "
                          "log under this id")
    return ("extended", None) if len(game.events) > n else ("unchanged", None)


# ---------------------------------------------------------------- live appends

from .store.projections import ROUND_TABLES, project_from, round_start  # noqa: E402

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
    from .importers.jsonl import derive_game_id
    gid = start.game_id or derive_game_id([start])
    if store.head(gid)[0]:
        raise StreamConflictError(gid, 0, store.head(gid)[0], f"game {gid} already exists")
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
        write_planned(store, [planned])
        cached.adopt(planned.cache)
        return planned.result
    head, _ = store.head(game_id)
    if head == 0:
        raise UnknownGameError(game_id)
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
    write = plan_write(game_id, all_events, states, stored=head,
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
    n_players = len(events[0].players) if events else None
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
                    states.append(s), appended.append(d)
            s = apply(s, e)
        except SeasaltError as exc:
            exc.index = i                      # type: ignore[attr-defined]
            if hasattr(exc, "locate"):
                exc.locate(game_id=game_id)
            raise
        states.append(s), appended.append(e)
    while (d := next_derived(s)) is not None:
        s = apply(s, d)
        states.append(s), appended.append(d)
    return appended, states


# ---------------------------------------------------------------- the single writer's cache

class GameCache:
    """A stored game held in memory by the store's only writer (the HTTP service): its
    events, the state after each, and the last value of its hash chain.

    With it an append checks new events against the cached state instead of reloading and
    re-folding the stored game (:func:`plan_append`, ``append_events(..., cached=)``). It is
    only right while nobody else writes to the store.
    """

    __slots__ = ("game_id", "events", "states", "hash", "projection")

    def __init__(self, game_id: str, events: list[ev.Event], states: list[State],
                 hash: int | None, projection: dict[str, list[tuple]] | None = None):
        self.game_id, self.events, self.states, self.hash = game_id, events, states, hash
        #: the read-model rows stored for these events (None: not known, rewrite them all)
        self.projection = projection

    @property
    def seq(self) -> int:
        """The last stored seq (0 for a game not stored yet)."""
        return len(self.events)

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
                from msgspec.structs import replace
                s = replace(s, game_id=game_id)
            states.append(s)
        return cls(game_id, events, states, store.head(game_id)[1])

    def adopt(self, other: "GameCache") -> None:
        """Take over ``other``'s contents (after its append was committed)."""
        self.events, self.states, self.hash = other.events, other.states, other.hash
        self.projection = other.projection


class PlannedAppend(Struct):
    """An append checked by the engine and ready to write (:func:`write_planned`)."""

    result: AppendResult
    cache: GameCache           # the game as it will be once the rows are stored
    base: GameCache            # the game it was planned on
    rows: list[tuple]          # rows of the events table

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
    appended, states = _check_new(gid, cache.events, cache.state, new)
    return _planned(cache, appended, states)


def plan_start(start: ev.GameStarted) -> PlannedAppend:
    """Check a new game's ``game_started`` (its id derived when it has none), as
    :func:`start_game` does; the caller makes sure no game of that id is stored."""
    from .importers.jsonl import derive_game_id
    gid = start.game_id or derive_game_id([start])
    appended, states = _check_new(gid, [], State(), [start])
    return _planned(GameCache(gid, [], [], None), appended, states)


def _planned(cache: GameCache, appended: list[ev.Event], states: list[State]) -> PlannedAppend:
    gid, head = cache.game_id, cache.seq
    all_events = cache.events + appended
    all_states = cache.states + states
    rows = event_rows(gid, all_events, all_states, start=head,
                      prev_hash=cache.hash if head else None)
    after = GameCache(gid, all_events, all_states, rows[-1][-1] if rows else cache.hash)
    return PlannedAppend(result=AppendResult(game_id=gid, seq=len(all_events), appended=appended),
                         cache=after, base=cache, rows=rows)


def write_planned(store: Store, planned: Sequence[PlannedAppend]) -> None:
    """Store planned appends (of one game or many, each planned on the one before it) in
    one transaction, all or nothing, with each game's read models computed once.

    Read-model rows are rewritten only where they changed: the rows last written are kept
    in the caches, and rows are matched by their table's key (an append in a turn rewrites
    that turn's row, not the game's every turn). On success each game's final cache
    records its read-model rows.
    """
    base: dict[str, GameCache] = {}
    final: dict[str, GameCache] = {}
    rows: list[tuple] = []
    for p in planned:
        gid = p.cache.game_id
        base.setdefault(gid, p.base)
        final[gid] = p.cache
        rows.extend(p.rows)
    whole: dict[str, list[str]] = {t: [] for t in TABLES}      # games whose rows all go
    keys: dict[str, list[tuple]] = {t: [] for t in TABLES}     # single rows that go
    insert: dict[str, list[tuple]] = {t: [] for t in TABLES}
    new_projection: dict[str, dict[str, list[tuple]]] = {}
    for gid, c in final.items():
        b = base[gid]
        old = {} if b.seq == 0 else b.projection
        if not old:             # a new game, or rows not known: project it whole
            new = new_projection[gid] = project(gid, c.events, c.states)
            for t in TABLES:
                _changes(t, gid, None if old is None else [], new[t], whole[t], keys[t],
                         insert[t])
            continue
        # only the round in play (and what follows it) can change: project from its start
        start = round_start(c.events, b.seq)
        first_round = c.events[start].round if start else 0
        tail = project_from(gid, c.events, c.states, start)
        new = new_projection[gid] = {}
        for t in TABLES:
            rows_before = old[t]
            cut = _round_cut(rows_before, first_round) if t in ROUND_TABLES else 0
            kept = rows_before[:cut]
            new[t] = kept + tail[t] if kept else tail[t]
            _changes(t, gid, rows_before[cut:], tail[t], whole[t], keys[t], insert[t], kept)
    con = store.con
    store.begin()
    try:
        try:
            _insert(con, "events", rows)
        except duckdb.ConstraintException:
            raise StreamConflictError(rows[0][0], rows[0][1] - 1, rows[0][1],
                                      "another writer appended to this game (the service "
                                      "must be the store's only writer)") from None
        for t in TABLES:
            if whole[t]:
                con.execute(f"DELETE FROM {t} WHERE game_id IN (SELECT unnest(?::VARCHAR[]))",
                            [whole[t]])
            if keys[t]:
                con.execute(_DELETE_KEYS[t], [list(column) for column in zip(*keys[t])])
            if insert[t]:
                _insert(con, t, insert[t])
        store.commit()
    except BaseException:
        store.rollback()
        raise
    for gid, c in final.items():
        c.projection = new_projection[gid]


def _key_columns() -> dict[str, tuple[str, ...]]:
    from .store.projections import SCHEMA
    return {t.name: t.order for t in SCHEMA}


_KEY_COLUMNS = _key_columns()
_KEY_INDEX = {t: tuple(TABLES[t].index(c) for c in cols) for t, cols in _KEY_COLUMNS.items()}


def _insert(con, table: str, rows: list[tuple]) -> None:
    """Insert rows: a few with one INSERT (cheaper than an appender for a row or two), more
    through DuckDB's appender."""
    if len(rows) <= 3:
        one = "(" + ", ".join("?" * len(rows[0])) + ")"
        con.execute(f"INSERT INTO {table} VALUES " + ", ".join([one] * len(rows)),
                    [v for r in rows for v in r])
    else:
        with con.appender(table) as a:
            a.append_rows(rows)


def _delete_keys_sql(table: str) -> str:
    """DELETE of rows of ``table`` by key; its parameters are one list per key column (a
    statement of fixed size whatever the number of rows: long lists of placeholders make
    DuckDB's parser and planner the slow part)."""
    from .store.projections import SCHEMA
    types = {c.name: c.type.replace(" NOT NULL", "") for t in SCHEMA for c in t.columns
             if t.name == table}
    cols = _KEY_COLUMNS[table]
    lists = ", ".join(f"unnest(?::{types[c]}[]) AS {c}" for c in cols)
    if len(cols) == 1:
        return f"DELETE FROM {table} WHERE {cols[0]} IN (SELECT {lists})"
    match = " AND ".join(f"{table}.{c} = k.{c}" for c in cols)
    return f"DELETE FROM {table} USING (SELECT {lists}) AS k WHERE {match}"


_DELETE_KEYS = {t: _delete_keys_sql(t) for t in _KEY_COLUMNS}


def _round_cut(rows: list[tuple], first_round: int) -> int:
    """Where the rows of rounds ``first_round`` and later begin in a game's rows of a round
    table (they are in round order, column 1)."""
    i = len(rows)
    while i and rows[i - 1][1] >= first_round:
        i -= 1
    return i


def _changes(table: str, gid: str, old: list[tuple] | None, new: list[tuple],
             whole: list[str], keys: list[tuple], insert: list[tuple],
             kept: list[tuple] = ()) -> None:
    """What to delete and insert in ``table`` to turn the rows ``old`` of game ``gid`` (None:
    not known) into ``new``; ``kept`` are the game's other rows in the table, unchanged
    (rewritten too when the whole game's rows must go)."""
    if old is not None and old == new:
        return
    idx = _KEY_INDEX.get(table)
    if old is not None and idx:
        before = {tuple(r[i] for i in idx): r for r in old}
        after = {tuple(r[i] for i in idx): r for r in new}
        if len(before) == len(old) and len(after) == len(new):   # keys really are unique
            keys.extend(k for k, r in before.items() if after.get(k) != r)
            insert.extend(r for k, r in after.items() if before.get(k) != r)
            return
    if old is None or old:
        whole.append(gid)
        insert.extend(kept)
    insert.extend(new)


def _with_id(e: ev.GameStarted, game_id: str) -> ev.GameStarted:
    if e.game_id == game_id:
        return e
    from msgspec.structs import replace
    return replace(e, game_id=game_id)


# ---------------------------------------------------------------- export

def export_lines(store: Store, game_ids: Iterable[str]) -> Iterator[bytes]:
    """The stored JSON lines of each game, in order (LOG_FORMAT.md)."""
    for gid in game_ids:
        for j in store.read_json(gid):
            yield j + b"\n"
