"""Plain-text rendering for terminals and golden transcripts (no colour codes):
:func:`render_state` writes a :class:`~seasalt_log.view.TableView`, :func:`render_report` a
:class:`~seasalt_log.rescore.RoundReport`.
"""

from __future__ import annotations

from .engine.state import BOAT_TAKE, ENDED, FORCED, NEW, PLAY, ROUND, TAKE, position_words
from .narration import CALLS, and_list, event_name, per_seat
from .rescore import RoundReport
from .scoring import effect_notes
from .view import TableView

__all__ = ["position", "render_state", "render_report"]


def _status(view: TableView) -> str:
    names = [seat.name for seat in view.seats]
    if view.phase == NEW:
        return "The game has not started"
    if view.phase == ENDED:
        winners = [names[w] for w in view.winners]
        if not winners:
            return "Game over"
        return "Game over: " + (f"{winners[0]} wins" if len(winners) == 1
                                else f"{and_list(winners)} share the win")
    if view.phase == ROUND and view.player is not None:
        who = names[view.player]
        return {TAKE: f"{who} to play: take a card",
                BOAT_TAKE: f"{who} to play: the boat pair's extra take",
                PLAY: f"{who} to play: duos, then end the turn"}.get(view.step or "",
                                                                     f"{who} to play")
    if view.phase == ROUND:
        return f"Round {view.round} is over: its result is due"
    if view.round == 0:
        return "Round 1 is about to start"
    if view.totals and max(view.totals) >= view.target:
        return f"Round {view.round} is over and a total has reached {view.target}: the game ends"
    return f"Round {view.round} is over; round {view.round + 1} is about to start"


def position(view: TableView) -> str:
    """Where a state stands, said one way by every face (``seasalt replay`` and its
    ``--follow``, the HTTP state's ``Seasalt-Position`` header): "before round 1",
    "round 2, before turn 1", "round 2, after turn 5" (turn 6 not begun), "round 2, during
    turn 6" (part of it played), "after round 2", "after round 3: game over"."""
    return position_words(view.phase, view.round, view.turn, view.player, view.step)


def render_state(view: TableView) -> str:
    """A plain-text block (no colour codes) of one :class:`~seasalt_log.view.TableView`:
    position, whose turn and step, the call in force, deck, discard piles, then per seat
    the hand (or its size when hidden), laid-down pairs, card points and game total."""
    names = [seat.name for seat in view.seats]
    lines = []
    lines.append(f"Game {view.game_id or '?'}: {position(view)} (seq {view.seq})")
    # the table sees every hand; a spectator (no seat either) sees none in play
    spectator = view.viewer is None and any(seat.hand is None for seat in view.seats)
    if view.viewer is not None:
        lines.append(f"As seen by {names[view.viewer]} (seat {view.viewer})")
    elif spectator:
        lines.append("As seen by a spectator")
    lines.append(_status(view))
    if view.call:
        assert view.caller is not None, "a call has its caller"
        lines.append(f"Call: {CALLS.get(view.call, view.call)} by {names[view.caller]}")
    x = view.extra
    if x and x.table_event is not None:                               # R-EV-ROUND
        lines.append(f"Table event: {event_name(x.table_event)}; event deck "
                     f"{x.event_deck_size}, discards "
                     f"{', '.join(map(event_name, x.event_discards)) or '-'}")
        if x.keep_due is not None:
            lines.append(f"{names[x.keep_due]} keeps one of two events (R-EV-AWARD)")
    if view.phase == ROUND:
        deck = f"Deck: {view.deck_size} card{'s' if view.deck_size != 1 else ''}"
        if view.deck:
            nxt = ", ".join(view.deck[:4]) + (", ..." if len(view.deck) > 4 else "")
            deck += f" (next: {nxt})"
        elif view.viewer is None and not spectator and view.deck_size:
            deck += " (order not recorded)"     # the table's view: the log has no order
        lines.append(deck)
        for p in view.piles:
            size = f"{p.size} card{'s' if p.size != 1 else ''}"
            if p.top is None:
                lines.append(f"Pile {p.pile}: empty")
            elif p.cards is not None and p.size > 1:
                lines.append(f"Pile {p.pile}: top {p.top} ({size}; bottom to top: "
                             f"{', '.join(p.cards)})")
            else:
                lines.append(f"Pile {p.pile}: top {p.top} ({size})")
    width = max(len(n) for n in names) if names else 0
    for seat in view.seats:
        mark = ">" if view.phase == ROUND and view.player == seat.seat else " "
        pts = "?" if seat.card_points is None else str(seat.card_points)
        flags = []
        if seat.revealed and view.phase == ROUND:
            flags.append("revealed")
        if view.caller == seat.seat and view.call:
            flags.append("caller")
        x = view.extra
        if x:                                             # R-X-JELLYFISH, R-EV-PROTECT
            flags += [w for w, seats in (("jellyfish lock", x.locks), ("locked", x.locked),
                                         ("protected", x.protected)) if seat.seat in seats]
        tail = f"  [{', '.join(flags)}]" if flags else ""
        lines.append(f"{mark} {seat.name:<{width}} (seat {seat.seat})  total {seat.total}  "
                     f"card points {pts}{tail}")
        shown = "hidden" if seat.hand is None and seat.hand_size else ", ".join(seat.hand or ()) or "-"
        lines.append(f"    hand ({seat.hand_size}): {shown}")
        if seat.laid:
            lines.append("    laid: " + ", ".join("+".join(u) for u in seat.laid))
        if x:
            lines.extend(_extra_seat_lines(x, seat.seat))
    lines.append(f"Totals: {per_seat(names, view.totals)} (target {view.target})")
    return "\n".join(lines)


