"""The words of ``seasalt log``: every event told as one readable line, for everyone or as
one seat saw it (RULES.md §7).

- :func:`describe` — one event, applied to the state before it;
- :func:`log_lines` — every event of a game as a :class:`LogLine`;
- :func:`event_name` — an expansion event card's name.
"""

from __future__ import annotations

from typing import Sequence

from msgspec import Struct

from . import events as ev
from .engine import RULESETS, State, boats_give_take
from .replay import stream_steps
from .scoring import last_chance_outcome
from .view import Viewer, as_viewer, looked_at, sees_private

__all__ = ["LogLine", "describe", "event_name", "log_lines", "per_seat", "and_list", "CALLS"]


#: how a call is written
CALLS = {"stop": "STOP", "last_chance": "LAST CHANCE"}


def per_seat(names: Sequence[str], values: Sequence[int]) -> str:
    """``Ann 3, Bob 5``: one value per seat, with the players' names."""
    return ", ".join(f"{n} {v}" for n, v in zip(names, values))


def and_list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sees(viewer: Viewer | int | None, *seats: int | None) -> bool:
    return sees_private(as_viewer(viewer), *seats)


def describe(event: ev.Event, state_before: State, viewer: Viewer | int | None = None) -> str:
    """One readable line for ``event``, applied to ``state_before``, with players' names.

    With ``viewer`` (a seat, or its :class:`~seasalt_log.view.Viewer`), the line says only
    what that seat could see (RULES.md §7): another player's drawn and kept cards, the card
    another player's crab pair took or fish pair drew, and a card stolen between two other
    players are left out; discarded cards, pile takes, laid-down pairs and calls are public.
    """
    s = state_before
    names = s.players

    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and seat < len(names) else f"seat {seat}"

    if isinstance(event, ev.GameStarted):
        gid = event.game_id or s.game_id
        seats = ", ".join(f"{p} (seat {i})" for i, p in enumerate(event.players))
        target = event.target or RULESETS[event.ruleset or "base"].target_for(len(event.players))
        tail = f"; target {target}"
        if event.ruleset not in (None, "base"):     # a plain base game reads as before
            tail += f"; ruleset {event.ruleset}"
        if event.events is not None:
            tail += f"; events {event.events}"
        return f"Game {gid + ' ' if gid else ''}started: {seats}{tail}"
    if isinstance(event, ev.RoundStarted):
        table = f"; table event {event_name(event.event)}" if event.event is not None else ""
        return (f"Round {event.round} started: {name(event.first_player)} plays first; "
                f"discard piles {event.discards[0]} | {event.discards[1]}{table}")
    if isinstance(event, ev.DeckDrawn):
        who = name(event.player)
        see = _sees(viewer, event.player)
        if len(event.cards) == 1:
            if see:
                return f"{who} drew {event.cards[0]}, the deck's last card"
            return f"{who} drew the deck's last card"
        other = event.cards[1] if event.cards[0] == event.kept else event.cards[0]
        where = f"discarded {other} on pile {event.discard_pile}"
        if event.dolphins_drew is not None:                       # R-EV-DOLPHINS
            where += (f"; the Dolphins drew {event.dolphins_drew if see else 'a card'} "
                      "from the deck")
        if see:
            return (f"{who} drew {event.cards[0]} and {event.cards[1]}, kept {event.kept}, "
                    f"{where}")
        return f"{who} drew two cards, kept one, {where}"
    if isinstance(event, ev.DiscardTaken):
        return f"{name(event.player)} took {event.card} from pile {event.pile}"
    if isinstance(event, ev.CrabsPlayed):
        head = f"{name(event.player)} played crabs ({event.cards[0]}, {event.cards[1]})"
        if event.takes is not None:                               # R-EV-HERMIT-CRAB
            if not event.takes:
                return f"{head} (Hermit Crab); both discard piles are empty, nothing taken"
            took = " and ".join(f"{t.card if _sees(viewer, event.player) else 'a card'} from "
                                f"pile {t.pile}" for t in event.takes)
            return f"{head} (Hermit Crab) and took {took}"
        if event.pile is None:
            return f"{head}; both discard piles are empty, nothing taken"
        card = event.took if _sees(viewer, event.player) else "a card"
        return f"{head} and took {card} from pile {event.pile}"
    if isinstance(event, ev.BoatsPlayed):
        head = f"{name(event.player)} played boats ({event.cards[0]}, {event.cards[1]})"
        return (f"{head} for another take" if boats_give_take(s)
                else f"{head}; nothing is left to take")
    if isinstance(event, ev.FishPlayed):
        head = f"{name(event.player)} played fish ({event.cards[0]}, {event.cards[1]})"
        if event.drew is None:
            return f"{head}; the deck is empty, nothing drawn"
        card = event.drew if _sees(viewer, event.player) else "a card"
        if event.also_drew is not None:                           # R-EV-SUNFISH
            also = event.also_drew if _sees(viewer, event.player) else "another"
            return f"{head} and drew {card} and {also} from the deck (Sunfish)"
        return f"{head} and drew {card} from the deck"
    if isinstance(event, ev.SharkPlayed):
        a, b = sorted(event.cards, key=lambda c: not c.startswith("shark:"))
        head = f"{name(event.player)} played {a} + {b}"
        if event.victim is None:
            return f"{head}; no hand could be stolen from"
        card = event.stole if _sees(viewer, event.player, event.victim) else "a card"
        return f"{head} and stole {card} from {name(event.victim)}"
    if isinstance(event, ev.TurnEnded):
        return f"{name(event.player)} ended the turn"
    if isinstance(event, ev.StopCalled):
        return f"{name(event.player)} called STOP"
    if isinstance(event, ev.LastChanceCalled):
        return f"{name(event.player)} called LAST CHANCE"
    if isinstance(event, ev.RoundScored):
        if event.ending == "deck_out":
            return (f"Round {event.round} scored (deck_out): nobody scores; totals "
                    f"{per_seat(names, event.totals)}")
        if event.ending == "stop":
            how = f"stop, called by {name(event.caller)}"
        else:
            assert event.caller is not None, "LAST CHANCE has a caller"
            outcome = last_chance_outcome(event.caller, event.card_points)
            how = "last_chance, " + name(event.caller) + {
                "won": " won", "tied": " won on a tie", "lost": " lost"}[outcome]
        return (f"Round {event.round} scored ({how}): points {per_seat(names, event.points)}; "
                f"totals {per_seat(names, event.totals)}")
    if isinstance(event, ev.GameEnded):
        winners = [name(w) for w in event.winners]
        result = f"{winners[0]} wins" if len(winners) == 1 else f"{and_list(winners)} share the win"
        return f"Game over ({event.reason}): {result}"
    text = _describe_extra(event, s, viewer, name)
    if text is not None:
        return text
    return ev.TAGS.get(type(event), type(event).__name__)   # pragma: no cover


