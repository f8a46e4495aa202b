"""Extra Salt (RULES.md §9-§13, §15, §17): the ruleset, its cards and deck, the lobster, the
jellyfish and its forced turns, starfish trios, the deck during a round, and the scoring of a
round. Expected values are worked from the rules by hand."""

from __future__ import annotations

from collections import Counter

import pytest

from seasalt_log import events as ev
from seasalt_log.cards import COLOR, KIND
from seasalt_log.engine import apply, legal_moves
from seasalt_log.engine.rulings import deck_counter, rules_for
from seasalt_log.errors import LogFormatError

from ..scenario import Game, boats, crabs, draw, end, last_chance, stop, take

CB, CY, CG, CGR = "crab:black", "crab:yellow", "crab:green", "crab:grey"
LOB = "lobster:black"
JP, JK = "jellyfish:purple", "jellyfish:pink"
SWB, SWY, SWLO = "swimmer:black", "swimmer:yellow", "swimmer:light-orange"
STY, STD = "starfish:yellow", "starfish:dark-blue"
BB, BY = "boat:black", "boat:yellow"
O1, O2, O3 = "octopus:green", "octopus:yellow", "octopus:grey"
M = "mermaid:white"


def lobster(player, a, b, seen, kept, deck=None) -> ev.LobsterPlayed:
    return ev.LobsterPlayed(player=player, cards=(a, b), seen=seen, kept=kept, deck=deck)


def jelly(player, a, b) -> ev.JellyfishPlayed:
    return ev.JellyfishPlayed(player=player, cards=(a, b))


def forced(player, card) -> ev.ForcedDrawn:
    return ev.ForcedDrawn(player=player, card=card)


def trio(player, a, b, star) -> ev.StarfishPlayed:
    return ev.StarfishPlayed(player=player, cards=(a, b), starfish=star)


def refuse_format(g: Game, event) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        apply(g.state, event)
    return info.value


# ---------------------------------------------------------------- R-X-RULESET, R-X-CARDS

def test_r_x_ruleset_1_extra_salt_has_66_cards_and_r_x_setup_a_64_card_deck():
    """R-X-RULESET-1, R-X-CARDS-1, R-X-SETUP: the deck holds 64 after the two discards."""
    g = Game(ruleset="extra-salt").start_round()
    assert len(g.state.ruleset.cards) == 66
    assert len(g.events[1].deck) == 64


def test_r_x_ruleset_2_events_are_a_separate_setting():
    """R-X-RULESET-2, R-X-RULESET-3: four games from two switches; names do not combine."""
    assert rules_for("base", "pepper").name == "base"
    assert rules_for("base", "pepper").events == "pepper"
    assert rules_for("extra-salt", None).events is None
    with pytest.raises(LogFormatError) as info:
        ev.decode('{"type":"game_started","players":["a","b"],"ruleset":"extra-pepper"}')
    assert info.value.path == "$.ruleset"


def test_r_x_ruleset_4_the_target_is_unchanged():
    """R-X-RULESET-4: 40/35/30 as R-SETUP-2."""
    assert [Game(n, ruleset="extra-salt").state.target for n in (2, 3, 4)] == [40, 35, 30]


def test_r_x_cards_2_colour_totals():
    """R-X-CARDS-2: colour totals of the 66 cards."""
    totals = Counter(COLOR[c] for c in rules_for("extra-salt").cards)
    assert totals == {"dark-blue": 10, "light-blue": 10, "black": 9, "yellow": 9, "green": 7,
                      "white": 5, "purple": 5, "grey": 4, "light-orange": 3, "pink": 3,
                      "orange": 1}


def test_r_x_cards_3_the_seahorse_is_white_and_no_mermaid():
    """R-X-CARDS-3: white, so it joins the mermaids' colour group, but it is no mermaid."""
    assert COLOR["seahorse:white"] == "white" and KIND["seahorse:white"] != "mermaid"


def test_r_x_cards_4_new_codes_are_unknown_in_a_base_game():
    """R-X-CARDS-4: an Extra Salt card code in a base game is a format error."""
    g = Game()
    bad = ev.RoundStarted(round=1, first_player=0, discards=("shell:grey", LOB))
    err = refuse_format(g, bad)
    assert err.path == "$.discards[1]" and "lobster:black" in err.reason
    g.start_round(hands={0: [CB, CY]})
    err = refuse_format(g, crabs(0, CB, LOB, None, None))
    assert "lobster:black" in err.reason


