"""Step 3 of a turn and the end of a round: R-END-1..3, R-MERMAID-WIN, R-FLOW-PLAYER,
R-STOP, R-LAST-1..4, R-DECKOUT. Card points in the comments are worked out by hand."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.engine import ENDED, legal_moves
from seasalt_log.scoring import breakdown

from ..scenario import (Game, boats, crabs, draw, end, fish, last_chance, shark, stop, take)

M = "mermaid:white"
FB, FDB = "fish:black", "fish:dark-blue"
# 3 penguins 5 + colony 2 x 3 = 11
PENGUINS_COLONY = ["penguin:purple", "penguin:light-orange", "penguin:pink", "colony:green"]
# shells 2 -> 2, octopus and fish single -> 0: 2 points
TWO_POINTS = ["shell:black", "shell:green", "octopus:yellow", "fish:green"]
# sailors 5 + captain 3 x 2 = 11
SAILORS_CAPTAIN = ["sailor:pink", "sailor:orange", "captain:light-orange", "octopus:yellow"]


def scored(round_no, ending, caller, won, card_points, bonus, points, totals) -> ev.RoundScored:
    return ev.RoundScored(round=round_no, ending=ending, caller=caller, caller_won=won,
                          card_points=tuple(card_points), color_bonus=tuple(bonus),
                          points=tuple(points), totals=tuple(totals))


# ---------------------------------------------------------------- R-END-1

def test_r_end_1_just_end_the_turn():
    """R-END-1: once the take is done the turn may end; play goes to the next seat."""
    g = Game(3).start_round()
    assert g.state.flow.turn == 1
    g.play(take(0, 1, g.pile_top(1)), end(0))
    f = g.state.flow
    assert (f.player, f.turn, f.step) == (1, 2, "take")


def test_r_end_1_not_before_the_take_is_done():
    """R-END-1: not before the take nor before a boat's take (both R-FLOW-TAKE)."""
    g = Game(2).start_round(hands={0: ["boat:black", "boat:dark-blue"], 1: TWO_POINTS[:2]})
    assert g.refuse(end(0)).rule == "R-FLOW-TAKE"
    g.play(take(0, 1, g.pile_top(1)), boats(0, "boat:black", "boat:dark-blue"))
    assert g.refuse(end(0)).rule == "R-FLOW-TAKE"


# ---------------------------------------------------------------- R-END-2

def six_points() -> Game:
    """Seat 0 holds sailors (5) and a crab pair in hand (1): 6 card points after keeping a
    single grey shell (0). Its colour bonus (1) does not count."""
    g = Game(2).start_round(
        hands={0: ["sailor:pink", "sailor:orange", "crab:dark-blue", "crab:light-blue"],
               1: TWO_POINTS},
        discards=["shell:yellow", "octopus:grey"],
        then=["shell:grey", "boat:yellow", "crab:black", "boat:black", "penguin:pink", "fish:yellow"])
    g.play(draw(0, "shell:grey", "boat:yellow", pile=0))
    assert breakdown(g.hand(0)).card_points == 6
    return g


def test_r_end_2_calls_need_7_card_points():
    """R-END-2: 6 card points (colour bonus never included) are not enough to call."""
    g = six_points()
    err = g.refuse(stop(0))
    assert err.rule == "R-END-2" and "6" in err.reason
    assert g.refuse(last_chance(0)).rule == "R-END-2"
    assert ev.StopCalled(player=0) not in legal_moves(g.state)


def test_r_end_2_seven_card_points_laid_pairs_included():
    """R-END-2: hand and laid-down cards together: the laid crab pair still counts."""
    g = six_points()
    g.play(end(0), draw(1, "crab:black", "boat:black", pile=0), end(1),
           draw(0, "penguin:pink", "fish:yellow", pile=0))
    # sailors 5 + crab pair 1 + penguin 1 = 7; lay the crabs (taking the grey octopus)
    g.play(crabs(0, "crab:dark-blue", "crab:light-blue", 1, "octopus:grey"))
    assert g.laid(0) == (("crab:dark-blue", "crab:light-blue"),)
    g.play(stop(0))
    assert g.state.flow.call == "stop" and g.state.flow.caller == 0


