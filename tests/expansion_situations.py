"""Count the expansion situations (RULES.md §9-§18) simulated games went through, from their
events alone: each game is folded through the engine and every event is looked at with
the state before it. Test equipment for the realism test, independent of the bots."""

from __future__ import annotations

from collections import Counter

from seasalt_log import events as ev
from seasalt_log.cards import EXTRA_CODES, KIND
from seasalt_log.engine import State, apply

_ATTACKS = (ev.SharkPlayed, ev.SwimmersPlayed, ev.SharksPlayed, ev.JellyfishPlayed)
_TAKES = (ev.DeckDrawn, ev.DiscardTaken)


def situations(game: list[ev.Event], into: Counter | None = None) -> Counter:
    """Add to ``into`` (a new Counter if None) one count per situation seen in ``game``."""
    c = Counter() if into is None else into
    s = State()
    prev: list[type] = []
    for e in game:
        t = type(e)
        c[ev.TAGS[t]] += 1
        if t is ev.RoundStarted and e.event is not None:
            c[f"event:{e.event}"] += 1                                   # R-EV-CARDS
        elif t is ev.JellyfishPlayed and s.flow.call == "last_chance":
            c["jellyfish during LAST CHANCE"] += 1                       # R-X-JELLYFISH
        elif t is ev.AngelfishTaken and prev[-2:] and prev[-1] in _TAKES and \
                len(prev) >= 2 and prev[-2] is ev.BoatsPlayed:
            c["angelfish take after a boat's take"] += 1                 # R-EV-ANGELFISH
        elif t is ev.SharksPlayed and e.pair is not None:
            c["water rodeo pair steal"] += 1                             # R-EV-WATER-RODEO-SHARKS
        elif t is ev.SwimmersPlayed and e.got is not None:
            c["water rodeo swap"] += 1                                   # R-EV-WATER-RODEO-SWIMMERS
        elif t is ev.EventAwarded and not s.event_deck:
            c["event deck reshuffle"] += 1                               # R-EV-RESHUFFLE
        elif t is ev.CrabsPlayed and e.takes:
            c["hermit crab takes"] += 1                                  # R-EV-HERMIT-CRAB
        elif t is ev.DeckDrawn and e.dolphins_drew is not None:
            c["dolphins draw"] += 1                                      # R-EV-DOLPHINS
        elif t is ev.FishPlayed and e.also_drew is not None:
            c["sunfish draw"] += 1                                       # R-EV-SUNFISH
        if t in _ATTACKS:
            others = [v for v in range(s.n) if v != e.player]
            if any(s.flow.protected & (1 << v) and s.table.hands[v]
                   and not s.flow.revealed & (1 << v) for v in others):
                c["coral reef protection refuses an attack"] += 1        # R-EV-PROTECT
        if t is ev.RoundScored:
            for seat in range(s.n):
                held = list(s.table.hands[seat]) + [x for u in s.table.laid[seat] for x in u]
                for code in set(held) & set(EXTRA_CODES):
                    c[f"card:{code}"] += 1                               # R-X-CARDS
        if t is ev.GameEnded and e.reason == "mermaids":
            w = e.winners[0]
            mermaids = sum(1 for x in s.table.hands[w] if KIND[x] == "mermaid")
            if mermaids == 3 and s.table_event == "dance-of-the-mermaids":
                c["three-mermaid win (Dance of the Mermaids)"] += 1      # R-EV-DANCE-OF-THE-MERMAIDS
        if t not in (ev.RoundScored, ev.GameEnded, ev.EventAwarded):
            prev.append(t)
        s = apply(s, e)
    return c
