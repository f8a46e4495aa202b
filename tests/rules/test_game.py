"""Set-up, rounds and the game: R-SETUP-1..4, R-FLOW-ROUND, R-FLOW-GAME, R-GAME-1..3,
R-DERIVED, R-VIEW."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import BETWEEN, ENDED, ROUND, State, apply, with_derived
from seasalt_log.errors import IllegalMoveError, LogFormatError
from seasalt_log.view import table_view

from ..scenario import Game, boats, build_deck, crabs, draw, end, last_chance, stop, take

PENGUINS_COLONY = ["penguin:purple", "penguin:light-orange", "penguin:pink", "colony:green"]
TWO_POINTS = ["shell:dark-blue", "shell:light-blue", "octopus:yellow", "fish:green"]
SAILORS_CAPTAIN = ["sailor:pink", "sailor:orange", "captain:light-orange", "crab:grey"]


def refuse(state: State, event: ev.Event) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        apply(state, event)
    return info.value


def stop_round(g: Game, caller: int, caller_hand, *other_hands) -> None:
    """Start a round in which ``caller`` (first to act) draws a yellow boat and a black
    fish, keeps the boat (a single boat scores 0) and calls STOP. The other seats, in seat
    order after the caller, get ``other_hands``."""
    hands = {caller: caller_hand}
    for i, hand in enumerate(other_hands, 1):
        hands[(caller + i) % g.n] = hand
    g.start_round(hands=hands, first=caller, then=["boat:yellow", "fish:black"])
    g.play(draw(caller, "boat:yellow", "fish:black", pile=0), stop(caller))


# ---------------------------------------------------------------- R-SETUP-1

def test_r_setup_1_play_goes_to_the_next_seat_wrapping_around():
    """R-SETUP-1: seats 0..n-1; play goes to the next seat and wraps."""
    g = Game(3).start_round(first=2)
    seats = []
    for _ in range(4):
        p = g.player
        seats.append(p)
        a, b = g.deck[:2]
        g.play(draw(p, a, b, pile=0), end(p))
    assert seats == [2, 0, 1, 2]


def test_r_setup_1_the_next_seat_and_no_other():
    g = Game(4).start_round(first=3)
    g.play(take(3, 0, g.pile_top(0)), end(3))
    assert g.refuse(take(2, 1, g.pile_top(1))).rule == "R-FLOW-PLAYER"
    assert g.refuse(take(1, 1, g.pile_top(1))).rule == "R-FLOW-PLAYER"
    g.play(take(0, 1, g.pile_top(1)))


@pytest.mark.parametrize("players", [["Ann"], ["A", "B", "C", "D", "E"]])
def test_r_setup_1_two_to_four_players(players):
    """R-SETUP-1: 2, 3 or 4 players; anything else is a malformed log."""
    line = ev.encode(ev.GameStarted(players=tuple(players)))
    with pytest.raises(LogFormatError) as info:
        ev.decode(line)
    assert info.value.path == "$.players"


# ---------------------------------------------------------------- R-SETUP-2

@pytest.mark.parametrize("players, target", [(2, 40), (3, 35), (4, 30)])
def test_r_setup_2_default_target(players, target):
    """R-SETUP-2: target 40 / 35 / 30 for 2 / 3 / 4 players."""
    assert Game(players).state.target == target


def test_r_setup_2_the_game_may_name_its_target():
    assert Game(3, target=12).state.target == 12


# ---------------------------------------------------------------- R-SETUP-3

def test_r_setup_3_a_round_starts_from_all_58_cards():
    """R-SETUP-3: top two face up as piles 0 and 1, 56 in the deck, no hands, nothing laid."""
    discards, deck = build_deck(top=["mermaid:white"], discards=["crab:black", "shell:grey"])
    g = Game(3)
    g.play(ev.RoundStarted(round=1, first_player=1, discards=discards, deck=deck))
    t = g.state.table
    assert t.piles == (("crab:black",), ("shell:grey",))
    assert t.deck == deck and len(t.deck) == 56 and t.deck[0] == "mermaid:white"
    assert t.hands == ((), (), ()) and t.laid == ((), (), ())
    assert g.state.phase == ROUND and g.player == 1


def test_r_setup_3_every_round_starts_afresh():
    g = Game(2)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    g.start_round()
    t = g.state.table
    assert t.hands == ((), ()) and t.laid == ((), ())
    assert len(t.deck) == 56 and len(t.piles[0]) == len(t.piles[1]) == 1


def test_r_setup_3_deck_and_discards_are_the_58_cards_once_each():
    discards, deck = build_deck()
    bad = ("mermaid:white",) + deck[1:] if deck[0] != "mermaid:white" else ("crab:black",) + deck[1:]
    g = Game(2)
    err = g.refuse(ev.RoundStarted(round=1, first_player=0, discards=discards, deck=bad))
    assert err.rule == "R-SETUP-3"


def test_r_setup_3_discards_without_a_deck_must_exist_twice():
    g = Game(2)
    err = g.refuse(ev.RoundStarted(round=1, first_player=0,
                                   discards=("captain:light-orange", "captain:light-orange")))
    assert err.rule == "R-SETUP-3"
    g.play(ev.RoundStarted(round=1, first_player=0, discards=("mermaid:white", "mermaid:white")))
    assert len(g.deck) == 56 and g.deck.count("mermaid:white") == 2


# ---------------------------------------------------------------- R-SETUP-4

def test_r_setup_4_first_player_of_round_1_is_recorded():
    """R-SETUP-4: round 1 starts with whichever seat the log names."""
    for first in (0, 1, 2):
        assert Game(3).start_round(first=first).player == first


def test_r_setup_4_after_stop_the_seat_after_the_caller():
    g = Game(3)
    stop_round(g, 1, PENGUINS_COLONY, TWO_POINTS, SAILORS_CAPTAIN)
    g.derived()
    err = g.refuse(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")))
    assert err.rule == "R-SETUP-4"
    g.play(ev.RoundStarted(round=2, first_player=2, discards=("crab:black", "crab:grey")))
    assert g.player == 2


def test_r_setup_4_after_last_chance_the_seat_after_the_caller_wrapping():
    g = Game(3).start_round(hands={2: PENGUINS_COLONY, 0: TWO_POINTS, 1: SAILORS_CAPTAIN},
                            first=2, then=["boat:yellow", "fish:black"])
    g.play(draw(2, "boat:yellow", "fish:black", pile=0), last_chance(2))
    for p in (0, 1):
        g.play(take(p, 0, g.pile_top(0)), end(p))
    assert g.derived()[0].caller == 2
    assert g.refuse(ev.RoundStarted(round=2, first_player=1,
                                    discards=("crab:black", "crab:grey"))).rule == "R-SETUP-4"
    g.play(ev.RoundStarted(round=2, first_player=0, discards=("crab:black", "crab:grey")))


# ---------------------------------------------------------------- where a round_started's errors are

def _round_one_stopped() -> tuple[Game, int]:
    """A game of 3 whose round 1 Ben (seat 1) ended by STOP; (the game, round 1's last turn)."""
    g = Game(3)
    stop_round(g, 1, PENGUINS_COLONY, TWO_POINTS, SAILORS_CAPTAIN)
    g.derived()
    return g, g.state.flow.turn


def test_a_round_started_of_the_next_round_has_its_errors_at_that_round():
    """A round_started numbered as the next round sets that round up: its set-up errors
    (R-SETUP-4, R-SETUP-3, a card code the game lacks) are round 2's, before any turn of it,
    not round 1's last turn."""
    g, _ = _round_one_stopped()
    err = g.refuse(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")))
    assert (err.rule, err.round, err.turn) == ("R-SETUP-4", 2, None)
    assert str(err).startswith("game scenario, round 2: R-SETUP-4: round 2 starts with seat 2 ")
    _, deck = build_deck(discards=("crab:black", "crab:grey"))
    err = g.refuse(ev.RoundStarted(round=2, first_player=2, discards=("crab:black", "crab:grey"),
                                   deck=("mermaid:white", *deck[1:])))   # a 5th mermaid
    assert (err.rule, err.round, err.turn) == ("R-SETUP-3", 2, None)
    for first in (2, 1):        # a code the game lacks is the error, R-SETUP-4 or not
        with pytest.raises(LogFormatError) as info:
            apply(g.state, ev.RoundStarted(round=2, first_player=first,
                                           discards=("crab:black", "crab:pinkish")))
        assert (info.value.round, info.value.turn, info.value.path) == (2, None, "$.discards[1]")
        assert str(info.value).startswith("game scenario, round 2: LOG-FORMAT: ")


def test_a_round_started_with_a_wrong_round_number_is_located_where_the_game_stands():
    """R-FLOW-ROUND: a round_started that is not the next round starts none: its errors are
    located where the game stands, round 1, which has ended (after its last turn: no turn;
    LOG_FORMAT.md, a round's end belongs to no turn); inside a round, at its turn."""
    g, last = _round_one_stopped()
    assert last
    err = g.refuse(ev.RoundStarted(round=3, first_player=2, discards=("crab:black", "crab:grey")))
    assert (err.rule, err.round, err.turn) == ("R-FLOW-ROUND", 1, None)
    with pytest.raises(LogFormatError) as info:
        apply(g.state, ev.RoundStarted(round=3, first_player=2,
                                       discards=("crab:black", "crab:pinkish")))
    assert (info.value.round, info.value.turn) == (1, None)
    g2 = Game(2).start_round()
    g2.play(take(g2.player, 0, g2.pile_top(0)))
    err = g2.refuse(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")))
    assert (err.rule, err.round, err.turn) == ("R-FLOW-ROUND", 1, 1)


# ---------------------------------------------------------------- R-FLOW-ROUND

def test_r_flow_round_no_turn_outside_a_round():
    """R-FLOW-ROUND: turn events happen only inside a round in play."""
    g = Game(2)
    assert g.refuse(take(0, 0, "crab:black")).rule == "R-FLOW-ROUND"
    assert g.refuse(end(0)).rule == "R-FLOW-ROUND"
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    assert g.state.phase == BETWEEN
    err = g.refuse(take(1, 0, "boat:yellow"))
    # located at the round that has ended, at no turn (its turns are over)
    assert (err.rule, err.round, err.turn) == ("R-FLOW-ROUND", 1, None)


def test_r_flow_round_a_round_starts_only_after_the_last_one_ended():
    g = Game(2).start_round()
    err = g.refuse(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")))
    assert err.rule == "R-FLOW-ROUND"


def test_r_flow_round_with_the_next_round_number():
    g = Game(2)
    for wrong in (0, 2):
        err = g.refuse(ev.RoundStarted(round=wrong, first_player=0, discards=("crab:black", "crab:grey")))
        assert err.rule == "R-FLOW-ROUND"
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    for wrong in (1, 3):
        err = g.refuse(ev.RoundStarted(round=wrong, first_player=1, discards=("crab:black", "crab:grey")))
        assert err.rule == "R-FLOW-ROUND"
    g.play(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")))
    assert g.state.flow.round == 2 and g.state.flow.turn == 1


# ---------------------------------------------------------------- R-FLOW-GAME

def ended_game() -> Game:
    g = Game(2, target=5)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    assert g.state.phase == ENDED
    return g


def test_r_flow_game_nothing_after_game_ended():
    """R-FLOW-GAME: nothing happens after the game has ended."""
    g = ended_game()
    last = g.events[-1]
    for e in (ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey")),
              take(1, 0, "boat:yellow"), end(1), stop(1), last, g.events[-2],
              ev.GameStarted(players=("Ann", "Ben"))):
        assert g.refuse(e).rule == "R-FLOW-GAME", e


def test_r_flow_game_nothing_before_game_started():
    s = State()
    assert refuse(s, ev.RoundStarted(round=1, first_player=0,
                                     discards=("crab:black", "crab:grey"))).rule == "R-FLOW-GAME"
    assert refuse(s, end(0)).rule == "R-FLOW-GAME"


def test_r_flow_game_a_game_starts_once():
    g = Game(2)
    assert g.refuse(ev.GameStarted(players=("Ann", "Ben"))).rule == "R-FLOW-GAME"
    assert g.state.players == ("Ann", "Ben") and g.state.totals == (0, 0)


# ---------------------------------------------------------------- R-GAME-1..3

def test_r_game_1_the_highest_total_wins():
    g = ended_game()
    assert g.events[-1] == ev.GameEnded(reason="target", winners=(0,), totals=(11, 2))
    assert g.state.winners == (0,) and g.state.reason == "target"


def test_r_game_1_a_tie_goes_to_the_best_last_round():
    """R-GAME-1: round 1 ends 11 / 2 (below 13); round 2 gives 2 / 11: both reach 13, and
    seat 1's 11 points in that last round beat seat 0's 2."""
    g = Game(2, target=13)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    assert g.derived()[-1].totals == (11, 2)
    assert g.state.phase == BETWEEN
    stop_round(g, 1, PENGUINS_COLONY, TWO_POINTS)
    out = g.derived()
    assert out[0].points == (2, 11) and out[0].totals == (13, 13)
    assert out[1] == ev.GameEnded(reason="target", winners=(1,), totals=(13, 13))


def test_r_game_1_a_remaining_tie_is_a_shared_win():
    """R-GAME-1: 11 (penguins 5, colony 6, yellow boat 0) and 11 (sailors 5, captain 6,
    grey crab 0) in the same round: a shared win."""
    g = Game(2, target=11)
    stop_round(g, 0, PENGUINS_COLONY, SAILORS_CAPTAIN)
    assert g.derived()[-1] == ev.GameEnded(reason="target", winners=(0, 1), totals=(11, 11))


def test_r_game_3_otherwise_a_new_round():
    """R-GAME-3: below the target, the next round starts."""
    g = Game(2)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    assert [type(e) for e in g.derived()] == [ev.RoundScored]
    assert g.state.phase == BETWEEN and g.state.rounds_played == 1
    g.start_round()
    assert g.state.phase == ROUND and g.state.flow.round == 2 and g.player == 1


# ---------------------------------------------------------------- R-DERIVED

def stopped() -> Game:
    g = Game(2, target=5)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    return g


def test_r_derived_the_engine_computes_round_scored():
    g = stopped()
    good = ev.RoundScored(round=1, ending="stop", caller=0, caller_won=None, card_points=(11, 2),
                          color_bonus=(1, 1), points=(11, 2), totals=(11, 2))
    for bad in (replace(good, points=(11, 3)), replace(good, totals=(12, 2)),
                replace(good, ending="last_chance"), replace(good, caller=1),
                replace(good, caller_won=True), replace(good, card_points=(10, 2)),
                replace(good, color_bonus=(2, 1)), replace(good, round=2)):
        err = g.refuse(bad)
        assert err.rule == "R-DERIVED"
    g.play(replace(good, at="2024-01-01T00:00:00Z"))       # the timestamp is not compared
    assert g.state.totals == (11, 2)


def test_r_derived_is_due_before_anything_else():
    g = stopped()
    assert g.refuse(take(1, 0, "boat:yellow")).rule == "R-DERIVED"
    assert g.refuse(ev.RoundStarted(round=2, first_player=1,
                                    discards=("crab:black", "crab:grey"))).rule == "R-DERIVED"
    assert g.refuse(ev.GameEnded(reason="target", winners=(0,), totals=(11, 2))).rule == "R-DERIVED"
    g.derived()


def test_r_derived_game_ended_must_match():
    g = stopped()
    g.play(ev.RoundScored(round=1, ending="stop", caller=0, caller_won=None, card_points=(11, 2),
                          color_bonus=(1, 1), points=(11, 2), totals=(11, 2)))
    assert g.refuse(ev.RoundStarted(round=2, first_player=1,
                                    discards=("crab:black", "crab:grey"))).rule == "R-DERIVED"
    for bad in (ev.GameEnded(reason="target", winners=(1,), totals=(11, 2)),
                ev.GameEnded(reason="mermaids", winners=(0,), totals=(11, 2)),
                ev.GameEnded(reason="target", winners=(0,), totals=(11, 3))):
        assert g.refuse(bad).rule == "R-DERIVED"
    g.play(ev.GameEnded(reason="target", winners=(0,), totals=(11, 2)))


def test_r_derived_out_of_place():
    g = Game(2).start_round()
    rs = ev.RoundScored(round=1, ending="deck_out", caller=None, caller_won=None,
                        card_points=(0, 0), color_bonus=(0, 0), points=(0, 0), totals=(0, 0))
    assert g.refuse(rs).rule == "R-DERIVED"
    assert g.refuse(ev.GameEnded(reason="target", winners=(0,), totals=(0, 0))).rule == "R-DERIVED"
    assert refuse(State(), rs).rule == "R-DERIVED"


def test_r_derived_left_out_they_are_added_in_place():
    """R-DERIVED / LOG_FORMAT: a log without derived events gets them where the engine
    computes them; a log with them re-checks to the same stream."""
    g = Game(2, target=13)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    stop_round(g, 1, PENGUINS_COLONY, TWO_POINTS)
    g.derived()
    full = g.events
    inputs = [e for e in full if type(e) not in ev.DERIVED_TYPES]
    assert len(inputs) == len(full) - 3
    assert [e for e, _ in with_derived(inputs)] == full
    assert [e for e, _ in with_derived(full)] == full
    # a derived event in the wrong place is refused even when its content is right
    moved = list(full)
    i = next(i for i, e in enumerate(moved) if type(e) is ev.RoundScored)
    moved.insert(i - 1, moved.pop(i))
    with pytest.raises(IllegalMoveError) as info:
        list(with_derived(moved))
    assert info.value.rule == "R-DERIVED"


# ---------------------------------------------------------------- R-VIEW

def viewed_game() -> Game:
    g = Game(3).start_round(hands={0: ["crab:black", "crab:yellow"] + PENGUINS_COLONY[:2],
                                   1: TWO_POINTS, 2: PENGUINS_COLONY[2:] + ["shell:black", "shell:green"]})
    g.play(take(0, 1, g.pile_top(1)), crabs(0, "crab:black", "crab:yellow", 0, g.pile_top(0)))
    return g


def test_r_view_a_player_sees_only_their_own_hand():
    """R-VIEW: other hands are secret (their size is public); the deck order is secret;
    laid-down pairs, pile tops and pile sizes are public."""
    g = viewed_game()
    t = g.state.table
    v = table_view(g.state, viewer=1)
    assert v.viewer == 1
    assert v.seats[1].hand == tuple(sorted(t.hands[1])) and v.seats[1].card_points == 2
    for s in (0, 2):
        assert v.seats[s].hand is None and v.seats[s].card_points is None
        assert v.seats[s].hand_size == len(t.hands[s])
    assert v.seats[0].laid == (("crab:black", "crab:yellow"),)
    assert v.deck is None and v.deck_size == len(t.deck)
    for i in (0, 1):
        assert v.piles[i].size == len(t.piles[i])
        assert v.piles[i].top == (t.piles[i][-1] if t.piles[i] else None)
        assert v.piles[i].cards is None


def test_r_view_the_whole_table():
    g = viewed_game()
    t = g.state.table
    v = table_view(g.state)
    assert v.viewer is None and v.deck == t.deck
    assert [s.hand for s in v.seats] == [tuple(sorted(h)) for h in t.hands]
    assert v.piles[0].cards == t.piles[0]


def test_r_view_revealed_hands_are_public():
    """R-VIEW / R-LAST-3: the LAST CHANCE caller's hand is revealed to everyone."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS}, then=["crab:grey", "boat:yellow"])
    assert table_view(g.state, viewer=1).seats[0].hand is None
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), last_chance(0))
    v = table_view(g.state, viewer=1)
    assert v.seats[0].revealed and v.seats[0].hand == tuple(sorted(g.hand(0)))
    assert v.seats[0].card_points == 11
    assert not v.seats[1].revealed
    assert table_view(g.state, viewer=0).seats[1].hand is None


def test_r_view_stop_reveals_the_callers_hand():
    """R-VIEW / R-END-2: the caller reveals their hand; the others stay hidden until scored."""
    g = Game(3)
    stop_round(g, 0, PENGUINS_COLONY, TWO_POINTS, SAILORS_CAPTAIN)
    v = table_view(g.state, viewer=2)
    assert v.seats[0].revealed and v.seats[0].hand == tuple(sorted(g.hand(0)))
    assert v.seats[1].hand is None and v.seats[2].hand == tuple(sorted(g.hand(2)))
    assert v.player is None                      # nobody acts while round_scored is due