# ---------------------------------------------------------------- R-MERMAID-WIN, R-GAME-2

def three_mermaids(extra: list[str], then=("mermaid:white", "crab:black"), **kw) -> Game:
    hand = [M, M, M] + extra
    other = (["shell:black", "shell:green", "octopus:yellow", "fish:green", "sailor:pink",
              "sailor:orange", "captain:light-orange", "octopus:green"])[:len(hand)]
    return Game(2).start_round(hands={0: hand, 1: other}, then=list(then), **kw)


def test_r_mermaid_win_four_mermaids_at_the_end_of_the_turn():
    """R-MERMAID-WIN / R-GAME-2: the game ends at once; the round is not scored."""
    g = three_mermaids(["shell:yellow"])
    g.play(draw(0, M, "crab:black", pile=0), end(0))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(0,), totals=(0, 0))]
    assert g.state.phase == ENDED and g.state.winners == (0,)


def test_r_mermaid_win_totals_as_before_the_round():
    """R-GAME-2: the totals are those before the interrupted round."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS},
                            then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), stop(0))
    assert g.derived()[0].totals == (11, 2)
    g.start_round(hands={1: [M, M, M, "shell:yellow"], 0: TWO_POINTS}, then=[M, "crab:black"])
    assert g.state.flow.round == 2 and g.player == 1
    g.play(draw(1, M, "crab:black", pile=0), end(1))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(1,), totals=(11, 2))]


def test_r_mermaid_win_after_a_legal_call():
    """R-MERMAID-WIN: checked after the turn's last event, even a call: no round_scored. The
    call still reveals the caller's hand (R-END-2: "reveal your hand and call")."""
    g = three_mermaids(PENGUINS_COLONY + ["shell:yellow"])
    g.play(draw(0, M, "crab:black", pile=0), stop(0))
    assert g.state.flow.revealed == 0b1
    assert [type(e) for e in g.derived()] == [ev.GameEnded]
    assert g.events[-1].reason == "mermaids"


def test_r_mermaid_win_the_call_must_still_be_legal():
    """R-MERMAID-WIN: four mermaids and a yellow shell: white 4 + yellow 1 = 5 card points,
    so STOP is refused (R-END-2); ending the turn wins."""
    g = three_mermaids(["shell:yellow"])
    g.play(draw(0, M, "crab:black", pile=0))
    assert g.refuse(stop(0)).rule == "R-END-2"
    g.play(end(0))
    assert g.derived()[0].reason == "mermaids"


def test_r_mermaid_win_comes_before_the_deck_out():
    """R-MERMAID-WIN: checked before the deck-out rule (R-END-3)."""
    g = three_mermaids(["shell:yellow"], then=(), bottom=[M, "crab:black"])
    g.drain(2, player=0)
    assert g.deck == (M, "crab:black")
    g.play(draw(0, M, "crab:black", pile=0), end(0))
    assert g.deck == ()
    assert [e.reason for e in g.derived()] == ["mermaids"]