def test_r_x_setup_a_bad_deck_names_r_x_setup():
    """R-X-SETUP: a 64-card deck that is not the 66 cards less the discards."""
    g = Game(ruleset="extra-salt")
    good = Game(ruleset="extra-salt").start_round().events[1]
    assert good.deck[0] != M
    deck = (M,) + good.deck[1:]                                 # a fifth mermaid
    assert g.refuse(ev.RoundStarted(round=1, first_player=0, discards=good.discards,
                                    deck=deck)).rule == "R-X-SETUP"
    err = refuse_format(g, ev.RoundStarted(round=1, first_player=0, discards=good.discards,
                                           deck=good.deck[:56]))
    assert err.path == "$.deck"


def test_extra_salt_types_are_unknown_in_a_base_game():
    """LOG_FORMAT.md: an Extra Salt event type in a base game is a format error."""
    g = Game().start_round(hands={0: [SWB, CB]})
    g.play(draw(0, g.deck[0], g.deck[1]))
    assert refuse_format(g, jelly(0, SWB, JP)).path == "$.type"
    assert refuse_format(g, trio(0, CB, CY, STY)).path == "$.type"


# ---------------------------------------------------------------- R-X-PAIRS

def test_r_x_pairs_only_the_listed_pairs():
    """R-X-PAIRS: two jellyfish, jellyfish + shark, the lobster with a non-crab, a pair with
    a starfish are no pairs; crab + lobster under crabs_played is R-X-LOBSTER-NOTCRAB."""
    g = Game(ruleset="extra-salt").start_round(
        hands={0: [JP, JK, LOB, CB, SWB, "shark:green", STY]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert g.refuse(jelly(0, JP, JK)).rule == "R-X-PAIRS"
    assert g.refuse(jelly(0, JP, "shark:green")).rule == "R-X-PAIRS"
    assert g.refuse(lobster(0, LOB, SWB, None, None)).rule == "R-X-PAIRS"
    assert g.refuse(crabs(0, CB, STY, None, None)).rule == "R-DUO-PAIR"
    assert g.refuse(crabs(0, CB, LOB, 0, g.pile_top(0))).rule == "R-X-LOBSTER-NOTCRAB"
    g.play(jelly(0, SWB, JP))                       # swimmer + jellyfish, either order
    assert g.laid(0) == ((SWB, JP),)


def test_r_x_pairs_cards_must_be_held():
    """R-X-PAIRS, R-DUO-PAIR: both cards from the player's hand."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, CB]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert g.refuse(jelly(0, SWB, JP)).rule == "R-DUO-PAIR"


# ---------------------------------------------------------------- R-X-LOBSTER

def lobster_game(ordered: bool = True) -> Game:
    """Ann holds a crab and the lobster and has drawn; the deck's top 5 are known."""
    g = Game(ruleset="extra-salt").start_round(
        hands={0: [CB, LOB]}, then=[BB, BY, M, STY, "seahorse:white", CGR, O1], ordered=ordered)
    g.play(draw(0, BB, BY))
    return g


def test_r_x_lobster_keep_one_of_five_and_give_the_new_order():
    """R-X-LOBSTER, R-X-FLOW-EFFECTS: the top 5 seen, one kept; the others go back and the
    deck is shuffled; ``deck`` gives the new order, which later draws must follow."""
    g = lobster_game()
    top5 = g.deck[:5]
    assert top5 == (M, STY, "seahorse:white", CGR, O1)
    rest = g.deck[5:]
    new = tuple(reversed(rest + (M, STY, CGR, O1)))
    g.play(lobster(0, CB, LOB, top5, "seahorse:white", new))
    assert g.laid(0) == ((CB, LOB),) and "seahorse:white" in g.hand(0)
    assert g.deck == new and len(g.deck) == len(rest) + 4
    g.play(end(0))
    assert g.refuse(draw(1, M, STY)).rule == "R-X-DRAW"        # not the new top
    g.play(draw(1, new[0], new[1]))


def test_r_x_lobster_illegal_choices():
    """R-X-LOBSTER: seen of the wrong length, kept not seen, a deck that is not the cards
    now in the deck; R-X-DRAW: seen not the top in order, the new order left out."""
    g = lobster_game()
    top5, rest = g.deck[:5], g.deck[5:]
    new = rest + top5[1:]
    assert g.refuse(lobster(0, CB, LOB, top5[:4], top5[0], new)).rule == "R-X-LOBSTER"
    assert g.refuse(lobster(0, CB, LOB, top5, BB, new)).rule == "R-X-LOBSTER"
    assert g.refuse(lobster(0, CB, LOB, top5, top5[0], new[1:])).rule == "R-X-LOBSTER"
    assert g.refuse(lobster(0, CB, LOB, top5, top5[0], rest + top5)).rule == "R-X-LOBSTER"
    swapped = (top5[1], top5[0]) + top5[2:]
    assert g.refuse(lobster(0, CB, LOB, swapped, top5[0], new)).rule == "R-X-DRAW"
    assert g.refuse(lobster(0, CB, LOB, top5, top5[0])).rule == "R-X-DRAW"


def test_a_refused_lobster_deck_names_the_cards_and_is_not_kept():
    """R-X-LOBSTER: a deck that is not the cards now in the deck is refused with the cards
    missing and extra; the refused deck is not kept in the rulesets' deck memo (a service
    refusing many such decks would keep them all)."""
    g = lobster_game()
    top5, rest = g.deck[:5], g.deck[5:]
    wrong = rest[:-1] + top5[1:] + (BB,)             # the deck's last card replaced
    before = deck_counter.cache_info().currsize
    err = g.refuse(lobster(0, CB, LOB, top5, top5[0], wrong))
    assert err.rule == "R-X-LOBSTER"
    assert f"missing {[rest[-1]]}, extra {[BB]}" in err.reason
    assert deck_counter.cache_info().currsize == before


def test_r_x_noeffect_the_lobster_must_keep_a_card():
    """R-X-NOEFFECT: seen/kept null while the deck has cards."""
    g = lobster_game()
    assert g.refuse(lobster(0, CB, LOB, None, None)).rule == "R-X-NOEFFECT"


def test_r_x_draw_returned_cards_are_in_the_deck_again():
    """R-X-DRAW: without a recorded order, the returned cards may be drawn again; the kept
    card may not (it is in a hand)."""
    g = lobster_game(ordered=False)
    g.play(lobster(0, CB, LOB, (M, STY, "seahorse:white", CGR, O1), "seahorse:white"), end(0))
    assert g.refuse(draw(1, "seahorse:white", STY)).rule == "R-X-DRAW"   # one copy: kept
    g.play(draw(1, STY, CGR))                              # the returned cards are back


def test_r_x_lobster_fewer_than_five_sees_all_and_empty_deck_does_nothing():
    """R-X-LOBSTER (Ruling, BGA): with 2 cards left the lobster sees both. R-X-NOEFFECT: with
    the deck empty the pair is laid without effect (seen and kept null)."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [CB, LOB]})
    g.drain(leave=2, player=0)
    a, b = g.deck
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(lobster(0, CB, LOB, (a,), a)).rule == "R-X-LOBSTER"
    g.play(lobster(0, CB, LOB, (a, b), a, (b,)))
    assert g.deck == (b,) and g.hand(0)[-1] == a
    g2 = Game(ruleset="extra-salt").start_round(hands={0: [CB, LOB]})
    g2.drain(leave=2, player=0)
    a, b = g2.deck
    g2.play(draw(0, a, b))
    assert g2.refuse(lobster(0, CB, LOB, (a,), a)).rule == "R-X-LOBSTER"
    g2.play(lobster(0, CB, LOB, None, None))
    assert g2.laid(0) == ((CB, LOB),)



def test_r_x_lobster_one_card_left_nothing_goes_back():
    """R-X-LOBSTER, RULES.md §17: with one card left the lobster sees it and keeps it;
    nothing goes back, so there is no shuffle and ``deck`` must be empty or absent."""
    fb, fdb = "fish:black", "fish:dark-blue"
    g = Game(ruleset="extra-salt").start_round(hands={0: [CB, LOB, fb, fdb]})
    g.drain(leave=2, player=0)
    a, b = g.deck
    g.play(take(0, 0, g.pile_top(0)), ev.FishPlayed(player=0, cards=(fb, fdb), drew=a))
    assert g.deck == (b,)
    assert g.refuse(lobster(0, CB, LOB, (b,), b, (b,))).rule == "R-X-LOBSTER"
    g.play(lobster(0, CB, LOB, (b,), b, ()))
    assert g.deck == () and g.hand(0)[-1] == b

# ---------------------------------------------------------------- R-X-JELLYFISH

def jelly_game(players: int = 2) -> Game:
    """Ann lays a swimmer and a jellyfish in her first turn and ends it."""
    g = Game(players, ruleset="extra-salt").start_round(hands={0: [SWB, JP]},
                                                        then=[BB, BY, M, O1, O2, O3, CG])
    g.play(draw(0, BB, BY), jelly(0, SWB, JP), end(0))
    return g


def test_r_x_jellyfish_turn_a_forced_turn_is_one_forced_take():
    """R-X-JELLYFISH, R-X-JELLYFISH-TURN, R-X-FLOW-FORCED: Ben's next turn takes the deck's
    top card and ends; nothing else is allowed. Ann's own next turn is normal."""
    g = jelly_game()
    assert g.refuse(draw(1, M, O1)).rule == "R-X-JELLYFISH-TURN"
    assert g.refuse(take(1, 0, g.pile_top(0))).rule == "R-X-JELLYFISH-TURN"
    assert g.refuse(end(1)).rule == "R-X-JELLYFISH-TURN"
    assert legal_moves(g.state) == [forced(1, M)]
    assert g.refuse(forced(1, O1)).rule == "R-X-DRAW"
    assert g.refuse(forced(1, None)).rule == "R-X-JELLYFISH-TURN"
    assert g.refuse(forced(0, M)).rule == "R-FLOW-PLAYER"
    g.play(forced(1, M))
    assert g.hand(1)[-1] == M
    for bad in (stop(1), forced(1, O1), take(1, 0, g.pile_top(0))):
        assert g.refuse(bad).rule == "R-X-JELLYFISH-TURN"
    assert legal_moves(g.state) == [end(1)]
    g.play(end(1))
    assert g.refuse(forced(0, O1)).rule == "R-X-JELLYFISH-TURN"   # Ann's lock has ended
    g.play(draw(0, O1, O2), end(0))
    g.play(draw(1, O3, CG))                                       # Ben is free again


def test_r_x_jellyfish_three_players_every_other_player_is_forced():
    """R-X-JELLYFISH: the lock lasts until Ann's next turn: Ben and Cid are both forced."""
    g = jelly_game(3)
    g.play(forced(1, M), end(1))
    assert g.refuse(draw(2, O1, O2)).rule == "R-X-JELLYFISH-TURN"     # Cid is locked too
    g.play(forced(2, O1), end(2))
    assert g.refuse(forced(0, O2)).rule == "R-X-JELLYFISH-TURN"      # Ann's turn is free
    g.play(draw(0, O2, O3))


def test_r_x_jellyfish_self_the_boat_take_stays_normal():
    """R-X-JELLYFISH-SELF (Ruling, text not BGA): the lock never hits its owner: a boat
    pair laid after the jellyfish gives a normal take."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, BB]}, then=[BY, O1, O2, O3])
    g.play(draw(0, BY, O1), jelly(0, SWB, JP), boats(0, BB, BY))
    assert g.refuse(forced(0, O2)).rule == "R-X-JELLYFISH-TURN"      # no forced take for P
    g.play(draw(0, O2, O3))


def test_r_x_jellyfish_many_a_second_pair_changes_nothing():
    """R-X-JELLYFISH-MANY: two jellyfish pairs in one turn force one turn only."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, SWY, JK]},
                                               then=[BB, BY, O1, O2, O3, CG])
    g.play(draw(0, BB, BY), jelly(0, SWB, JP), jelly(0, SWY, JK), end(0))
    g.play(forced(1, O1), end(1), draw(0, O2, O3), end(0))
    assert g.refuse(forced(1, CG)).rule == "R-X-JELLYFISH-TURN"      # the lock is over
    g.play(draw(1, CG, g.deck[1]))


def test_r_x_jellyfish_turn_the_mermaid_win_is_checked_after_a_forced_turn():
    """R-X-JELLYFISH-TURN (Ruling, text not BGA), R-X-SCORE-MERMAIDS: a forced take of a
    fourth mermaid wins the game at the end of the forced turn."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, O1], 1: [M, M, M]},
                                               then=[BB, BY, M])
    g.play(draw(0, BB, BY), jelly(0, SWB, JP), end(0), forced(1, M), end(1))
    ended = g.derived()
    assert [type(e) for e in ended] == [ev.GameEnded]
    assert ended[0].reason == "mermaids" and ended[0].winners == (1,)


def test_r_x_jellyfish_last_a_call_with_the_jellyfish_forces_the_final_turns():
    """R-X-JELLYFISH-LAST: Ann lays the jellyfish and calls LAST CHANCE; Ben's final turn is
    forced (no call, no pairs), then the round is scored."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [SWB, JP, O1, O2, O3]},
                                               then=[BB, BY, M])
    g.play(draw(0, BB, BY), jelly(0, SWB, JP), last_chance(0))
    assert g.refuse(draw(1, M, g.deck[1])).rule == "R-X-JELLYFISH-TURN"
    g.play(forced(1, M))
    assert g.refuse(last_chance(1)).rule == "R-X-JELLYFISH-TURN"
    g.play(end(1))
    scored = g.derived()[0]
    assert scored.ending == "last_chance"
    assert scored.card_points[0] == 1 + 6                   # jellyfish pair + 3 octopuses


