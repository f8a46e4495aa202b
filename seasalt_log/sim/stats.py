"""Counting the situations a batch of games went through (the realism check of the
simulator: every rule, ruling and edge case should come up in a large enough batch)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .. import events as ev
from ..engine import State, apply
from ..engine.state import BOAT_TAKE
from ..scoring import last_chance_outcome

#: every case :func:`cases` counts, with what it means
CASES: dict[str, str] = {
    "crab": "a crab pair takes a card from a pile (R-DUO-CRAB)",
    "crab_no_effect": "a crab pair with both piles empty (R-DUO-NOEFFECT)",
    "fish": "a fish pair draws the deck's top card (R-DUO-FISH)",
    "fish_no_effect": "a fish pair with the deck empty (R-DUO-NOEFFECT)",
    "boat": "a boat pair gives an extra take (R-DUO-BOAT)",
    "boat_no_effect": "a boat pair with deck and piles empty (R-DUO-NOEFFECT)",
    "boat_extra_take": "the take given by a boat pair is made",
    "shark": "a shark pair steals a card (R-DUO-SHARK)",
    "shark_no_effect": "a shark pair with no hand to steal from (R-DUO-NOEFFECT)",
    "deck_drawn_two": "a deck draw of two cards (R-TAKE-1)",
    "deck_drawn_one": "a deck draw of the last card (R-TAKE-3)",
    "discard_taken": "a pile top taken (R-TAKE-2)",
    "take_skipped": "a turn whose take is skipped: nothing to take (R-TAKE-4)",
    "deck_out": "a round ended by a deck-out (R-END-3, R-DECKOUT)",
    "stop": "a round ended by STOP (R-STOP)",
    "last_chance_won": "LAST CHANCE won outright (R-LAST-4)",
    "last_chance_tied": "LAST CHANCE won on a tie (R-LAST-4)",
    "last_chance_lost": "LAST CHANCE lost (R-LAST-4)",
    "call_on_empty_deck": "a call on the turn that emptied the deck (R-END-3 ruling)",
    "final_turn_empty_deck": "a final turn of LAST CHANCE played with the deck empty (R-LAST-2)",
    "mermaid_win": "a game won by four mermaids (R-MERMAID-WIN)",
    "target_win": "a game ended by the target score (R-GAME-1)",
    "target_tie_break": "a game whose top totals tied, decided by the last round (R-GAME-1)",
    "shared_win": "a game won by more than one player (R-GAME-1)",
}


def cases(events: Iterable[ev.Event]) -> Counter[str]:
    """How often each case of :data:`CASES` happens in one game's ``events``."""
    c: Counter[str] = Counter()
    s = State()
    for e in events:
        before = s
        s = apply(s, e)
        if type(e) is ev.DeckDrawn:
            c["deck_drawn_two" if len(e.cards) == 2 else "deck_drawn_one"] += 1
            if before.flow.step == BOAT_TAKE:
                c["boat_extra_take"] += 1
        elif type(e) is ev.DiscardTaken:
            c["discard_taken"] += 1
            if before.flow.step == BOAT_TAKE:
                c["boat_extra_take"] += 1
        elif type(e) is ev.CrabsPlayed:
            c["crab" if e.pile is not None else "crab_no_effect"] += 1
        elif type(e) is ev.FishPlayed:
            c["fish" if e.drew is not None else "fish_no_effect"] += 1
        elif type(e) is ev.SharkPlayed:
            c["shark" if e.victim is not None else "shark_no_effect"] += 1
        elif type(e) is ev.BoatsPlayed:
            c["boat" if s.flow.step == BOAT_TAKE else "boat_no_effect"] += 1
        elif type(e) in (ev.StopCalled, ev.LastChanceCalled):
            if not s.table.deck:
                c["call_on_empty_deck"] += 1
        elif type(e) is ev.RoundScored:
            if e.ending == "last_chance":
                assert e.caller is not None, "LAST CHANCE has a caller"
                c["last_chance_" + last_chance_outcome(e.caller, e.card_points)] += 1
            else:
                c[e.ending] += 1
        elif type(e) is ev.GameEnded:
            if e.reason == "mermaids":
                c["mermaid_win"] += 1
            else:
                c["target_win"] += 1
                best = max(e.totals)
                if sum(1 for x in e.totals if x == best) > 1 and len(e.winners) == 1:
                    c["target_tie_break"] += 1
                if len(e.winners) > 1:
                    c["shared_win"] += 1
        # a new turn of the final turns of LAST CHANCE that starts with the deck empty
        f = s.flow
        if (f.turn != before.flow.turn and f.phase == "round" and not f.due
                and f.call == "last_chance" and not s.table.deck):
            c["final_turn_empty_deck"] += 1
            if not s.table.can_take():
                c["take_skipped"] += 1
    return c


def tally(games: Iterable[list[ev.Event]]) -> Counter[str]:
    """:func:`cases` summed over ``games``."""
    total: Counter[str] = Counter()
    for g in games:
        total.update(cases(g))
    return total
