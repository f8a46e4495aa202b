"""The shared fold (seasalt_log.store.batch): its quick path (engine first, every check again only
on a failure) gives exactly the outcome of the strict fold that ``seasalt verify`` uses,
on intact games and on games broken in many ways; and the partition helpers."""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest

from seasalt_log import events as ev
from seasalt_log.store.batch import fold_game, fold_partition, numbered_games, whole_games

try:
    from .reliability_helpers import valid_games
except ImportError:      # tests/ run as a plain directory
    from reliability_helpers import valid_games  # type: ignore[no-redef]

GAMES = valid_games(16, seed=21)
SEATS = ("player", "first_player", "victim", "caller")


def texts(game) -> list[str]:
    return [ev.encode(e).decode() for e in game]


def mutations(game, rng: random.Random):
    """Broken copies of a game: seats out of range or moved (R-FLOW-PLAYER, LOG-FORMAT),
    events deleted or swapped, derived events edited (R-DERIVED), cards swapped (R-TAKE-*,
    R-DUO-*), bad JSON."""
    base = texts(game)
    n = len(game[0].players)
    for _ in range(40):
        t = list(base)
        i = rng.randrange(len(t))
        e = json.loads(t[i])
        kind = rng.randrange(6)
        if kind == 0:
            seats = [k for k in SEATS if e.get(k) is not None]
            if not seats:
                continue
            e[rng.choice(seats)] = rng.choice([n, n + 1, (e[seats[0]] + 1) % n])
        elif kind == 1:
            del t[i]
            yield t
            continue
        elif kind == 2 and i + 1 < len(t):
            t[i], t[i + 1] = t[i + 1], t[i]
            yield t
            continue
        elif kind == 3 and e["type"] in ("round_scored", "game_ended"):
            e["totals"][rng.randrange(n)] += 1
        elif kind == 4 and isinstance(e.get("card"), str):
            e["card"] = rng.choice(["mermaid:white", "shell:blue", "crab:black", "octopus:green"])
        elif kind == 5:
            t[i] = t[i][:-2]
            yield t
            continue
        else:
            continue
        t[i] = json.dumps(e, separators=(",", ":"))
        yield t


@pytest.mark.parametrize("k", range(len(GAMES)))
def test_the_quick_fold_agrees_with_the_strict_one(k):
    game = GAMES[k]
    intact = fold_game(texts(game))
    assert intact.failure is None and len(intact.states) == len(game)
    assert fold_game(texts(game), strict=False).failure is None
    failed = 0
    for t in mutations(game, random.Random(k)):
        strict, quick = fold_game(t), fold_game(t, strict=False)
        assert quick.failure == strict.failure, t
        assert len(quick.states) == len(strict.states)
        failed += strict.failure is not None
    assert failed > 10          # the mutations do break games


def test_a_cut_game_owes_its_derived_event_at_the_end():
    game = GAMES[0]
    t = texts(game)[:-1]                                   # game_ended dropped
    f = fold_game(t).failure
    assert (f.kind, f.rule, f.index) == ("derived", "R-DERIVED", len(t))
    assert f.message == "R-DERIVED: game_ended is missing at the end of the game"


def _table(games) -> pa.Table:
    rows = [(g[0].game_id, s, text) for g in games for s, text in enumerate(texts(g), 1)]
    return pa.table({"game_id": [r[0] for r in rows], "seq": [r[1] for r in rows],
                     "event": [r[2] for r in rows]})


def test_fold_partition_results_and_sorting():
    games = GAMES[:5]
    table = _table(games)
    batch = fold_partition(table)
    assert (batch.games, batch.events, batch.failed) == (5, sum(map(len, games)), 0)
    results, rounds = batch.tables()
    by_id = {r["game_id"]: r for r in results.to_pylist()}
    for g in games:
        end = g[-1]
        assert type(end) is ev.GameEnded        # simulated games are played to the end
        r = by_id[g[0].game_id]
        assert r["ok"] and r["status"] == "ended"
        assert r["winners"] == list(end.winners) and r["totals"] == list(end.totals)
        scored = [e for e in g if type(e) is ev.RoundScored]
        assert r["rounds"] == len(scored)
        mine = [x for x in rounds.to_pylist() if x["game_id"] == g[0].game_id]
        assert [(x["round"], x["points"]) for x in mine] == [(e.round, list(e.points)) for e in scored]
    shuffled = table.take(list(reversed(range(table.num_rows))))
    assert whole_games(table) and not whole_games(shuffled)
    again = fold_partition(shuffled, sort=True)
    assert again.tables()[0].sort_by("game_id").equals(results.sort_by("game_id"))


