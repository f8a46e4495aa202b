"""Fold a batch of whole games with the engine: the one code path behind ``seasalt verify``,
``seasalt rebuild`` and ``seasalt archive``.

:func:`fold_game` decodes one game's stored events and folds them through the engine,
stopping at the first problem (a :class:`Failure` with its rule id, seq, round and turn).
:func:`fold_games` does that for many games and gathers the per-game results
(:data:`RESULT_COLUMNS`), the per-round results (:data:`ROUND_COLUMNS`) and, on request, the
read-model rows of :func:`seasalt_log.store.projections.project`. :func:`fold_partition` is
the same over an Arrow table of whole games (columns ``game_id``, ``seq``, ``event``), which
is what a worker of a distributed engine holds.

Nothing here knows a ruleset: the events say which one a game plays and the engine applies it.
"""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, cast

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from .. import events as ev
from ..engine import State, apply, fold, next_derived
from ..engine.state import ENDED
from ..errors import IllegalMoveError, LogFormatError, SeasaltError
from .arrow_rows import arrow_type
from .projections import project

# the decoders' own type is the union of the event types: lists of events
_decode_list = cast("Callable[[str], list[ev.Event]]",
                    msgspec.json.Decoder(list[ev.AnyEvent]).decode)
_decode_stream = cast("Callable[[memoryview], list[ev.Event]]",
                      msgspec.json.Decoder(ev.AnyEvent).decode_lines)

#: the per-game results: one row per game
RESULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"),
    ("events", "INTEGER"),        # events read (rows of the game)
    ("ok", "BOOLEAN"),            # every event legal and every derived event as computed
    ("status", "VARCHAR"),        # 'ended' | 'in_progress' | 'failed'
    ("rounds", "SMALLINT"),       # rounds scored (up to the error, if any)
    ("winners", "TINYINT[]"),     # NULL unless the game ended
    ("totals", "SMALLINT[]"),     # after the last scored round folded
    ("error_kind", "VARCHAR"),    # 'format' | 'rule' | 'derived' (verify's kinds); NULL if ok
    ("error_rule", "VARCHAR"),    # RULES.md id (R-...) or LOG-FORMAT
    ("error_seq", "INTEGER"),     # the event's seq (rows + 1 for one missing at the end)
    ("error_round", "SMALLINT"),
    ("error_turn", "SMALLINT"),
    ("error", "VARCHAR"),         # 'RULE-ID: reason', as seasalt verify words it
)
#: the per-round results: one row per round_scored folded
ROUND_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "VARCHAR"),
    ("round", "SMALLINT"),
    ("ending", "VARCHAR"),        # 'stop' | 'last_chance' | 'deck_out'
    ("caller", "TINYINT"),
    ("caller_won", "BOOLEAN"),
    ("card_points", "SMALLINT[]"),
    ("color_bonus", "SMALLINT[]"),
    ("points", "SMALLINT[]"),
    ("totals", "SMALLINT[]"),
)


class Failure(msgspec.Struct, frozen=True):
    """The first problem of a game: ``index`` is the position of the event in the game's rows
    (the number of rows for a derived event missing at the end)."""

    kind: str          # 'format' | 'rule' | 'derived'
    rule: str
    message: str       # 'RULE-ID: reason'
    index: int
    round: int | None
    turn: int | None


class Folded(NamedTuple):
    """One game folded: its decoded events and the state after each (up to the failure)."""

    events: list[ev.Event]
    states: list[State]
    failure: Failure | None

    @property
    def complete(self) -> bool:
        """Every event was folded (a failure, if any, is a derived event missing at the end)."""
        return self.failure is None or self.failure.kind == "derived" and \
            self.failure.index == len(self.events)


def reason(exc: SeasaltError) -> str:
    """``RULE-ID: reason`` of an error, without its position."""
    if isinstance(exc, LogFormatError):
        return f"{exc.rule}: {exc.reason}" + (f" at {exc.path}" if exc.path else "")
    if isinstance(exc, IllegalMoveError):
        return f"{exc.rule}: {exc.reason}"
    return str(exc)


def _decode_all(texts: list[str]) -> list[ev.Event] | None:
    try:
        return _decode_list("[" + ",".join(texts) + "]")
    except (msgspec.DecodeError, RecursionError):
        return None            # fold_game decodes them one by one to say which and why