def test_r_x_jellyfish_last_laid_in_a_final_turn_forces_the_turns_to_come():
    """R-X-JELLYFISH-LAST, R-X-NOEFFECT: Ben calls; Cid's jellyfish in his final turn forces
    Ann's final turn; the lock ends with the round."""
    g = Game(3, ruleset="extra-salt").start_round(
        hands={0: [BB], 1: [O1, O2, O3, CB, CY], 2: [SWB, JP]}, then=[BY, "boat:dark-blue", M,
                                                                   "fish:black", "shell:black"])
    # Ann first: 5-card hands are padded to the largest, so every seat holds 5 now
    assert g.player == 0
    g.play(draw(0, BY, "boat:dark-blue"), end(0))
    g.play(take(1, 0, g.pile_top(0)), last_chance(1))
    g.play(draw(2, M, "fish:black"), jelly(2, SWB, JP), end(2))
    assert g.refuse(take(0, 0, g.pile_top(0))).rule == "R-X-JELLYFISH-TURN"
    g.play(forced(0, g.deck[0]), end(0))
    assert g.derived()[0].ending == "last_chance"


# ---------------------------------------------------------------- R-X-TRIO

def test_r_x_trio_a_pair_and_a_starfish_without_the_effect():
    """R-X-TRIO, R-X-TRIO-UNIT: boats + starfish laid as one unit; no boat take follows."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [BB, STY, CB, LOB, STD]},
                                               then=[BY, O1])
    g.play(draw(0, BY, O1), trio(0, BB, BY, STY))
    assert g.laid(0) == ((BB, BY, STY),)
    g.play(trio(0, LOB, CB, STD))                   # crab + lobster is a pair: it may form one
    assert g.laid(0)[1] == (LOB, CB, STD)
    g.play(end(0))                                  # no extra take was due


def test_r_x_trio_illegal():
    """R-X-TRIO: no pair, no starfish, a starfish not held; R-DUO-PAIR: pair not held.
    A starfish can be laid only in a trio."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [BB, STY, CB, "fish:black"]},
                                               then=[BY, O1])
    g.play(draw(0, BY, O1))
    assert g.refuse(trio(0, BB, CB, STY)).rule == "R-X-TRIO"
    assert g.refuse(trio(0, BB, BY, "fish:black")).rule == "R-X-TRIO"
    assert g.refuse(trio(0, BB, BY, STD)).rule == "R-X-TRIO"
    assert g.refuse(trio(0, CB, CY, STY)).rule == "R-DUO-PAIR"
    assert g.refuse(boats(0, BB, STY)).rule == "R-DUO-PAIR"


