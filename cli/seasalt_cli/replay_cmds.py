"""``seasalt replay | log | rescore``: rebuild a stored game's state at any point, read its
events as sentences, and rescore a round with today's engine.

``--as PLAYER`` shows only what that player could see (RULES.md §7): other players' hidden
hands, the cards of their deck draws, crab and fish effects, and the deck order are left out
of every output, JSON included.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import typer

from seasalt_log import events as ev
from seasalt_log import narration
from seasalt_log import replay as rp
from seasalt_log.render import render_report, render_state
from seasalt_log.rescore import rescore
from seasalt_log.engine import State, apply
from seasalt_log.store import Store
from seasalt_log.turn_frames import TurnFrame, turn_frames
from seasalt_log.view import SPECTATOR, TableView, Viewer, table_view
from seasalt_log.analytics.output import rows_result, structs_result

from .app import app, handles_errors, log, print_json, usage
from .formats import chosen, emit
from .options import (DbOption, Format, FormatJsonOption, GameArg, ReadTokenOption,
                      TextFormatOption, UrlOption)
from .remote import local_or_remote

#: ``replay`` / ``log`` / ``rescore`` print their text unless a --format is given, piped too
TEXT = "table"
#: the rows of ``replay --format csv|jsonl``: one per seat
SEAT_COLUMNS = ["seat", "name", "hand_size", "hand", "laid", "revealed", "card_points", "total"]

AsOption = typer.Option(None, "--as", metavar="PLAYER", show_default=False,
                        help="Show only what this player (name or seat number) could see; "
                             "'spectator': what someone without a seat could see.")


def load_events(path: Path, game: str) -> list[ev.Event]:
    """A stored game's events, derived ones included (raises UnknownGameError)."""
    with Store.open(path, read_only=True) as store:
        return store.read_events(game)


def _viewer(events: list[ev.Event], who: str | None, game: str) -> Viewer | int | None:
    """The seat ``--as`` names, or a spectator (None: every seat shown), from the game's
    first event; ``spectator`` is a spectator as the service reads it (docs/HTTP.md)."""
    if who is None:
        return None
    if who == "spectator":
        return SPECTATOR
    start = apply(State(), events[0])
    if start.game_id is None:
        start = start.changed(game_id=game)
    return rp.resolve_seat(start, who)


def _plain(text: str) -> None:
    sys.stdout.write(text + "\n")


# ---------------------------------------------------------------- replay

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
    as_json: bool = FormatJsonOption,
    fmt: Format = TextFormatOption,
    follow: bool = typer.Option(False, "--follow", "-f",
                                help="Walk through a round turn by turn (--round, default the last; "
                                     "from --turn if given): on a terminal a key shows the next "
                                     "turn (q stops), else every turn is printed."),
    db: Path = DbOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
) -> None:
    """Rebuild a stored game's state after an event (--seq), after a turn (--round/--turn),
    or now; --follow shows every turn of a round with its events."""
    if seq is not None and (round is not None or turn is not None):
        usage("--seq names a point on its own: do not combine it with --round/--turn")
    if turn is not None and round is None:
        usage("--turn needs --round (a turn is numbered within its round)")
    fmt = chosen(fmt, as_json, TEXT)
    if follow and seq is not None:
        usage("--follow walks a round: use --round (and --turn), not --seq")
    if follow and fmt == "csv":
        usage("--follow prints text, one JSON document or JSON Lines, not --format csv")

    # --follow of a round with no turn played yet (a live game between two rounds) shows
    # the table at the round's start instead of nothing
    start = {"round": round, "turn": 0 if round is not None else None, "seq": None}

    def local(path):
        if follow:
            events = load_events(path, game)
            frames = turn_frames(events, game, round, turn, _viewer(events, as_player, game))
            if frames or fmt != TEXT:
                return frames
        # a point of a stored game: only the round that holds it is decoded and folded
        with Store.open(path, read_only=True) as store:
            texts = store.read_texts(game)
        viewer = _viewer([ev.decode(texts[0])], as_player, game)
        at = start if follow else {"round": round, "turn": turn, "seq": seq}
        state = rp.replay_stored(texts, **at, game_id=game)
        if fmt != TEXT:
            return table_view(state, viewer), None
        before = (rp.replay_stored(texts, seq=state.seq - 1, game_id=game) if state.seq > 1
                  else State())
        last = ev.decode(texts[state.seq - 1])
        return table_view(state, viewer), narration.describe(last, before, viewer)

    def remote(u):
        from seasalt_log.http import client
        if follow:
            frames = client.remote_turns(u, token, game, round=round, turn=turn, who=as_player)
            if frames or fmt != TEXT:
                return frames
        at = start if follow else {"round": round, "turn": turn, "seq": seq}
        view = client.remote_state(u, token, game, **at, who=as_player)
        if fmt != TEXT:
            return view, None
        line = client.remote_log(u, token, game, who=as_player, after=view.seq - 1, limit=1)
        return view, line[0].text if line else None

    answer = local_or_remote(db, url, local, remote)
    if isinstance(answer, list):
        _print_frames(answer, fmt)
    elif fmt != TEXT:
        view = answer[0]
        emit(structs_result(view.seats, SEAT_COLUMNS), fmt, document=view)
    else:
        if follow:
            what = f"round {answer[0].round}" if answer[0].round else "the game"
            log.info(f"seasalt: {what} of game {game} has no turn played yet; the table now:")
        _print_view(*answer)


def _print_frames(frames: list[TurnFrame], fmt: str) -> None:
    """The turns of ``--follow``: one JSON document, a turn a line (jsonl), or the text."""
    if fmt == "json":
        print_json(frames)
        return
    if fmt == "jsonl":
        sys.stdout.write("".join(msgspec.json.encode(fr).decode() + "\n" for fr in frames))
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
    as_json: bool = FormatJsonOption,
    fmt: Format = TextFormatOption,
    db: Path = DbOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
) -> None:
    """Every event of a stored game as a sentence, with its seq, round and turn
    (--format csv|jsonl: seq, round, turn, type, player, text; json: the events too)."""
    out_fmt = chosen(fmt, as_json, TEXT)

    def local(path):
        events = load_events(path, game)
        return narration.log_lines(events, viewer=_viewer(events, as_player, game), game_id=game)

    def remote(u):
        from seasalt_log.http.client import remote_log
        return remote_log(u, token, game, who=as_player)
    lines = local_or_remote(db, url, local, remote)
    if out_fmt != TEXT:
        emit(structs_result(lines, ["seq", "round", "turn", "type", "player", "text"]), out_fmt,
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
    as_json: bool = FormatJsonOption,
    fmt: Format = TextFormatOption,
    db: Path = DbOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
) -> None:
    """Rescore a round with today's engine: each player's breakdown, the points recomputed
    next to the stored ones, and the what-if of the other call (--format csv|jsonl: one
    row per player; json: the whole report)."""
    out_fmt = chosen(fmt, as_json, TEXT)

    def remote(u):
        from seasalt_log.http.client import remote_rescore
        return remote_rescore(u, token, game, round)
    report = local_or_remote(db, url, lambda path: rescore(load_events(path, game), round,
                                                             game_id=game), remote)
    if out_fmt == TEXT:
        _plain(render_report(report))
        return
    parts = ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus")
    rows = [(p.seat, p.name, *(getattr(p.breakdown, f) for f in parts), p.points,
             p.stored_points, p.total, p.stored_total, p.what_if_points) for p in report.players]
    columns = ["seat", "name", *parts, "points", "stored_points", "total", "stored_total",
               "what_if_points"]
    emit(rows_result(columns, rows), out_fmt, document=report)