def fold_game(texts: list[str], *, strict: bool = True) -> Folded:
    """Decode one game's stored events (JSON, in seq order) and fold them with the engine.

    The checks of ``seasalt verify``: each event decodes and fits the game (seats, per-seat
    lengths), a single game_started, every event legal, every derived event exactly as the
    engine computes it, none missing (before an input event, or at the end). Stops at the
    first problem.

    ``strict=False`` folds with the engine alone first (about a third faster) and only when
    that fails folds again with every check, so the outcome and the failure reported are
    the same (see :func:`_fold_fast`)."""
    if not strict:
        folded = _fold_fast(texts)
        if folded is not None:
            return folded
    decoded = _decode_all(texts)
    events: list[ev.Event] = []
    states: list[State] = []
    s = State()
    n_players = None
    for i, text in enumerate(texts):
        try:
            e = decoded[i] if decoded is not None else ev.decode(text)
            if type(e) is ev.GameStarted:
                if events:
                    raise LogFormatError("a second game_started inside the game", "$.type")
                n_players = len(e.players)
            ev.validate(e, n_players)
        except LogFormatError as exc:
            return Folded(events, states, _failure("format", exc, i, s))
        try:
            if type(e) not in ev.DERIVED_TYPES:
                d = next_derived(s)
                if d is not None:
                    raise IllegalMoveError("R-DERIVED", f"{ev.TAGS[type(d)]} is missing before "
                                                        "this event")
            s = apply(s, e)
        except SeasaltError as exc:
            kind = "derived" if getattr(exc, "rule", None) == "R-DERIVED" else "rule"
            return Folded(events, states, _failure(kind, exc, i, s))
        events.append(e)
        states.append(s)
    d = next_derived(s)
    if d is not None:
        return Folded(events, states, Failure(
            "derived", "R-DERIVED",
            f"R-DERIVED: {ev.TAGS[type(d)]} is missing at the end of the game",
            len(texts), s.flow.round or None, s.flow.turn or None))
    return Folded(events, states, None)


def _fold_fast(texts: list[str]) -> Folded | None:
    """The engine alone over the events (see :func:`_engine_states`); None when anything
    fails.

    Every other check of the strict fold is one the engine makes too, in its own words: a
    seat out of range fails as an index or a wrong player, a derived event missing before an
    input event as R-DERIVED, per-seat lists and winners by comparison with the computed
    derived event. So a game passes here exactly when it passes the strict fold, and a
    failure is then reported by the strict fold."""
    events = _decode_all(texts)
    if events is None:
        return None
    states = _engine_states(events)
    return Folded(events, states, None) if states is not None else None


def _engine_states(events: list[ev.Event], every: bool = True) -> list[State] | None:
    """The state after each of ``events`` (``every=False``: after the last only), folded by
    the engine with the format checks of game_started and round_started, which it does not
    repeat; None when anything fails or a derived event is missing at the end."""
    if not events or type(events[0]) is not ev.GameStarted:
        return None
    try:
        ev.validate(events[0], None)
        n = len(events[0].players)
        if every:
            states, s = [], State()
            for e in events:
                if type(e) is ev.RoundStarted:
                    ev.validate(e, n)
                s = apply(s, e)
                states.append(s)
        else:
            for e in events:
                if type(e) is ev.RoundStarted:
                    ev.validate(e, n)
            s = fold(events)
            states = [s]
    except SeasaltError:
        return None
    return states if next_derived(s) is None else None


def _failure(kind: str, exc: SeasaltError, index: int, s: State) -> Failure:
    rnd = getattr(exc, "round", None) or s.flow.round or None
    turn = getattr(exc, "turn", None) or s.flow.turn or None
    return Failure(kind, getattr(exc, "rule", "LOG-FORMAT"), reason(exc), index, rnd, turn)


def describe(game_id: str, rnd: int | None, turn: int | None, message: str) -> str:
    """A failure as one line: ``game G, round R, turn T: RULE-ID: reason``."""
    where = [f"game {game_id}"] + ([f"round {rnd}"] if rnd else []) + ([f"turn {turn}"] if turn else [])
    return ", ".join(where) + ": " + message


RowsCallback = Callable[[dict[str, list[tuple]]], None]


