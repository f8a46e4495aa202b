"""Read-model rows worked by hand from the fixture logs and RULES.md, not from ``project()``.

Each expected row below was counted and scored by reading the log (fixtures/rules/*.jsonl):
turns are counted from the turn-ending events, the deck from the cards drawn (56 after the
two discards), card points and colour bonus with RULES.md §4, the scored parts with
R-STOP / R-LAST-4 / R-DECKOUT. The games cover every ending (STOP, LAST CHANCE won and
lost, deck-out, four mermaids), every duo with and without its effect (R-DUO-NOEFFECT),
and rounds in play (between two turns, and in the middle of a turn).

The rows are read back from a store written by an import, from the same store after
``rebuild``, and from a store that got each in-play game first cut short and then whole
(the appender's incremental path).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from seasalt_log.store.rebuild import rebuild
from seasalt_log.golden import FIXTURES
from seasalt_log.service import import_logs
from seasalt_log.store import Store

RULES_DIR = FIXTURES / "rules"

# ---------------------------------------------------------------- the games

GAMES = ["last-chance-won", "last-chance-lost", "call-at-7", "four-mermaids", "deck-out",
         "fish-empty-deck", "nothing-to-take-skip", "boat-extra-take", "boat-in-final-turn",
         "crab-no-effect-both-piles-empty", "crab-take-from-pile", "fish-draw", "shark-steal",
         "shark-in-final-turns"]
#: games cut short: (new id, fixture, events kept)
CUT = [("boat-mid-turn", "boat-extra-take", 8),        # after boats_played: the boat take is owed
       ("boat-between-turns", "boat-extra-take", 6),   # after turn 2 ended; turn 3 not begun
       ("boat-just-dealt", "boat-extra-take", 2)]      # round_started, nothing played yet

# ---------------------------------------------------------------- rounds

R_COLS = ("first_player", "deck_recorded", "ending", "caller", "caller_won", "outcome",
          "caller_card_points", "turns", "deck_left")
ROUNDS = {
    # Ann: sailor pink + orange 5, captain +6 = 11 against Ben's 0; 6 turns, 4 draws of 2
    ("last-chance-won", 1): (0, True, "last_chance", 0, True, "won", 11, 6, 48),
    # Ann: 2 penguins 3, colony +4 = 7 against Ben's sailors and captain 11
    ("last-chance-lost", 1): (0, True, "last_chance", 0, False, "lost", 7, 6, 48),
    # STOP on turn 5 with exactly 7; 3 draws
    ("call-at-7", 1): (0, True, "stop", 0, None, None, 7, 5, 50),
    ("four-mermaids", 1): (0, True, "stop", 0, None, None, 11, 5, 50),
    # round 2: 8 turns, 6 draws of 2; not scored, no caller (R-MERMAID-WIN)
    ("four-mermaids", 2): (1, True, "mermaids", None, None, None, None, 8, 44),
    # 28 turns of two-card draws empty the 56 cards
    ("deck-out", 1): (0, True, "deck_out", None, None, None, None, 28, 0),
    # a round in play: one turn ended (a discard take), nothing drawn
    ("deck-out", 2): (0, True, None, None, None, None, None, 1, 56),
    ("fish-empty-deck", 1): (0, True, "deck_out", None, None, None, None, 28, 0),
    # 57 turn_ended + the LAST CHANCE turn; 27 draws of 2, one of 1, one fish draw = 56
    ("nothing-to-take-skip", 1): (0, True, "last_chance", 0, False, "lost", 37, 58, 0),
    # in play, turn 3 ended: draws at turn 2 and the boat take
    ("boat-extra-take", 1): (0, True, None, None, None, None, None, 3, 52),
    ("boat-in-final-turn", 1): (0, True, "last_chance", 0, True, "won", 11, 6, 46),
    ("crab-no-effect-both-piles-empty", 1): (0, True, None, None, None, None, None, 4, 54),
    # 7 turns (turn 5: take, crab pair, end), 3 draws of 2
    ("crab-take-from-pile", 1): (0, True, None, None, None, None, None, 7, 50),
    # one draw of 2, the fish pair's draw of 1
    ("fish-draw", 1): (0, True, None, None, None, None, None, 3, 53),
    ("shark-steal", 1): (0, True, None, None, None, None, None, 3, 54),
    # 9 turns (3 seats), 7 draws of 2
    ("shark-in-final-turns", 1): (0, True, "last_chance", 0, True, "won", 11, 9, 42),
    # the turn in play counts: turn 3 has its take and its boat pair
    ("boat-mid-turn", 1): (0, True, None, None, None, None, None, 3, 54),
    # two turns played, the third not begun
    ("boat-between-turns", 1): (0, True, None, None, None, None, None, 2, 54),
    ("boat-just-dealt", 1): (0, True, None, None, None, None, None, 0, 56),
}

# ---------------------------------------------------------------- duos

D_COLS = ("round", "turn", "seat", "kind", "cards", "effect", "card", "pile", "victim")
DUOS = {
    # R-DUO-BOAT: the boat pair gives another take (it is made: a deck draw)
    ("boat-extra-take", 8): (1, 3, 0, "boat", ["boat:black", "boat:yellow"], True, None, None, None),
    # ... and in a final turn too (Ruling R-LAST-1)
    ("boat-in-final-turn", 14): (1, 6, 1, "boat", ["boat:black", "boat:yellow"], True, None, None, None),
    # the take a boat pair gives is owed even before it is made
    ("boat-mid-turn", 8): (1, 3, 0, "boat", ["boat:black", "boat:yellow"], True, None, None, None),
    # R-DUO-NOEFFECT: deck and piles empty in Ben's final turn: no pair does anything
    ("nothing-to-take-skip", 118): (1, 58, 1, "crab", ["crab:dark-blue", "crab:dark-blue"], False, None, None, None),
    ("nothing-to-take-skip", 119): (1, 58, 1, "fish", ["fish:dark-blue", "fish:dark-blue"], False, None, None, None),
    ("nothing-to-take-skip", 120): (1, 58, 1, "boat", ["boat:dark-blue", "boat:dark-blue"], False, None, None, None),
    ("nothing-to-take-skip", 121): (1, 58, 1, "shark", ["shark:dark-blue", "swimmer:dark-blue"], False, None, None, None),
    ("fish-empty-deck", 58): (1, 28, 1, "fish", ["fish:dark-blue", "fish:dark-blue"], False, None, None, None),
    ("crab-no-effect-both-piles-empty", 10): (1, 4, 0, "crab", ["crab:dark-blue", "crab:yellow"], False, None, None, None),
    # R-DUO-CRAB: the middle card of pile 0
    ("crab-take-from-pile", 12): (1, 5, 0, "crab", ["crab:dark-blue", "crab:yellow"], True, "penguin:pink", 0, None),
    ("fish-draw", 8): (1, 3, 0, "fish", ["fish:dark-blue", "fish:black"], True, "octopus:green", None, None),
    ("shark-steal", 8): (1, 3, 0, "shark", ["swimmer:yellow", "shark:green"], True, "shell:dark-blue", None, 1),
    # Cid not revealed yet: Ben steals; then both other hands are revealed (R-LAST-3)
    ("shark-in-final-turns", 18): (1, 8, 1, "shark", ["swimmer:dark-blue", "shark:dark-blue"], True, "swimmer:black", None, 2),
    ("shark-in-final-turns", 21): (1, 9, 2, "shark", ["shark:black", "swimmer:yellow"], False, None, None, None),
}
#: games whose every pair is listed above
ALL_DUOS_LISTED = ["boat-extra-take", "boat-in-final-turn", "boat-mid-turn",
                   "crab-no-effect-both-piles-empty", "crab-take-from-pile", "fish-draw",
                   "shark-steal", "shark-in-final-turns", "last-chance-won", "call-at-7"]

# ---------------------------------------------------------------- round results

RR_COLS = ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus",
           "points", "total", "card_points_scored", "color_bonus_scored")
ROUND_RESULTS = {
    # LAST CHANCE won (R-LAST-4): Ann card points + bonus 11 + 1; Ben only his bonus: three
    # dark-blue cards (crab, boat, fish, no pair) = 3
    ("last-chance-won", 1, 0): (0, 5, 6, 0, 11, 1, 12, 12, True, True),
    ("last-chance-won", 1, 1): (0, 0, 0, 0, 0, 3, 3, 3, False, True),
    # LAST CHANCE lost: Ann (penguins purple, pink, colony green) only her bonus 1
    ("last-chance-lost", 1, 0): (0, 3, 4, 0, 7, 1, 1, 1, False, True),
    ("last-chance-lost", 1, 1): (0, 5, 6, 0, 11, 1, 11, 11, True, False),
    # STOP (R-STOP): card points for everyone; Ben: shell yellow, crab green = 0
    ("call-at-7", 1, 0): (0, 3, 4, 0, 7, 1, 7, 7, True, False),
    ("call-at-7", 1, 1): (0, 0, 0, 0, 0, 1, 0, 0, True, False),
    # Ben: shell dark-blue + shell light-blue = 2
    ("four-mermaids", 1, 0): (0, 5, 6, 0, 11, 1, 11, 11, True, False),
    ("four-mermaids", 1, 1): (0, 2, 0, 0, 2, 1, 2, 2, True, False),
    # Ben: shark+swimmer dark-blue laid (1), shell yellow and the stolen swimmer black (0);
    # dark-blue 2. Cid: shark black + swimmer yellow laid, empty hand
    ("shark-in-final-turns", 1, 0): (0, 5, 6, 0, 11, 1, 12, 12, True, True),
    ("shark-in-final-turns", 1, 1): (1, 0, 0, 0, 1, 2, 2, 2, False, True),
    ("shark-in-final-turns", 1, 2): (1, 0, 0, 0, 1, 1, 1, 1, False, True),
    # Ben: boat pair (1) and shells yellow + green (2) = 3; yellow 2
    ("boat-in-final-turn", 1, 1): (1, 2, 0, 0, 3, 2, 2, 2, False, True),
}
#: deck-outs score nothing and count neither part (R-DECKOUT); card points as logged
DECK_OUTS = {("deck-out", 1): ((11, 12), (4, 5)), ("fish-empty-deck", 1): ((9, 10), (3, 3))}

# ---------------------------------------------------------------- turns

TURNS = {
    ("last-chance-won", 1, 1): dict(seat=0, take="discard", drawn=None, kept="sailor:pink", discarded=None,
                                    discard_pile=None, pile=0, ended="turn_ended", final=False, hand_size=1,
                                    card_points=0, color_bonus=1, deck_left=56, first_seq=3, last_seq=4),
    ("last-chance-won", 1, 2): dict(seat=1, take="deck", drawn=["crab:dark-blue", "crab:light-blue"],
                                    kept="crab:dark-blue", discarded="crab:light-blue", discard_pile=0,
                                    pile=None, hand_size=1, card_points=0, color_bonus=1, deck_left=54),
    ("last-chance-won", 1, 3): dict(seat=0, take="discard", kept="sailor:orange", pile=1, hand_size=2,
                                    card_points=5, color_bonus=1, deck_left=54),
    ("last-chance-won", 1, 4): dict(seat=1, take="deck", kept="boat:dark-blue", discarded="crab:light-blue",
                                    discard_pile=1, hand_size=2, card_points=0, color_bonus=2, deck_left=52),
    ("last-chance-won", 1, 5): dict(seat=0, take="deck", kept="captain:light-orange", discarded="crab:black",
                                    ended="last_chance", final=False, hand_size=3, card_points=11,
                                    color_bonus=1, deck_left=50, first_seq=11, last_seq=12),
    ("last-chance-won", 1, 6): dict(seat=1, take="deck", kept="fish:dark-blue", ended="turn_ended", final=True,
                                    hand_size=3, card_points=0, color_bonus=3, deck_left=48,
                                    first_seq=13, last_seq=14),
    ("call-at-7", 1, 5): dict(seat=0, take="deck", kept="colony:green", ended="stop", final=False,
                              card_points=7, boat_takes=0, duos=0),
    ("boat-extra-take", 1, 3): dict(seat=0, take="discard", drawn=None, kept="boat:yellow", pile=1,
                                    boat_takes=1, boat_kept=["octopus:green"], duos=1, ended="turn_ended",
                                    final=False, hand_size=1, card_points=1, color_bonus=1, deck_left=52,
                                    first_seq=7, last_seq=10),
    ("boat-in-final-turn", 1, 6): dict(seat=1, take="deck", drawn=["shell:yellow", "crab:light-blue"],
                                       kept="shell:yellow", discarded="crab:light-blue", discard_pile=0,
                                       boat_takes=1, boat_kept=["shell:green"], duos=1, ended="turn_ended",
                                       final=True, hand_size=2, card_points=3, color_bonus=2, deck_left=46,
                                       first_seq=13, last_seq=16),
    # R-TAKE-4: nothing to take, the take is skipped; four pairs with no effect
    ("nothing-to-take-skip", 1, 58): dict(seat=1, take="none", drawn=None, kept=None, boat_takes=0,
                                          boat_kept=[], duos=4, ended="turn_ended", final=True,
                                          deck_left=0, first_seq=118, last_seq=122),
    # turns in play: ended NULL, the row as the turn stands
    ("boat-mid-turn", 1, 3): dict(seat=0, take="discard", kept="boat:yellow", pile=1, boat_takes=0,
                                  boat_kept=[], duos=1, ended=None, final=False, hand_size=0,
                                  card_points=1, color_bonus=1, deck_left=54, first_seq=7, last_seq=8),
    ("deck-out", 2, 1): dict(seat=0, take="discard", kept="crab:grey", pile=0, ended="turn_ended",
                             hand_size=1, card_points=0, deck_left=56, first_seq=61, last_seq=62),
}
#: how many turns rows each game has (every turn, the one in play included)
TURN_COUNTS = {"last-chance-won": 6, "four-mermaids": 13, "deck-out": 29, "boat-mid-turn": 3,
               "boat-between-turns": 2, "boat-just-dealt": 0, "nothing-to-take-skip": 58}

GAME_ROWS = {
    # status, rounds_played, events, end_reason, winners, totals
    "four-mermaids": ("ended", 1, 31, "mermaids", [0], [11, 2]),
    "deck-out": ("in_progress", 1, 62, None, None, [0, 0]),
    "last-chance-won": ("in_progress", 1, 15, None, None, [12, 3]),
    "boat-mid-turn": ("in_progress", 0, 8, None, None, [0, 0]),
}


# ---------------------------------------------------------------- stores

def _write_logs(d: Path) -> list[Path]:
    logs = []
    for new_id, name, keep in CUT:
        lines = (RULES_DIR / f"{name}.jsonl").read_text().splitlines()[:keep]
        lines[0] = lines[0].replace(f'"game_id":"{name}"', f'"game_id":"{new_id}"')
        assert new_id in lines[0]
        (d / f"{new_id}.jsonl").write_text("\n".join(lines) + "\n")
        logs.append(d / f"{new_id}.jsonl")
    logs += [RULES_DIR / f"{g}.jsonl" for g in GAMES]
    return logs


@pytest.fixture(scope="module", params=["import", "rebuild", "extended"])
def store(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"by-hand-{request.param}")
    path = d / "s.duckdb"
    with Store.open(path) as s:
        if request.param == "extended":
            # every game cut short at a round in play first, then whole (appends)
            short = []
            for g in GAMES:
                lines = (RULES_DIR / f"{g}.jsonl").read_text().splitlines()
                (d / f"short-{g}.jsonl").write_text("\n".join(lines[:max(3, len(lines) // 2)]) + "\n")
                short.append(d / f"short-{g}.jsonl")
            assert import_logs(s, short).failed == 0
        summary = import_logs(s, _write_logs(d))
        assert summary.failed == 0
        if request.param == "rebuild":
            rebuild(s)
    con = Store.open(path, read_only=True)
    yield con
    con.close()


def _rows(store, sql: str, params=()) -> list[tuple]:
    return store.con.execute(sql, list(params)).fetchall()


def _pick(cols):
    return ", ".join(f'"{c}"' for c in cols)


# ---------------------------------------------------------------- the checks

@pytest.mark.parametrize("key", sorted(ROUNDS), ids=lambda k: f"{k[0]}-r{k[1]}")
def test_rounds(store, key):
    got = _rows(store, f"SELECT {_pick(R_COLS)} FROM rounds WHERE game_id = ? AND round = ?", key)
    assert got == [ROUNDS[key]], dict(zip(R_COLS, got[0])) if got else "no row"


def test_every_round_is_listed(store):
    games = sorted({g for g, _ in ROUNDS})
    got = _rows(store, "SELECT game_id, round FROM rounds WHERE list_contains(?, game_id)", [games])
    assert sorted(got) == sorted(ROUNDS)


@pytest.mark.parametrize("key", sorted(DUOS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_duos(store, key):
    got = _rows(store, f"SELECT {_pick(D_COLS)} FROM duos WHERE game_id = ? AND seq = ?", key)
    assert got == [DUOS[key]], dict(zip(D_COLS, got[0])) if got else "no row"


def test_no_other_duos(store):
    got = _rows(store, "SELECT game_id, seq FROM duos WHERE list_contains(?, game_id)", [ALL_DUOS_LISTED])
    assert sorted(got) == sorted(k for k in DUOS if k[0] in ALL_DUOS_LISTED)


@pytest.mark.parametrize("key", sorted(ROUND_RESULTS), ids=lambda k: f"{k[0]}-r{k[1]}-s{k[2]}")
def test_round_results(store, key):
    got = _rows(store, f"SELECT {_pick(RR_COLS)} FROM round_results "
                       "WHERE game_id = ? AND round = ? AND seat = ?", key)
    assert got == [ROUND_RESULTS[key]], dict(zip(RR_COLS, got[0])) if got else "no row"


@pytest.mark.parametrize("key", sorted(DECK_OUTS), ids=lambda k: k[0])
def test_deck_outs_score_nothing(store, key):
    card_points, bonus = DECK_OUTS[key]
    got = _rows(store, "SELECT seat, card_points, color_bonus, points, total, card_points_scored, "
                       "color_bonus_scored FROM round_results WHERE game_id = ? AND round = ? "
                       "ORDER BY seat", key)
    assert got == [(s, card_points[s], bonus[s], 0, 0, False, False) for s in range(2)]


def test_no_round_results_for_unscored_rounds(store):
    """A round in play and a round ended by four mermaids have no results."""
    got = _rows(store, "SELECT game_id, round FROM round_results WHERE "
                       "list_contains(['four-mermaids', 'boat-extra-take', 'boat-mid-turn', "
                       "'deck-out'], game_id) GROUP BY ALL ORDER BY ALL")
    assert got == [("deck-out", 1), ("four-mermaids", 1)]


@pytest.mark.parametrize("key", sorted(TURNS), ids=lambda k: f"{k[0]}-r{k[1]}-t{k[2]}")
def test_turns(store, key):
    want = TURNS[key]
    got = _rows(store, f"SELECT {_pick(want)} FROM turns WHERE game_id = ? AND round = ? AND turn = ?", key)
    assert len(got) == 1, got
    assert dict(zip(want, got[0])) == want


@pytest.mark.parametrize("game", sorted(TURN_COUNTS))
def test_turn_counts(store, game):
    assert _rows(store, "SELECT count(*) FROM turns WHERE game_id = ?", [game]) == [(TURN_COUNTS[game],)]


@pytest.mark.parametrize("game", sorted(GAME_ROWS))
def test_games(store, game):
    got = _rows(store, "SELECT status, rounds_played, events, end_reason, winners, totals "
                       "FROM games WHERE game_id = ?", [game])
    assert got == [GAME_ROWS[game]]


# ---------------------------------------------------------------- the checks can fail

def _wrong_rounds(con) -> list:
    return [k for k, want in ROUNDS.items()
            if con.execute(f"SELECT {_pick(R_COLS)} FROM rounds WHERE game_id = ? AND round = ?",
                           list(k)).fetchall() != [want]]


def _wrong_duos(con) -> list:
    return [k for k, want in DUOS.items()
            if con.execute(f"SELECT {_pick(D_COLS)} FROM duos WHERE game_id = ? AND seq = ?",
                           list(k)).fetchall() != [want]]


@pytest.mark.parametrize("damage, table, caught", [
    # every boat pair said to give a take: the four without effect are caught
    ("UPDATE duos SET effect = true WHERE kind = 'boat'", "duos",
     [("nothing-to-take-skip", 120)]),
    # no boat pair said to give a take
    ("UPDATE duos SET effect = false WHERE kind = 'boat'", "duos",
     [("boat-extra-take", 8), ("boat-in-final-turn", 14), ("boat-mid-turn", 8)]),
    # a round in play counting the next turn, not yet begun, as played
    ("UPDATE rounds SET turns = turns + 1 WHERE ending IS NULL AND game_id = 'boat-between-turns'",
     "rounds", [("boat-between-turns", 1)]),
    # a round in play not counting the turn in play
    ("UPDATE rounds SET turns = turns - 1 WHERE game_id = 'boat-mid-turn'", "rounds",
     [("boat-mid-turn", 1)]),
])
def test_the_expected_rows_catch_a_wrong_row(tmp_path, damage, table, caught):
    """The same read models with one kind of wrong row: the expectations above see it."""
    import duckdb
    path = tmp_path / "s.duckdb"
    with Store.open(path) as s:
        assert import_logs(s, _write_logs(tmp_path)).failed == 0
    con = duckdb.connect(str(path))
    try:
        check = _wrong_duos if table == "duos" else _wrong_rounds
        assert check(con) == []
        con.execute(damage)
        assert sorted(check(con)) == sorted(caught)
    finally:
        con.close()