# ---------------------------------------------------------------- R-X-SCORE in a round

def test_r_x_score_a_round_is_scored_by_the_extra_salt_tables():
    """R-X-SCORE-DUO, R-X-SCORE-STARFISH, R-X-SCORE-SEAHORSE, R-X-SCORE-CAST,
    R-X-SCORE-COLOUR, R-X-SCORE-MERMAIDS: a STOP round with a laid trio, the seahorse and the
    cast of crabs. Ann: trio 3, cast 2 crabs = 2, 2 octopuses 3 + seahorse as an octopus 3
    (= 6 for three) -> 3 + 2 + 6 = 11."""
    g = Game(ruleset="extra-salt").start_round(
        hands={0: [CB, CY, STY, "castofcrabs:green", "seahorse:white", O1]}, then=[O2, BB])
    g.play(draw(0, O2, BB), trio(0, CB, CY, STY), stop(0))
    scored = g.derived()[0]
    assert scored.card_points[0] == 11
    # colours: yellow 3 (crab, starfish, octopus), green 2 (cast, octopus), black 1, white 1
    assert scored.color_bonus[0] == 3


def test_r_x_score_the_call_threshold_counts_the_new_cards():
    """R-END-2 with R-X-SCORE: a crab + lobster pair and 2 starfish... only 1 + 2 = 3."""
    g = Game(ruleset="extra-salt").start_round(hands={0: [CB, LOB, STY, STD]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert g.refuse(stop(0)).rule == "R-END-2"