class Batch:
    """The results of :func:`fold_games`: rows in :data:`RESULT_COLUMNS` and
    :data:`ROUND_COLUMNS` order, and counts."""

    def __init__(self) -> None:
        self.results: list[tuple] = []
        self.rounds: list[tuple] = []
        self.games = 0
        self.events = 0
        self.failed = 0

    def failures(self) -> list[tuple]:
        """The result rows of the games that failed."""
        return [r for r in self.results if not r[2]]

    def first_error(self) -> str | None:
        """The first failure as one line (see :func:`describe`), or None."""
        for r in self.results:
            if not r[2]:
                return describe(r[0], r[10], r[11], r[12])
        return None

    def add(self, gid: str, rows: int, events: list[ev.Event], last: State | None,
            failure: Failure | None, seq_at: Callable[[int], int] | None = None) -> None:
        """The results of one game folded: ``events`` folded (up to the failure), ``last``
        the state after them; ``seq_at(i)``: the seq of the game's row ``i`` (default
        ``i + 1``)."""
        self.games += 1
        self.events += rows
        for e in events:
            if type(e) is ev.RoundScored:
                self.rounds.append((gid, e.round, e.ending, e.caller, e.caller_won,
                                    list(e.card_points), list(e.color_bonus), list(e.points),
                                    list(e.totals)))
        if failure is None:
            assert last is not None, "a game that folds has events"
            ended = last.phase == ENDED
            self.results.append((gid, rows, True, "ended" if ended else "in_progress",
                                 last.rounds_played, list(last.winners) if ended else None,
                                 list(last.totals), None, None, None, None, None, None))
            return
        self.failed += 1
        i = failure.index
        seq = seq_at(i) if seq_at is not None and i < rows else i + 1
        self.results.append((gid, rows, False, "failed", last.rounds_played if last else 0,
                             None, list(last.totals) if last else [], failure.kind,
                             failure.rule, seq, failure.round, failure.turn, failure.message))

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """(per-game results, per-round results) as Arrow tables."""
        return (_arrow(RESULT_COLUMNS, self.results), _arrow(ROUND_COLUMNS, self.rounds))


def fold_games(games: Iterable[tuple[str, list[str], list[int] | None]], *,
               read_models: RowsCallback | None = None, strict: bool = True) -> Batch:
    """Fold each ``(game_id, [event JSON, ...], [seq, ...] or None)`` (seqs default to
    1..n) with :func:`fold_game`; give the read-model rows of every game that folds whole to
    ``read_models`` (table name -> rows, as :func:`~seasalt_log.store.projections.project`
    makes them), when given. ``strict``: see :func:`fold_game`."""
    out = Batch()
    for gid, texts, seqs in games:
        events, states, failure = fold_game(texts, strict=strict)
        out.add(gid, len(texts), events, states[-1] if states else None, failure,
                seqs.__getitem__ if seqs is not None else None)
        if read_models is not None and failure is None and events:
            read_models(project(gid, events, states))
    return out


def split_games(table: pa.Table) -> Iterable[tuple[str, list[str], list[int]]]:
    """The games of an Arrow table with columns ``game_id``, ``seq``, ``event``, each game's
    rows contiguous and in seq order, as :func:`fold_games` takes them."""
    if table.num_rows == 0:
        return
    ids = table.column("game_id").to_pylist()
    texts = table.column("event").to_pylist()
    seqs = table.column("seq").to_pylist()
    start = 0
    n = len(ids)
    while start < n:
        gid = ids[start]
        end = start + 1
        while end < n and ids[end] == gid:
            end += 1
        yield gid, texts[start:end], seqs[start:end]
        start = end


def fold_partition(table: pa.Table, *, read_models: RowsCallback | None = None,
                   sort: bool = False, strict: bool = True) -> Batch:
    """:func:`fold_games` over an Arrow table of whole games (``game_id``, ``seq``,
    ``event``; other columns ignored). The rows of each game must be contiguous and in seq
    order, or ``sort`` (sort them here). ``strict``: see :func:`fold_game`.

    With ``strict=False`` the events are decoded straight from the Arrow column in one call
    and each game is folded by the engine alone; only a game that fails (or a partition
    that does not decode) goes through :func:`fold_game` again, for its first error."""
    if sort:
        table = table.sort_by([("game_id", "ascending"), ("seq", "ascending")])
    events = None if strict or table.num_rows == 0 else decode_column(table.column("event"))
    if events is None:
        return fold_games(split_games(table), read_models=read_models, strict=strict)
    starts = game_starts(table.column("game_id"))
    ids = table.column("game_id").take(starts[:-1]).to_pylist()
    seqs, texts = table.column("seq"), table.column("event")
    out = Batch()
    for k, gid in enumerate(ids):
        a, b = starts[k], starts[k + 1]
        # both called before the next game
        game, states, failure = fold_decoded(events[a:b], lambda: texts.slice(
            a, b - a).to_pylist(), every=read_models is not None)
        out.add(gid, b - a, game, states[-1] if states else None, failure,
                lambda i: seqs[a + i].as_py())
        if read_models is not None and failure is None:
            read_models(project(gid, game, states))
    return out