def event_name(code: str) -> str:
    """An event card's name in words (R-EV-CARDS): ``water-rodeo`` -> ``Water Rodeo``."""
    small = ("of", "the")
    return " ".join(w if w in small else w.capitalize() for w in code.split("-"))


def _describe_extra(event: ev.Event, s: State, viewer: Viewer | int | None, name) -> str | None:
    """The words for the event types of the expansions (RULES.md §10-§14), hiding from
    ``viewer`` what R-X-VIEW hides: the lobster's cards, a forced take, a face-down shell's
    colour, the Hermit Crab, Sunfish and Dolphins cards, and the cards two swimmers swap
    (seen by the two players only). Everything else, the events included, is public."""
    who = name(getattr(event, "player", None))
    own = _sees(viewer, getattr(event, "player", None))
    if isinstance(event, ev.LobsterPlayed):
        head = f"{who} played a lobster ({event.cards[0]}, {event.cards[1]})"
        if not event.seen:
            return f"{head}; the deck is empty, nothing seen"
        n = len(event.seen)
        if own:
            return (f"{head}, looked at the top {n} card{'s' if n != 1 else ''} of the deck "
                    f"({', '.join(event.seen)}), kept {event.kept} and shuffled the rest back")
        return (f"{head}, looked at the top {n} card{'s' if n != 1 else ''} of the deck, kept "
                f"one and shuffled the rest back")
    if isinstance(event, ev.JellyfishPlayed):
        return (f"{who} played a jellyfish ({event.cards[0]}, {event.cards[1]}): every other "
                f"player is locked until {who}'s next turn")
    if isinstance(event, ev.ForcedDrawn):
        if event.card is None:
            return f"{who}'s forced turn: the deck is empty, nothing drawn"
        card = event.card if own else "a card"
        return f"{who}'s forced turn (jellyfish lock): drew {card} from the deck"
    if isinstance(event, ev.StarfishPlayed):
        return (f"{who} laid down a trio ({event.cards[0]}, {event.cards[1]} and "
                f"{event.starfish}), without the pair's effect")
    if isinstance(event, ev.AngelfishTaken):
        return f"{who} took {event.card} from pile {event.pile} (Angelfish)"
    if isinstance(event, ev.ShellFaceDown):
        card = f" ({event.card})" if own else ""
        return (f"{who} placed a shell face down{card} (Coral Reef) and is protected for the "
                f"rest of the round")
    if isinstance(event, ev.SwimmersPlayed):
        head = f"{who} played two swimmers ({event.cards[0]}, {event.cards[1]}) (Water Rodeo)"
        if event.victim is None:
            return f"{head}; no hand could be looked at"
        victim = name(event.victim)
        hand = looked_at(event, as_viewer(viewer), s)     # R-X-VIEW: the player sees it
        if hand:
            head = f"{head}, looked at {victim}'s hand ({', '.join(hand)})"
            if event.gave is None:
                return f"{head} and swapped nothing"
            return f"{head} and swapped {event.gave} for {event.got}"
        if event.gave is None:
            return f"{head}, looked at {victim}'s hand and swapped nothing"
        if _sees(viewer, event.player, event.victim):
            return (f"{head}, looked at {victim}'s hand and swapped {event.gave} for "
                    f"{event.got}")
        return f"{head}, looked at {victim}'s hand and swapped a card with {victim}"
    if isinstance(event, ev.SharksPlayed):
        head = f"{who} played two sharks ({event.cards[0]}, {event.cards[1]}) (Water Rodeo)"
        if event.victim is None or event.pair is None:
            return f"{head}; no laid-down pair could be taken"
        return (f"{head} and took {name(event.victim)}'s laid-down pair "
                f"({event.pair[0]}, {event.pair[1]})")
    if isinstance(event, ev.EventKept):
        held = s.held[event.player] if s.held else ()
        other = [c for c in held if c != event.event][:1]
        gone = f" and discarded {event_name(other[0])}" if other else ""
        return f"{who} kept the event {event_name(event.event)}{gone}"
    if isinstance(event, ev.EventAwarded):
        parts = [f"{name(d.player)} discarded {event_name(d.event)}" for d in event.discarded]
        if event.to is None:
            parts.append(f"{event_name(event.event)} goes to the event discards (no place)")
        else:
            parts.append(f"{event_name(event.event)} goes to {name(event.to)}")
        return f"Round {event.round} event: " + "; ".join(parts)
    return None


class LogLine(Struct, frozen=True, omit_defaults=True):
    """One event of a game as a readable line (``seasalt log``); ``event`` (the event
    itself) only in the whole-truth log, never in a player's view."""

    seq: int
    round: int
    turn: int
    type: str
    player: int | None
    text: str
    event: ev.Event | None = None


def log_lines(events: Sequence[ev.Event], *, viewer: Viewer | int | None = None,
              game_id: str | None = None) -> list[LogLine]:
    """Every event of a game described by :func:`describe` (as ``viewer`` saw it, if given)."""
    all_steps, _ = stream_steps(events, game_id)
    return [LogLine(seq=st.seq, round=st.round, turn=st.turn, type=ev.TAGS[type(st.event)],
                    player=getattr(st.event, "player", None),
                    text=describe(st.event, st.before, viewer),
                    event=st.event if viewer is None else None)
            for st in all_steps]