def test_r_mermaid_win_in_a_final_turn():
    """R-MERMAID-WIN during the final turns of LAST CHANCE: no round_scored."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: [M, M, M, "shell:yellow"]},
                            then=["crab:grey", "boat:yellow", M, "crab:black"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), last_chance(0),
           draw(1, M, "crab:black", pile=0), end(1))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(1,), totals=(0, 0))]


def test_r_mermaid_win_needs_four_in_hand():
    g = three_mermaids(["shell:yellow"])
    g.play(draw(0, M, "crab:black", keep="crab:black", pile=0), end(0))
    assert g.derived() == [] and g.player == 1


# ---------------------------------------------------------------- R-END-3, R-DECKOUT

def deck_out(players=2, last=1) -> Game:
    g = Game(players).start_round()
    g.drain(2, player=last)
    a, b = g.deck
    g.play(draw(last, a, b, pile=0), end(last))
    return g


def test_r_end_3_deck_out_ends_the_round_and_nobody_scores():
    """R-END-3 / R-DECKOUT: the deck is empty at the end of a turn with no call: 0 for all."""
    g = deck_out()
    t = g.state.table
    out = g.derived()
    assert len(out) == 1
    rs = out[0]
    assert (rs.ending, rs.caller, rs.caller_won) == ("deck_out", None, None)
    assert rs.points == (0, 0) and rs.totals == (0, 0)
    # card_points and color_bonus hold every player's real values (LOG_FORMAT.md)
    assert rs.card_points == tuple(breakdown(t.hands[p], t.laid[p]).card_points for p in (0, 1))
    assert rs.color_bonus == tuple(breakdown(t.hands[p], t.laid[p]).color_bonus for p in (0, 1))
    assert max(rs.card_points) > 0


def test_r_deckout_round_still_counts_and_totals_stay():
    """R-DECKOUT: the round counts as played; R-SETUP-4: the next round starts with the seat
    after the player whose turn emptied the deck."""
    g = Game(3).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS, 2: SAILORS_CAPTAIN[:3] + ["shell:yellow"]},
                            then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), stop(0))
    assert g.derived()[0].totals == (11, 2, 11)
    g.start_round()                         # seat 1 starts round 2
    g.drain(2, player=2)
    a, b = g.deck
    g.play(draw(2, a, b, pile=0), end(2))
    rs = g.derived()[0]
    assert rs.ending == "deck_out" and rs.points == (0, 0, 0) and rs.totals == (11, 2, 11)
    assert g.state.rounds_played == 2
    assert g.refuse(ev.RoundStarted(round=3, first_player=2, discards=("crab:black", "crab:grey")
                                    )).rule == "R-SETUP-4"
    g.start_round(first=0)
    assert g.state.flow.round == 3 and g.player == 0


def test_r_end_3_however_the_deck_was_emptied():
    """R-END-3: a fish pair that draws the last card also ends the round in a deck-out."""
    g = Game(2).start_round(hands={0: [FB, FB, FDB, FDB], 1: TWO_POINTS},
                            then=["crab:black", "crab:yellow", "boat:black"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0), fish(0, FB, FB, "boat:black"), end(0))
    g.drain(3, player=0)
    a, b, c = g.deck
    g.play(draw(0, a, b, pile=0), fish(0, FDB, FDB, c))
    assert g.deck == ()
    g.play(end(0))
    assert g.derived()[0].ending == "deck_out"


def test_r_end_3_a_call_on_that_turn_comes_first():
    """R-END-3 (Ruling): STOP on the turn that empties the deck: the round ends by STOP."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0), stop(0))
    assert g.derived()[0].ending == "stop"


# ---------------------------------------------------------------- R-FLOW-PLAYER

def test_r_flow_player_only_the_player_to_act():
    """R-FLOW-PLAYER: every kind of turn event from another seat is refused."""
    g = Game(3).start_round(hands={0: PENGUINS_COLONY, 1: ["crab:black", "crab:yellow", "boat:black",
                                                          "boat:dark-blue"],
                                   2: TWO_POINTS},
                            then=["crab:grey", "boat:yellow"])
    assert g.player == 0
    for e in (draw(1, "crab:grey", "boat:yellow"), take(1, 1, g.pile_top(1)),
              draw(2, "crab:grey", "boat:yellow")):
        assert g.refuse(e).rule == "R-FLOW-PLAYER"
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0))
    for e in (crabs(1, "crab:black", "crab:yellow", 0, "boat:yellow"),
              boats(1, "boat:black", "boat:dark-blue"), end(1), stop(2), last_chance(1)):
        assert g.refuse(e).rule == "R-FLOW-PLAYER"
    g.play(end(0))
    assert g.refuse(end(0)).rule == "R-FLOW-PLAYER"
    assert g.player == 1


# ---------------------------------------------------------------- R-STOP

