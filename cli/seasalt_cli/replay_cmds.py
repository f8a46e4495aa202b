"""``seasalt replay | log | rescore``: rebuild a stored game's state at any point, read its
events as sentences, and rescore a round with today's engine.

``--as PLAYER`` shows only what that player could see (RULES.md §7): other players' hidden
hands, the cards of their deck draws, crab and fish effects, and the deck order are left out
of every output, JSON included.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from msgspec import Struct

from seasalt_log import events as ev
from seasalt_log import narration
from seasalt_log import replay as rp
from seasalt_log.render import render_report, render_state
from seasalt_log.rescore import rescore
from seasalt_log.engine import State, apply
from seasalt_log.errors import UsageError
from seasalt_log.store import Store
from seasalt_log.view import TableView, table_view
from seasalt_log.analytics.output import rows_result, structs_result

from .app import app, db_path, handles_errors, print_json
from .formats import chosen, emit
from .options import DbOption, Format, FormatOption, GameArg, JsonOption

#: ``replay`` / ``log`` / ``rescore`` print their text unless a --format is given, piped too
TEXT = "table"
#: the rows of ``replay --format csv|jsonl``: one per seat
SEAT_COLUMNS = ["seat", "name", "hand_size", "hand", "laid", "revealed", "card_points", "total"]

AsOption = typer.Option(None, "--as", metavar="PLAYER", show_default=False,
                        help="Show only what this player (name or seat number) could see.")


def load_events(db: Path | None, game: str) -> list[ev.Event]:
    """A stored game's events, derived ones included (raises UnknownGameError)."""
    with Store.open(db_path(db), read_only=True) as store:
        return store.read_events(game)


def _viewer(events: list[ev.Event], who: str | None, game: str) -> int | None:
    if who is None:
        return None
    start = apply(State(), events[0])
    if start.game_id is None:
        from msgspec.structs import replace
        start = replace(start, game_id=game)
    return rp.resolve_seat(start, who)


def _plain(text: str) -> None:
    sys.stdout.write(text + "\n")


# ---------------------------------------------------------------- replay

class TurnFrame(Struct, frozen=True):
    """One turn of ``seasalt replay --follow --json``: its events as lines and the state after."""

    round: int
    turn: int
    events: list[str]
    state: TableView


def _print_view(view: TableView, last: str | None) -> None:
    """The state as text (RULES.md's words; no value cut, whatever the terminal's width)."""
    _plain(render_state(view))
    if last:
        _plain(f"Last event: {last}")


@app.command("replay")
@handles_errors
def replay_cmd(
    game: str = GameArg,
    round: int = typer.Option(None, "--round", "-r", metavar="N", show_default=False,
                              help="Round number (alone: the end of that round)."),
    turn: int = typer.Option(None, "--turn", "-t", metavar="N", show_default=False,
                             help="Turn number within --round (0: the round's start)."),
    seq: int = typer.Option(None, "--seq", metavar="N", show_default=False,
                            help="Event number (game_started is 1)."),
    as_player: str = AsOption,
    as_json: bool = JsonOption,
    fmt: Format = FormatOption,
    follow: bool = typer.Option(False, "--follow", "-f",
                                help="Walk through a round turn by turn (--round, default the last; "
                                     "from --turn if given): on a terminal a key shows the next "
                                     "turn (q stops), else every turn is printed."),
    db: Path = DbOption,
) -> None:
    """Rebuild a stored game's state after an event (--seq), after a turn (--round/--turn),
    or now; --follow shows every turn of a round with its events."""
    if seq is not None and (round is not None or turn is not None):
        raise UsageError("--seq names a point on its own: do not combine it with --round/--turn")
    if turn is not None and round is None:
        raise UsageError("--turn needs --round (a turn is numbered within its round)")
    fmt = chosen(fmt, as_json, TEXT)
    events = load_events(db, game)
    viewer = _viewer(events, as_player, game)
    if follow:
        if seq is not None:
            raise UsageError("--follow walks a round: use --round (and --turn), not --seq")
        if fmt in ("csv", "jsonl"):
            raise UsageError(f"--follow prints text or one JSON document, not --format {fmt}")
        _follow(events, game, round, turn, viewer, fmt == "json")
        return
    state = rp.replay(events, round=round, turn=turn, seq=seq, game_id=game)
    view = table_view(state, viewer)
    if fmt != TEXT:
        emit(structs_result(view.seats, SEAT_COLUMNS), fmt, document=view)
        return
    last = events[state.seq - 1]
    before = rp.replay(events, seq=state.seq - 1, game_id=game) if state.seq > 1 else State()
    _print_view(view, narration.describe(last, before, viewer))


