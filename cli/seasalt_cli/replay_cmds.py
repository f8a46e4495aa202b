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
from rich import box
from rich.table import Table
from rich.text import Text

from seasalt_log import events as ev
from seasalt_log import narration
from seasalt_log import replay as rp
from seasalt_log.render import render_report, render_state
from seasalt_log.rescore import rescore
from seasalt_log.engine import State, apply
from seasalt_log.errors import UsageError
from seasalt_log.store import Store
from seasalt_log.turn_frames import TurnFrame, turn_frames
from seasalt_log.view import TableView, table_view

from .app import app, handles_errors, out, print_json
from .options import DbOption, GameArg, JsonOption, ReadTokenOption, UrlOption
from .remote import local_or_remote

AsOption = typer.Option(None, "--as", metavar="PLAYER", show_default=False,
                        help="Show only what this player (name or seat number) could see.")


def load_events(path: Path, game: str) -> list[ev.Event]:
    """A stored game's events, derived ones included (raises UnknownGameError)."""
    with Store.open(path, read_only=True) as store:
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


def _terminal() -> bool:
    return out.is_terminal


# ---------------------------------------------------------------- replay

def _print_view(view: TableView, last: str | None) -> None:
    if not _terminal():
        _plain(render_state(view))
        if last:
            _plain(f"Last event: {last}")
        return
    names = [s.name for s in view.seats]
    head = render_state(view).splitlines()
    # header lines up to the first seat line, as text; the seats as a table
    for line in head:
        if line.startswith(("  ", "> ")):
            break
        out.print(line, markup=False)
    table = Table(show_lines=False)
    for col in ("", "seat", "name", "hand", "laid", "card pts", "total"):
        table.add_column(col, overflow="fold")
    for s in view.seats:
        here = "▶" if view.phase == "round" and view.player == s.seat else ""
        hand = f"{s.hand_size} hidden" if s.hand is None else (", ".join(s.hand) or "-")
        laid = ",\n".join(" + ".join(u) for u in s.laid) or "-"
        table.add_row(here, str(s.seat), Text(s.name), hand, laid,
                      "?" if s.card_points is None else str(s.card_points), str(s.total))
    out.print(table)
    out.print(f"Totals: {', '.join(f'{n} {t}' for n, t in zip(names, view.totals))} "
              f"(target {view.target})", markup=False)
    if last:
        out.print(f"Last event: {last}", markup=False)


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
        raise UsageError("--seq names a point on its own: do not combine it with --round/--turn")
    if turn is not None and round is None:
        raise UsageError("--turn needs --round (a turn is numbered within its round)")
    if follow and seq is not None:
        raise UsageError("--follow walks a round: use --round (and --turn), not --seq")

    def local(path):
        events = load_events(path, game)
        viewer = _viewer(events, as_player, game)
        if follow:
            return turn_frames(events, game, round, turn, viewer)
        state = rp.replay(events, round=round, turn=turn, seq=seq, game_id=game)
        if as_json:
            return table_view(state, viewer), None
        before = rp.replay(events, seq=state.seq - 1, game_id=game) if state.seq > 1 else State()
        return table_view(state, viewer), narration.describe(events[state.seq - 1], before, viewer)

    def remote(u):
        from seasalt_log.http import client
        if follow:
            return client.remote_turns(u, token, game, round=round, turn=turn, who=as_player)
        view = client.remote_state(u, token, game, round=round, turn=turn, seq=seq,
                                   who=as_player)
        if as_json:
            return view, None
        line = client.remote_log(u, token, game, who=as_player, after=view.seq - 1, limit=1)
        return view, line[0].text if line else None

    answer = local_or_remote(db, url, local, remote)
    if follow:
        _print_frames(answer, as_json)
    elif as_json:
        print_json(answer[0])
    else:
        _print_view(*answer)


def _print_frames(frames: list[TurnFrame], as_json: bool) -> None:
    if as_json:
        print_json(frames)
        return
    stepping = _interactive()        # a key per turn; piped: every turn at once
    for i, fr in enumerate(frames):
        if i and stepping and not _next_turn():
            return
        if i:
            _plain("")
        title = f"== Round {fr.round}, turn {fr.turn} =="
        if _terminal():
            out.rule(title.strip("= "))
        else:
            _plain(title)
        for line in fr.events:
            _plain(f"  {line}")
        _print_view(fr.state, None)


def _interactive() -> bool:
    """Both ends are a terminal: ``--follow`` may wait for a key between turns."""
    return _terminal() and sys.stdin.isatty()


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
    db: Path = DbOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
) -> None:
    """Every event of a stored game as a sentence, with its seq, round and turn."""

    def local(path):
        events = load_events(path, game)
        return narration.log_lines(events, viewer=_viewer(events, as_player, game), game_id=game)

    def remote(u):
        from seasalt_log.http.client import remote_log
        return remote_log(u, token, game, who=as_player)
    lines = local_or_remote(db, url, local, remote)
    if as_json:
        print_json(lines)
        return
    if _terminal():
        table = Table()
        table.add_column("seq", justify="right")
        table.add_column("round", justify="right")
        table.add_column("turn", justify="right")
        table.add_column("event", overflow="fold")
        for ln in lines:
            table.add_row(str(ln.seq), str(ln.round or ""), str(ln.turn or ""), ln.text)
        out.print(table)
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
    db: Path = DbOption,
    url: str = UrlOption,
    token: str = ReadTokenOption,
) -> None:
    """Rescore a round with today's engine: each player's breakdown, the points recomputed
    next to the stored ones, and the what-if of the other call."""

    def remote(u):
        from seasalt_log.http.client import remote_rescore
        return remote_rescore(u, token, game, round)
    report = local_or_remote(db, url, lambda path: rescore(load_events(path, game), round,
                                                             game_id=game), remote)
    if as_json:
        print_json(report)
        return
    if not _terminal():
        _plain(render_report(report))
        return
    text = render_report(report).splitlines()
    out.print(text[0], markup=False)
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("")
    for p in report.players:
        table.add_column(Text(p.name), justify="right")
    rows = [(f, [getattr(p.breakdown, f) for p in report.players])
            for f in ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus")]
    rows += [("points", [p.points for p in report.players]),
             ("stored points", [p.stored_points for p in report.players]),
             ("total", [p.total for p in report.players])]
    if report.what_if:
        call = "STOP" if report.what_if.call == "stop" else "LAST CHANCE"
        rows.append((f"if {call}", [p.what_if_points for p in report.players]))
    for label, values in rows:
        bold = label in ("card_points", "points")
        cells = ["-" if v is None else str(v) for v in values]
        table.add_row(f"[b]{label}[/b]" if bold else label,
                      *(f"[b]{c}[/b]" if bold else c for c in cells))
    out.print(table)
    n_rows = len(report.players) + 1
    for line in text[1 + n_rows:]:
        out.print(line, markup=False)