def test_r_stop_everyone_scores_card_points():
    """R-STOP: seat 0 calls with 11 (penguins + colony, grey crab 0); seat 1 has 2.
    Colour bonus: seat 0 1 (no colour twice), seat 1 green 2 (shell, fish); points are the
    card points."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS},
                            then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), stop(0))
    assert g.derived() == [scored(1, "stop", 0, None, (11, 2), (1, 2), (11, 2), (11, 2))]


def test_r_stop_the_caller_need_not_have_the_most():
    """R-STOP: seat 0 calls with 7 (sailors 5, crab pair 1, penguin 1), seat 1 holds four
    octopuses (9): both score card points. Bonus: seat 0 pink 2, seat 1 1."""
    g = Game(2).start_round(
        hands={0: ["sailor:pink", "sailor:orange", "crab:dark-blue", "crab:light-blue"],
               1: ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple"]},
        then=["penguin:pink", "boat:yellow"])
    g.play(draw(0, "penguin:pink", "boat:yellow", pile=0), stop(0))
    assert g.derived() == [scored(1, "stop", 0, None, (7, 9), (2, 1), (7, 9), (7, 9))]


def test_r_stop_no_further_turns():
    """R-STOP: nothing more is played in the round: the next player's turn is refused."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS},
                            then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), stop(0))
    assert legal_moves(g.state) == []
    assert g.refuse(take(1, 0, "boat:yellow")).rule == "R-DERIVED"     # round_scored is due
    g.derived()
    assert g.refuse(take(1, 0, "boat:yellow")).rule == "R-FLOW-ROUND"


# ---------------------------------------------------------------- R-LAST-1, R-LAST-4 (tie)

def three_player_last_chance() -> Game:
    """Seat 1 calls LAST CHANCE; seats 2 and 0 take their final turns."""
    g = Game(3).start_round(
        hands={0: ["boat:black", "boat:dark-blue", "shell:black", "shell:green"],
               1: PENGUINS_COLONY, 2: SAILORS_CAPTAIN},
        discards=["octopus:grey", "shell:grey"],
        then=["crab:black", "fish:yellow", "crab:grey", "boat:yellow", "fish:green", "swimmer:black"])
    g.play(draw(0, "crab:black", "fish:yellow", pile=0), end(0),
           draw(1, "crab:grey", "boat:yellow", pile=0), last_chance(1))
    return g


def test_r_last_1_final_turns_in_seat_order_caller_none():
    """R-LAST-1: each other player, from the seat after the caller, takes one final turn;
    a boat pair still gives its extra take (Ruling); then the round is scored.
    R-LAST-4 (tie): seat 1 (11) ties seat 2 (11) and wins: 11 + bonus 1; the others score
    their colour bonus: seat 0 black 4 (boat, shell, crab, swimmer), seat 2 1."""
    g = three_player_last_chance()
    f = g.state.flow
    assert (f.player, f.caller, f.final_left) == (2, 1, (2, 0))
    g.play(take(2, 1, "shell:grey"), end(2))
    assert g.player == 0
    g.play(draw(0, "fish:green", "swimmer:black", pile=1),      # pile 1 is empty
           boats(0, "boat:black", "boat:dark-blue"))
    assert g.state.flow.step == "boat_take"
    g.play(take(0, 1, "swimmer:black"), end(0))
    assert g.derived() == [scored(1, "last_chance", 1, True, (3, 11, 11), (4, 1, 1),
                                  (4, 12, 1), (4, 12, 1))]


def test_r_last_1_nobody_calls_in_a_final_turn():
    """R-LAST-1: seat 2 holds 11 card points but may not call."""
    g = three_player_last_chance()
    g.play(take(2, 1, "shell:grey"))
    assert g.refuse(stop(2)).rule == "R-LAST-1"
    assert g.refuse(last_chance(2)).rule == "R-LAST-1"
    assert [type(m) for m in legal_moves(g.state)] == [ev.TurnEnded]


def test_r_last_1_the_caller_takes_no_further_turn():
    g = three_player_last_chance()
    assert g.refuse(take(1, 1, "shell:grey")).rule == "R-FLOW-PLAYER"
    g.play(take(2, 1, "shell:grey"), end(2))
    assert g.refuse(take(1, 0, g.pile_top(0))).rule == "R-FLOW-PLAYER"
    g.play(take(0, 0, g.pile_top(0)), end(0))
    assert g.refuse(take(1, 0, g.pile_top(0))).rule == "R-DERIVED"
    assert g.derived()[0].ending == "last_chance"


# ---------------------------------------------------------------- R-LAST-2

