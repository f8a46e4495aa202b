"""Play bot strategies against each other, seats rotated, and count who wins.

Every game of a tournament is an ordinary simulated game (:func:`play_game`), so it goes
through the engine like any other. The lineups are balanced: with at least as many
strategies as seats, every ordered choice of distinct strategies; with fewer, every seating
that uses each strategy at least once. Games cycle through the lineups and the number of
games is rounded up to whole cycles, so every strategy sits in every seat equally often.
"""

from __future__ import annotations

from itertools import permutations, product
from typing import Callable, Sequence

from msgspec import Struct

from .. import events as ev
from .bots import BOTS
from .runner import check_args, play_game

#: the strategies a tournament plays when none are named
DEFAULT_STRATEGIES: tuple[str, ...] = ("random", "greedy", "planner", "patient")


class StrategyResult(Struct, frozen=True):
    """One strategy's record at one player count.

    ``seats``: seat-games played (a strategy seated twice in a game counts twice);
    ``wins``: games won, a win shared by k players counting 1/k to each;
    ``win_rate``: ``wins / seats``, to compare with the fair share ``1 / players``.
    """

    strategy: str
    seats: int
    wins: float
    win_rate: float
    mean_points_per_round: float
    last_chance_calls: int
    last_chance_won: int


class TournamentResult(Struct, frozen=True):
    """A tournament at one player count."""

    players: int
    games: int
    seed: int
    strategies: tuple[str, ...]
    lineups: int
    fair_share: float
    results: tuple[StrategyResult, ...]
    mermaid_wins: int
    mean_rounds: float


def lineups(strategies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The balanced seatings of ``strategies`` at ``players`` seats (see the module doc)."""
    strategies = list(dict.fromkeys(strategies))
    if len(strategies) >= players:
        return list(permutations(strategies, players))
    need = set(strategies)
    return [t for t in product(strategies, repeat=players) if set(t) == need]


def games_played(games: int, seatings: int) -> int:
    """The games a tournament asked for ``games`` plays: whole cycles of its ``seatings``
    lineups (:func:`lineups`), so every strategy sits in every seat equally often."""
    return -(-games // seatings) * seatings


def tournament(games: int, players: int, seed: int,
               strategies: Sequence[str] | None = None,
               progress: Callable[[int], None] | None = None,
               ruleset: str | None = None, events: str | None = None) -> TournamentResult:
    """Play at least ``games`` games of ``players`` players among ``strategies`` (default
    :data:`DEFAULT_STRATEGIES`), seats rotated, and return each strategy's win rate.

    ``progress``, if given, is called with the number of games finished after each game.
    ``ruleset`` and ``events`` choose the expansions (R-X-RULESET); a mermaid win there
    may take three mermaids (R-EV-DANCE-OF-THE-MERMAIDS).
    """
    names = tuple(dict.fromkeys(check_args(players, strategies or DEFAULT_STRATEGIES, games, 1,
                                           ruleset, events)))
    seatings = lineups(names, players)
    total = games_played(games, len(seatings))
    seats = dict.fromkeys(names, 0)
    wins = dict.fromkeys(names, 0.0)
    points = dict.fromkeys(names, 0)
    rounds_by = dict.fromkeys(names, 0)
    lc_calls = dict.fromkeys(names, 0)
    lc_won = dict.fromkeys(names, 0)
    mermaid_wins = 0
    rounds = 0
    instances = {n: BOTS[n]() for n in names}
    for i in range(total):
        seating = seatings[i % len(seatings)]
        game = play_game(seed, i, seating, [instances[b] for b in seating], ruleset, events)
        for b in seating:
            seats[b] += 1
        for e in game:
            if type(e) is ev.RoundScored:
                rounds += 1
                for s, b in enumerate(seating):
                    points[b] += e.points[s]
                    rounds_by[b] += 1
                if e.ending == "last_chance":
                    assert e.caller is not None, "LAST CHANCE has a caller"
                    lc_calls[seating[e.caller]] += 1
                    lc_won[seating[e.caller]] += bool(e.caller_won)
        end = game[-1]
        assert type(end) is ev.GameEnded
        if end.reason == "mermaids":
            mermaid_wins += 1
        for w in end.winners:
            wins[seating[w]] += 1 / len(end.winners)
        if progress is not None:
            progress(i + 1)
    results = tuple(StrategyResult(
        strategy=b, seats=seats[b], wins=round(wins[b], 6),
        win_rate=round(wins[b] / seats[b], 4) if seats[b] else 0.0,
        mean_points_per_round=round(points[b] / rounds_by[b], 3) if rounds_by[b] else 0.0,
        last_chance_calls=lc_calls[b], last_chance_won=lc_won[b]) for b in names)
    return TournamentResult(players=players, games=total, seed=seed, strategies=names,
                            lineups=len(seatings), fair_share=round(1 / players, 4),
                            results=results, mermaid_wins=mermaid_wins,
                            mean_rounds=round(rounds / total, 3))
