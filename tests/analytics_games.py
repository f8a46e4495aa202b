"""Four hand-made games whose statistics are known by construction (tests/test_analytics.py).

The rounds record no deck order, so every draw is simply a card not yet seen this round
(R-DRAW). Card points are worked out in the comments; the derived events (round_scored,
game_ended) are left out and computed by the engine on import.

G1  Ann (seat 0) v Ben (seat 1), target 20, ended: Ann wins 23 to 11.
    R1  STOP by Ann, 5 turns. Ann sailor:pink + sailor:orange + captain = 5 + 6 = 11;
        Ben mermaid + shell:yellow = 1 (mermaid: largest colour group 1). Points 11 / 1.
    R2  LAST CHANCE by Ben on turn 5 with 7 (2 penguins 3 + colony 4); Ann's final turn 6
        leaves her 3 shells = 4. Ben won: 7 + colour bonus 1 = 8; Ann bonus 1. Totals 12 / 9.
    R3  deck-out after 28 turns (56 cards, two a turn); on the last turn Ben plays a fish
        pair whose effect cannot happen (deck empty). Points 0 / 0.
    R4  STOP by Ann on turn 9 with 11 again. Ben played crabs (took shell:grey from pile 0)
        on turn 4 and boats (extra take: fish:yellow) on turn 8; he ends with 2 laid pairs
        + shell:grey + fish:yellow = 2. Points 11 / 2. Totals 23 / 11.
G2  Ann, Ben, Cid (3 players), ended: Ann holds four mermaids at the end of turn 10 of
    round 1 (R-MERMAID-WIN). No round is scored.
G3  Ben (seat 0) v Cid (seat 1), target 20, ended: Ben wins 20 to 2.
    R1  LAST CHANCE by Cid on turn 6 with 7 (penguins + colony); Ben ends his final turn 7
        with 11 (sailors + captain + 1 shell). Cid lost: bonus 1; Ben 11. Totals 11 / 1.
    R2  LAST CHANCE by Ben on turn 7 with 7 (penguins + colony + 1 octopus); Cid ends his
        final turn 8 with 7 (sailors 5 + 2 shells 2): a tie, the caller wins. Ben 7 + bonus
        2 (two purple cards) = 9; Cid bonus 1. Totals 20 / 2.
G4  Ann (seat 0) v Dee (seat 1), in progress: round 1, Dee played turn 1, Ann's turn 2 has
    its take only.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from seasalt_log import events as ev
from seasalt_log.cards import FULL_DECK

M = "mermaid:white"


def draw(p: int, keep: str, other: str, pile: int) -> ev.Event:
    return ev.DeckDrawn(player=p, cards=(keep, other), kept=keep, discard_pile=pile)


def take(p: int, pile: int, card: str) -> ev.Event:
    return ev.DiscardTaken(player=p, pile=pile, card=card)


def end(p: int) -> ev.Event:
    return ev.TurnEnded(player=p)


def start(rnd: int, first: int, d0: str, d1: str) -> ev.Event:
    return ev.RoundStarted(round=rnd, first_player=first, discards=(d0, d1))


def deck_out_round() -> list[ev.Event]:
    """G1 R3: 28 turns of two-card draws (keep the first, discard the second on pile 0);
    mermaids are only ever discarded; Ben keeps fish:dark-blue on turns 2 and 28."""
    discards = ("shell:grey", "octopus:grey")
    rest = FULL_DECK - Counter(discards) - Counter({M: 4, "fish:dark-blue": 2})
    filler = iter(sorted(rest.elements()))
    order = []
    for i in range(56):
        if i in (2, 54):
            order.append("fish:dark-blue")
        elif i in (1, 3, 5, 7):
            order.append(M)
        else:
            order.append(next(filler))
    out = [start(3, 0, *discards)]
    for t in range(28):
        p = t % 2
        out.append(draw(p, order[2 * t], order[2 * t + 1], 0))
        if t == 27:
            out.append(ev.FishPlayed(player=1, cards=("fish:dark-blue", "fish:dark-blue"), drew=None))
        out.append(end(p))
    return out


def g1() -> list[ev.Event]:
    return [
        ev.GameStarted(game_id="G1", players=("Ann", "Ben"), target=20),
        start(1, 0, "shell:black", "crab:grey"),
        draw(0, "sailor:pink", "shell:yellow", 0), end(0),
        draw(1, M, "fish:black", 1), end(1),
        draw(0, "sailor:orange", "fish:green", 1), end(0),
        take(1, 0, "shell:yellow"), end(1),
        draw(0, "captain:light-orange", "boat:black", 0), ev.StopCalled(player=0),
        start(2, 1, "shell:green", "crab:yellow"),
        draw(1, "penguin:purple", "fish:dark-blue", 0), end(1),
        draw(0, "shell:dark-blue", "fish:black", 0), end(0),
        draw(1, "penguin:pink", "boat:dark-blue", 1), end(1),
        draw(0, "shell:light-blue", "boat:light-blue", 1), end(0),
        draw(1, "colony:green", "crab:dark-blue", 0), ev.LastChanceCalled(player=1),
        draw(0, "shell:black", "crab:light-blue", 0), end(0),
        *deck_out_round(),
        start(4, 0, "shell:grey", "crab:black"),
        draw(0, "sailor:pink", "crab:dark-blue", 1), end(0),
        take(1, 1, "crab:dark-blue"), end(1),
        draw(0, "sailor:orange", "boat:black", 0), end(0),
        take(1, 1, "crab:black"),
        ev.CrabsPlayed(player=1, cards=("crab:dark-blue", "crab:black"), pile=0, took="shell:grey"),
        end(1),
        draw(0, "shell:dark-blue", "boat:yellow", 1), end(0),
        take(1, 0, "boat:black"), end(1),
        draw(0, "captain:light-orange", "fish:yellow", 0), end(0),
        take(1, 1, "boat:yellow"),
        ev.BoatsPlayed(player=1, cards=("boat:black", "boat:yellow")),
        take(1, 0, "fish:yellow"), end(1),
        draw(0, "octopus:grey", M, 0), ev.StopCalled(player=0),
    ]


def g2() -> list[ev.Event]:
    return [
        ev.GameStarted(game_id="G2", players=("Ann", "Ben", "Cid")),
        start(1, 0, M, M),
        take(0, 0, M), end(0),
        draw(1, "shell:dark-blue", "fish:black", 0), end(1),
        draw(2, "shell:light-blue", "fish:green", 0), end(2),
        take(0, 1, M), end(0),
        draw(1, "octopus:yellow", "boat:black", 1), end(1),
        draw(2, "octopus:green", "boat:yellow", 0), end(2),
        draw(0, M, M, 1), end(0),
        draw(1, "crab:black", "fish:dark-blue", 0), end(1),
        draw(2, "crab:green", "fish:dark-blue", 0), end(2),
        take(0, 1, M), end(0),
    ]


def g3() -> list[ev.Event]:
    return [
        ev.GameStarted(game_id="G3", players=("Ben", "Cid"), target=20),
        start(1, 0, "shell:grey", "crab:grey"),
        draw(0, "sailor:pink", "fish:black", 0), end(0),
        draw(1, "penguin:purple", "fish:green", 0), end(1),
        draw(0, "sailor:orange", "boat:black", 1), end(0),
        draw(1, "penguin:light-orange", "boat:yellow", 1), end(1),
        draw(0, "captain:light-orange", "crab:black", 0), end(0),
        draw(1, "colony:green", "crab:yellow", 0), ev.LastChanceCalled(player=1),
        draw(0, "shell:green", "shark:green", 1), end(0),
        start(2, 0, "shell:grey", "crab:grey"),
        draw(0, "penguin:purple", "fish:black", 0), end(0),
        draw(1, "sailor:pink", "fish:green", 0), end(1),
        draw(0, "penguin:pink", "boat:black", 1), end(0),
        draw(1, "sailor:orange", "boat:yellow", 1), end(1),
        draw(0, "colony:green", "crab:black", 0), end(0),
        draw(1, "shell:black", "crab:yellow", 0), end(1),
        draw(0, "octopus:purple", "shark:green", 1), ev.LastChanceCalled(player=0),
        draw(1, "shell:yellow", "shark:black", 1), end(1),
    ]


def g4() -> list[ev.Event]:
    return [
        ev.GameStarted(game_id="G4", players=("Ann", "Dee")),
        start(1, 1, "shell:grey", "crab:grey"),
        draw(1, M, "fish:black", 0), end(1),
        take(0, 0, "fish:black"),
    ]


def all_games() -> list[list[ev.Event]]:
    """G1..G4, input events only."""
    return [g1(), g2(), g3(), g4()]


def log_bytes() -> bytes:
    """The four games as one JSON Lines log."""
    return b"".join(ev.encode_lines(g) for g in all_games())


def stored(directory: Path, name: str = "q.duckdb") -> Path:
    """A store in ``directory`` holding the four games, imported from their log."""
    from seasalt_log.service import import_logs
    from seasalt_log.store import Store
    log = directory / "games.jsonl"
    log.write_bytes(log_bytes())
    path = directory / name
    with Store.open(path) as store:
        assert import_logs(store, [log]).new == 4
    return path