def _follow(events, game: str, round: int | None, turn: int | None, viewer: int | None,
            as_json: bool) -> None:
    if round is None:
        round = rp.replay(events, game_id=game).flow.round
        if round == 0:
            raise UsageError(f"game {game} has no round yet")
    all_turns = rp.turns(events, round, game_id=game)
    if turn is not None:
        last = all_turns[-1].turn if all_turns else 0
        if turn < 0 or turn > last:
            raise UsageError(f"game {game}: round {round} has {last} turn{'s' if last != 1 else ''}; "
                             f"there is no turn {turn}")
        all_turns = [t for t in all_turns if t.turn >= turn]
    frames = [TurnFrame(round=t.round, turn=t.turn,
                        events=[narration.describe(st.event, st.before, viewer) for st in t.steps],
                        state=table_view(t.state, viewer))
              for t in all_turns]
    if as_json:
        print_json(frames)
        return
    stepping = _interactive()        # a key per turn; piped: every turn at once
    for i, fr in enumerate(frames):
        if i and stepping and not _next_turn():
            return
        if i:
            _plain("")
        _plain(f"== Round {fr.round}, turn {fr.turn} ==")
        for line in fr.events:
            _plain(f"  {line}")
        _print_view(fr.state, None)


def _interactive() -> bool:
    """Both ends are a terminal: ``--follow`` may wait for a key between turns."""
    return sys.stdout.isatty() and sys.stdin.isatty()


def _next_turn() -> bool:
    """Wait for a key on the terminal: False on q, Escape or Ctrl-C/Ctrl-D (stop)."""
    sys.stderr.write("-- any key: next turn; q: stop --")
    sys.stderr.flush()
    try:
        key = typer.getchar()
    except (KeyboardInterrupt, EOFError):
        key = "q"
    sys.stderr.write("\r\033[K")
    return key not in ("q", "Q", "\x1b", "\x03", "\x04")


# ---------------------------------------------------------------- log

@app.command("log")
@handles_errors
def log_cmd(
    game: str = GameArg,
    as_player: str = AsOption,
    as_json: bool = JsonOption,
    fmt: Format = FormatOption,
    db: Path = DbOption,
) -> None:
    """Every event of a stored game as a sentence, with its seq, round and turn
    (--format csv|jsonl: seq, round, turn, type, player, text; json: the events too)."""
    fmt = chosen(fmt, as_json, TEXT)
    events = load_events(db, game)
    viewer = _viewer(events, as_player, game)
    lines = narration.log_lines(events, viewer=viewer, game_id=game)
    if fmt != TEXT:
        emit(structs_result(lines, ["seq", "round", "turn", "type", "player", "text"]), fmt,
             document=lines)
        return
    width = len(str(len(lines)))
    for ln in lines:
        pos = f"r{ln.round} t{ln.turn}" if ln.turn else (f"r{ln.round}" if ln.round else "")
        _plain(f"{ln.seq:>{width}}  {pos:<8} {ln.text}")


# ---------------------------------------------------------------- rescore

@app.command("rescore")
@handles_errors
def rescore_cmd(
    game: str = GameArg,
    round: int = typer.Option(..., "--round", "-r", metavar="N", show_default=False,
                              help="Round number."),
    as_json: bool = JsonOption,
    fmt: Format = FormatOption,
    db: Path = DbOption,
) -> None:
    """Rescore a round with today's engine: each player's breakdown, the points recomputed
    next to the stored ones, and the what-if of the other call (--format csv|jsonl: one
    row per player; json: the whole report)."""
    fmt = chosen(fmt, as_json, TEXT)
    events = load_events(db, game)
    report = rescore(events, round, game_id=game)
    if fmt == TEXT:
        _plain(render_report(report))
        return
    parts = ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus")
    rows = [(p.seat, p.name, *(getattr(p.breakdown, f) for f in parts), p.points,
             p.stored_points, p.total, p.stored_total, p.what_if_points) for p in report.players]
    columns = ["seat", "name", *parts, "points", "stored_points", "total", "stored_total",
               "what_if_points"]
    emit(rows_result(columns, rows), fmt, document=report)