def fold_decoded(events: list[ev.Event], texts: Callable[[], list[str]], *,
                 every: bool = True) -> Folded:
    """:func:`fold_game` of one game whose events are already decoded (from a whole column,
    :func:`decode_column`): the engine alone first, and only when that fails the strict
    fold of the game's stored texts (``texts()``), for its first error. ``every=False``
    keeps only the last state of a game that folds."""
    states = _engine_states(events, every=every)
    if states is None:
        return fold_game(texts())
    return Folded(events, states, None)


def decode_column(column: pa.ChunkedArray) -> list[ev.Event] | None:
    """Every event of a string column, decoded in one call from its bytes (the texts lie
    back to back in the Arrow buffer); None when they do not decode one event per row."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if arr.null_count or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    width = pa.int64() if pa.types.is_large_string(arr.type) else pa.int32()
    offsets = pa.Array.from_buffers(width, arr.offset + len(arr) + 1, [None, arr.buffers()[1]])
    first, end = offsets[arr.offset].as_py(), offsets[arr.offset + len(arr)].as_py()
    try:
        events = _decode_stream(memoryview(arr.buffers()[2])[first:end])
    except (msgspec.DecodeError, RecursionError):
        return None
    # one event per row: every row holds an object, and no row's text runs into the next
    # (a row with two objects and one with none could otherwise pair up)
    if len(events) != len(arr) or not pc.all(pc.starts_with(pc.utf8_ltrim_whitespace(arr), "{")).as_py():
        return None
    return events


def game_starts(ids: pa.ChunkedArray) -> list[int]:
    """The row where each game of ``ids`` (its rows contiguous) starts, and the number of
    rows."""
    n = len(ids)
    if n < 2:
        return [0, n]
    new = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    return [0] + pc.add(pc.indices_nonzero(new), 1).to_pylist() + [n]


def numbered_games(table: pa.Table) -> list[int] | None:
    """:func:`game_starts` of ``table`` when each game's rows lie together and are its seqs
    1, 2, ... in order (each game's first row seq 1, every other row one more than the row
    before it); None otherwise (or when ``table`` is empty)."""
    n = table.num_rows
    if n == 0:
        return None
    ids, seqs = table.column("game_id"), pc.cast(table.column("seq"), pa.int64())
    new = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    steps = pc.if_else(new, pc.equal(seqs.slice(1), 1),
                       pc.equal(pc.subtract(seqs.slice(1), seqs.slice(0, n - 1)), 1))
    if seqs[0].as_py() != 1 or not pc.all(steps, skip_nulls=False, min_count=0).as_py():
        return None                 # (a null anywhere makes the answer null: not numbered)
    starts = [0] + pc.add(pc.indices_nonzero(new), 1).to_pylist() + [n]
    firsts = ids.take(starts[:-1]).to_pylist()
    return starts if len(set(firsts)) == len(firsts) else None


def whole_games(table: pa.Table) -> bool:
    """Whether each game's rows in ``table`` are contiguous and in ascending seq order."""
    if table.num_rows < 2:
        return True
    ids, seqs = table.column("game_id"), table.column("seq")
    same = pc.equal(ids.slice(1), ids.slice(0, table.num_rows - 1))
    starts = pc.sum(pc.invert(same)).as_py() + 1
    if starts != pc.count_distinct(ids).as_py():
        return False
    rising = pc.greater(seqs.slice(1), seqs.slice(0, table.num_rows - 1))
    return pc.all(pc.or_(pc.invert(same), rising)).as_py()


def _arrow(columns, rows: list[tuple]) -> pa.Table:
    schema = pa.schema([(n, arrow_type(t)) for n, t in columns])
    if not rows:
        return schema.empty_table()
    return pa.Table.from_batches(
        [pa.RecordBatch.from_struct_array(pa.array(rows, type=pa.struct(list(schema))))])