def test_r_last_2_empty_deck_in_final_turns():
    """R-LAST-2 (Ruling): no deck-out in the final turns; only a pile take is possible."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: TWO_POINTS})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0), last_chance(0))
    assert g.deck == () and g.player == 1 and g.state.flow.due is None
    err = g.refuse(draw(1, "crab:black"))
    assert err.rule == "R-TAKE-1"
    g.play(take(1, 0, b), end(1))
    assert g.derived()[0].ending == "last_chance"


# ---------------------------------------------------------------- R-LAST-3

def revealed_game() -> Game:
    g = Game(3).start_round(
        hands={0: PENGUINS_COLONY, 1: ["shark:black", "swimmer:yellow", "shell:black", "shell:green"],
               2: ["shark:green", "swimmer:black", "octopus:green", "fish:green"]},
        discards=["octopus:grey", "shell:grey"], then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), last_chance(0), take(1, 1, "shell:grey"))
    return g


def test_r_last_3_callers_hand_cannot_be_stolen_from():
    """R-LAST-3: the caller's hand is revealed: no shark steal from it."""
    g = revealed_game()
    err = g.refuse(shark(1, "shark:black", "swimmer:yellow", 0, "colony:green"))
    assert err.rule == "R-LAST-3"
    g.play(shark(1, "shark:black", "swimmer:yellow", 2, "octopus:green"))
    assert "octopus:green" in g.hand(1) and "octopus:green" not in g.hand(2)


def test_r_last_3_finished_final_turn_reveals_the_hand():
    """R-LAST-3: after seat 1's final turn both other hands are revealed: seat 2's shark
    pair finds no hand (victim null)."""
    g = revealed_game()
    g.play(end(1))
    assert g.state.flow.revealed == 0b011
    g.play(take(2, 0, "boat:yellow"))
    assert g.refuse(shark(2, "shark:green", "swimmer:black", 1, "shell:black")).rule == "R-LAST-3"
    g.play(shark(2, "shark:green", "swimmer:black", None, None), end(2))
    assert g.derived()[0].ending == "last_chance"


# ---------------------------------------------------------------- R-LAST-4

def test_r_last_4_caller_won():
    """R-LAST-4: seat 0 (11, bonus 1) beats seat 1 (2 + sailor:orange 0 = 2, bonus 1):
    seat 0 scores 11 + 1, seat 1 its bonus 1."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: ["shell:dark-blue", "shell:light-blue",
                                                          "octopus:yellow", "fish:green"]},
                            discards=["octopus:grey", "sailor:orange"],
                            then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), last_chance(0),
           take(1, 1, "sailor:orange"), end(1))
    assert g.derived() == [scored(1, "last_chance", 0, True, (11, 2), (1, 1), (12, 1), (12, 1))]


def test_r_last_4_caller_lost():
    """R-LAST-4: seat 0 calls with 7 (sailors 5, crab pair 1, penguin 1; bonus pink 2);
    seat 1 ends with four octopuses (9) and a grey shell (0), bonus 1: seat 0 scores only
    its bonus 2, seat 1 its card points 9."""
    g = Game(2).start_round(
        hands={0: ["sailor:pink", "sailor:orange", "crab:dark-blue", "crab:light-blue"],
               1: ["octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple"]},
        discards=["octopus:grey", "shell:grey"], then=["penguin:pink", "boat:yellow"])
    g.play(draw(0, "penguin:pink", "boat:yellow", pile=0), last_chance(0),
           take(1, 1, "shell:grey"), end(1))
    assert g.derived() == [scored(1, "last_chance", 0, False, (7, 9), (2, 1), (2, 9), (2, 9))]


def test_r_last_4_tie_goes_to_the_caller():
    """R-LAST-4: 11 against 11 (sailors, captain, octopus, grey shell): the caller wins."""
    g = Game(2).start_round(hands={0: PENGUINS_COLONY, 1: SAILORS_CAPTAIN},
                            discards=["octopus:grey", "shell:grey"], then=["crab:grey", "boat:yellow"])
    g.play(draw(0, "crab:grey", "boat:yellow", pile=0), last_chance(0),
           take(1, 1, "shell:grey"), end(1))
    assert g.derived() == [scored(1, "last_chance", 0, True, (11, 11), (1, 1), (12, 1), (12, 1))]