def _extra_seat_lines(x, seat: int) -> list[str]:
    """A seat's held events, events in effect and face-down shell (R-X-VIEW: its colour
    only for its owner)."""
    lines = []
    if x.held[seat]:
        lines.append("    holds: " + ", ".join(map(event_name, x.held[seat])))
    if x.effects[seat]:
        lines.append("    in effect: " + ", ".join(map(event_name, x.effects[seat])))
    if x.face_down[seat]:
        lines.append(f"    face down: {x.face_down_cards[seat] or 'a shell (hidden)'}")
    return lines


def render_report(report: RoundReport) -> str:
    """A plain-text block of a :class:`RoundReport`: the ending, a table of each player's
    breakdown and points (recomputed and stored), the what-if, and any note."""
    names = [p.name for p in report.players]
    lines = []
    if report.ending == "mermaids":
        assert report.mermaid_winner is not None, "the round ended by a mermaid win"
        head = (f"Round {report.round}: ended by {names[report.mermaid_winner]}'s four mermaids "
                f"after {report.turns} turns; not scored")
    elif report.ending == "deck_out":
        head = (f"Round {report.round}: deck-out in {names[report.ended_by]}'s turn after "
                f"{report.turns} turns; nobody scores")
    elif report.ending == "stop":
        head = f"Round {report.round}: {report.caller_name} called STOP after {report.turns} turns"
    else:
        verdict = {"won": "won", "tied": "won on a tie", "lost": "lost"}[report.result]
        head = (f"Round {report.round}: {report.caller_name} called LAST CHANCE and {verdict} "
                f"({report.turns} turns)")
    lines.append(head)
    cols = ["seat", "name", "pairs", "collectors", "multipliers", "mermaids", "card_points",
            "color_bonus", "points", "stored", "total"]
    if report.what_if:
        cols.append("if " + CALLS[report.what_if.call])
    rows = []
    for p in report.players:
        b = p.breakdown
        row = [str(p.seat), p.name, str(b.pairs), str(b.collectors), str(b.multipliers),
               str(b.mermaids), str(b.card_points), str(b.color_bonus), _opt(p.points),
               _opt(p.stored_points), _opt(p.total)]
        if report.what_if:
            row.append(_opt(p.what_if_points))
        rows.append(row)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    for row in [cols] + rows:
        lines.append("  " + "  ".join(v.ljust(w) if i == 1 else v.rjust(w)
                                      for i, (v, w) in enumerate(zip(row, widths))).rstrip())
    for p in report.players:
        cards = ", ".join(p.hand) if p.hand else "-"
        laid = "; laid " + ", ".join("+".join(u) for u in p.laid) if p.laid else ""
        lines.append(f"  {p.name}: {cards}{laid}")
        if p.effects:
            lines.append(f"    events in effect: {', '.join(p.effects)}")
        lines.extend(f"    {n}" for n in p.effect_notes)
    if report.matches is not None:
        lines.append("Stored points and totals " + ("match today's engine" if report.matches
                                                    else "DIFFER from today's engine"))
    w = report.what_if
    if w is not None:
        if w.call == "stop":
            lines.append(f"What if {report.caller_name} had called STOP instead (cards as at the "
                         f"call, card points {per_seat(names, w.card_points)}): points "
                         f"{per_seat(names, w.points)}")
        else:
            verdict = {"won": "won", "tied": "won on a tie", "lost": "lost"}[w.result]
            lines.append(f"What if {report.caller_name} had called LAST CHANCE instead (same "
                         f"cards; {report.caller_name} would have {verdict}): points "
                         f"{per_seat(names, w.points)}")
    if report.note:
        lines.append("Note: " + report.note)
    return "\n".join(lines)


def _opt(v: int | None) -> str:
    return "-" if v is None else str(v)
