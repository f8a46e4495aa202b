"""The library API under the CLI and the HTTP service: import, validate, append, export.

Every function takes plain arguments and returns data (msgspec Structs); none prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from msgspec import Struct

from . import events as ev
from .engine import State, apply, next_derived
from .errors import IllegalMoveError, SeasaltError, StreamConflictError, UnknownGameError
from .importers.jsonl import CheckedGame, check_game, iter_paths, read_games
from .store.store import GameWrite, Store, plan_write

BATCH_EVENTS = 100_000      # events per write transaction during an import

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
            return "failed", (f"game {game.game_id}: a different history is stored under this id; "
                              f"event seq {i + 1} differs (stored {old.decode()}, "
                              f"log {new.decode()})")
    return ("extended", None) if len(game.events) > len(stored_json) else ("unchanged", None)


def import_logs(store: Store | None, paths: Sequence[str | Path], *, strict: bool = False,
                progress: Progress | None = None) -> ImportSummary:
    """Check every game of the logs and store the good ones (``store`` None: validate only).

    Each game is stored whole or not at all, with its read-model rows, in one transaction;
    with ``strict`` nothing is stored unless every game is good.
    """
    summary = ImportSummary(written=store is not None)
    heads = store.heads() if store is not None else {}
    memo: dict[str, list[bytes]] = {}     # games of this import, by id: their encoded events
    pending: list[tuple[GameWrite, GameOutcome]] = []
    pending_events = 0
    if store is not None and strict:
        store.begin()

    def flush() -> None:
        nonlocal pending, pending_events
        if not pending or store is None:
            return
        if not strict:
            store.begin()
        try:
            store.write(w for w, _ in pending)
            if not strict:
                store.commit()
        except SeasaltError as exc:
            store.rollback()
            for _, o in pending:
                o.status, o.error, o.events = "failed", str(exc), 0
            if strict:
                store.begin()
        pending, pending_events = [], 0

    for item in check_logs(paths, progress):
        if isinstance(item, GameOutcome):
            summary.games.append(item)
            continue
        game = item
        gid = game.game_id
        outcome = GameOutcome(game_id=gid, status="new", source=game.source, line=game.first_line)
        summary.games.append(outcome)
        stored = heads.get(gid, 0)
        prev_hash = None
        if stored:
            old = memo.get(gid)
            if old is None and store is not None:
                old = store.read_json(gid)
            status, error = _compare(game, old or [])
            if status == "failed":
                outcome.status, outcome.error, outcome.rule = status, error, "CONFLICT"
                continue
            outcome.status = status
            if status == "unchanged":
                continue
            if any(w.game_id == gid for w, _ in pending):
                flush()
            if store is not None:
                prev_hash = store.head(gid)[1]
        write = plan_write(gid, game.events, game.states, stored=stored, prev_hash=prev_hash)
        outcome.events = len(write.event_rows)
        heads[gid] = len(game.events)
        memo[gid] = [ev.encode(e) for e in game.events]
        if store is None:
            continue
        pending.append((write, outcome))
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


# ---------------------------------------------------------------- live appends

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


def append_events(store: Store, game_id: str, new: Sequence[ev.Event], expected_seq: int
                  ) -> AppendResult:
    """Append input events to a stored game if its last seq is ``expected_seq``.

    The engine checks them exactly as an import does; derived events are added (or, when
    given, must match). Nothing is written unless every event is legal.
    """
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
    n_players = len(events[0].players) if events else None
    appended: list[ev.Event] = []
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
                    all_events.append(d), states.append(s), appended.append(d)
            s = apply(s, e)
        except SeasaltError as exc:
            exc.index = i                      # type: ignore[attr-defined]
            if hasattr(exc, "locate"):
                exc.locate(game_id=game_id)
            raise
        all_events.append(e), states.append(s), appended.append(e)
    while (d := next_derived(s)) is not None:
        s = apply(s, d)
        all_events.append(d), states.append(s), appended.append(d)
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