def _texts_table(games: list[tuple[str, list[str]]]) -> pa.Table:
    return pa.table({"game_id": [g for g, t in games for _ in t],
                     "seq": [s for _, t in games for s in range(1, len(t) + 1)],
                     "event": [x for _, t in games for x in t]})


def _same_batches(quick, strict) -> None:
    assert (quick.games, quick.events, quick.failed) == (strict.games, strict.events, strict.failed)
    for got, want in zip(quick.tables(), strict.tables()):
        assert got.equals(want)


@pytest.mark.parametrize("k", range(4))
def test_the_columnar_fold_of_a_partition_agrees_with_the_strict_one(k):
    """fold_partition(strict=False) decodes the whole event column in one call and folds
    with the engine alone; on intact and broken games alike its results and read-model rows
    are those of the strict per-game fold (the one verify uses)."""
    rng = random.Random(100 + k)
    games = []
    for j, game in enumerate(GAMES[4 * k:4 * k + 4]):
        games.append((f"g{j}-intact", texts(game)))
        broken = list(mutations(game, rng))
        games += [(f"g{j}-m{m}", t) for m, t in enumerate(broken[:8])]
    table = _texts_table(games)
    rows: dict[str, list] = {"quick": [], "strict": []}
    quick = fold_partition(table, strict=False, read_models=rows["quick"].append)
    strict = fold_partition(table, strict=True, read_models=rows["strict"].append)
    assert quick.failed > 4 and quick.failed < quick.games       # both kinds are there
    _same_batches(quick, strict)
    assert rows["quick"] == rows["strict"] and len(rows["quick"]) == quick.games - quick.failed


def test_a_partition_whose_rows_do_not_decode_one_by_one_falls_back():
    """Rows that would decode back to back but not one event per row (an empty row, two
    events in one row, a cut row) are folded game by game: the same results as strict."""
    a, b = texts(GAMES[0]), texts(GAMES[1])
    cases = [
        [("a", a), ("b", b[:3] + [""] + b[3:])],                       # an empty row
        [("a", a[:4] + [a[4] + a[5]] + a[6:]), ("b", b[:2] + [""] + b[2:])],   # two in one
        [("a", a[:4] + [a[4][:9], a[4][9:]] + a[5:]), ("b", b)],         # one cut in two
    ]
    for games in cases:
        table = _texts_table(games)
        quick, strict = fold_partition(table, strict=False), fold_partition(table)
        assert quick.failed >= 1
        _same_batches(quick, strict)


@pytest.mark.parametrize("ids, seqs, starts", [
    (["a"], [1], [0, 1]),
    (["a", "a", "b", "b", "b"], [1, 2, 1, 2, 3], [0, 2, 5]),
    (["a", "b"], [1, 1], [0, 1, 2]),
    ([], [], None),                                 # nothing to say
    (["a"], [2], None),                             # not from 1
    (["a", "a", "b"], [1, 3, 1], None),             # a gap
    (["a", "a", "b"], [1, 2, 2], None),             # a game not from 1
    (["a", "a"], [1, 1], None),                     # a seq twice
    (["a", "a", "b", "a"], [1, 2, 1, 3], None),     # a game in two places
    (["a", "a"], [-2**31, 2**31 - 1], None),        # no wrap-around of the difference
    (["a", "a"], [1, None], None),                  # nulls are not numbers
    (["a", None], [1, 1], None),
])
def test_numbered_games_says_where_games_numbered_from_one_start(ids, seqs, starts):
    table = pa.table({"game_id": pa.array(ids, pa.string()), "seq": pa.array(seqs, pa.int32())})
    assert numbered_games(table) == starts
