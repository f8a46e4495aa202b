"""Where two rules meet (RULES.md §2-§6 with §9-§16): a whole Extra Salt game scored by
hand, the end of a round and of a game with the expansions, the events against the base
rules. Every expected value is worked out by hand in the docstring or comment beside it."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.cards import KIND

from ..scenario import Game, catalog_order, draw, end, fish, last_chance, shark, stop, take
from .test_pepper import hermit, pepper, scored_game

M = "mermaid:white"
SH = "seahorse:white"
ANCHOR = ["sailor:pink", "sailor:orange", "captain:light-orange"]      # 5 + 3 x 2 = 11
XS = "extra-salt"
#: seven cards worth 0 card points (1 under the Kraken: the octopus): no pair, no
#: collection, multipliers of nothing
NOTHING = ["lighthouse:purple", "shoal:grey", "colony:green", "octopus:purple", "crab:grey",
           "swimmer:yellow", "sailor:pink"]


def scored(g: Game) -> ev.RoundScored:
    (rs, *_) = g.derived()
    assert type(rs) is ev.RoundScored
    return rs


# ---------------------------------------------------------------- a whole Extra Salt game

def two_extra_salt_rounds() -> Game:
    """The game of :func:`test_r_x_score_and_r_last_4_two_extra_salt_rounds_by_hand`, played
    with its derived events (game id ``audit-extra-salt``)."""
    g = Game(2, ruleset=XS, game_id="audit-extra-salt")
    g.start_round(hands={0: ["crab:yellow", "crab:dark-blue", "lobster:black", "castofcrabs:green",
                             SH, "shell:dark-blue", "shell:light-blue", M],
                         1: ["boat:black", "boat:yellow", "starfish:dark-blue", "jellyfish:pink",
                             "swimmer:black", "octopus:green", "octopus:yellow", "penguin:pink"]},
                  then=["shell:black", "fish:green", "starfish:yellow", "crab:black"])
    g.play(draw(0, "shell:black", "fish:green", pile=0), last_chance(0),
           draw(1, "starfish:yellow", "crab:black", pile=0),
           ev.StarfishPlayed(player=1, cards=("boat:black", "boat:yellow"),
                             starfish="starfish:dark-blue"),
           ev.JellyfishPlayed(player=1, cards=("swimmer:black", "jellyfish:pink")), end(1))
    g.derived()
    g.start_round(hands={1: ANCHOR + [M, M, SH],
                         0: ["crab:black", "crab:green", "castofcrabs:green", "starfish:light-blue",
                             "penguin:purple", "colony:green"]},
                  then=["boat:dark-blue", "fish:black"])
    assert g.state.flow.round == 2 and g.player == 1
    g.play(draw(1, "boat:dark-blue", "fish:black", pile=0), stop(1))
    g.derived()
    return g


def test_r_x_score_and_r_last_4_two_extra_salt_rounds_by_hand():
    """R-X-SCORE-DUO, R-X-SCORE-STARFISH, R-X-SCORE-SEAHORSE, R-X-SCORE-CAST,
    R-X-SCORE-COLOUR, R-LAST-4, R-STOP, R-SETUP-4, two rounds of an Extra Salt game.

    Round 1. Ann holds crab:yellow, crab:dark-blue, lobster:black, castofcrabs:green,
    seahorse, shell:dark-blue, shell:light-blue, mermaid, and draws shell:black. Pairs in
    hand: min(2 crabs, 1 lobster) + floor(1/2) = 1; cast of crabs +2 (the lobster is no
    crab); shells 3 = 4, the seahorse as a 4th shell +2; colours white 2, dark-blue 2,
    black 2, ...: the mermaid 2. Card points 1 + 2 + 6 + 2 = 11, colour bonus 2. She calls
    LAST CHANCE. Ben's final turn: he keeps starfish:yellow, lays the trio boat:black +
    boat:yellow + starfish:dark-blue and the pair swimmer:black + jellyfish:pink, keeping
    octopus:green, octopus:yellow, penguin:pink, starfish:yellow in hand: 2 laid units, the
    laid starfish 2, the hand starfish has no hand pair (0), octopuses 3, penguin 1: 8;
    colours yellow 3 (boat, octopus, starfish). Ann 11 >= 8: Ann 11 + 2 = 13, Ben his
    bonus 3.

    Round 2 (Ben first, the seat after the caller). Ben holds the two sailors, the captain,
    two mermaids, the seahorse, and keeps boat:dark-blue: sailors 5 (the seahorse has no
    kind: the sailors are full), captain 6, white 3 (2 mermaids + the seahorse) and one
    group of 1: mermaids 3 + 1; 15, bonus 3. He calls STOP. Ann: crab:black, crab:green,
    castofcrabs:green, starfish:light-blue, penguin:purple, colony:green: a crab pair 1, its
    starfish 2, cast 2, penguin 1, colony 2: 8; green 3. Totals 13 + 8 = 21, 3 + 15 = 18."""
    first, second = [e for e in two_extra_salt_rounds().events if type(e) is ev.RoundScored]
    assert (first.ending, first.caller, first.caller_won) == ("last_chance", 0, True)
    assert first.card_points == (11, 8) and first.color_bonus == (2, 3)
    assert first.points == (13, 3) and first.totals == (13, 3)
    assert (second.ending, second.caller) == ("stop", 1)
    assert second.card_points == (8, 15) and second.color_bonus == (3, 3)
    assert second.points == (8, 15) and second.totals == (21, 18)


# ---------------------------------------------------------------- the jellyfish and the round

def test_r_x_jellyfish_the_lock_ends_with_the_round():
    """R-X-JELLYFISH: the lock lasts until its player's next turn or the end of the round.
    Ann lays swimmer + jellyfish and calls STOP in the same turn (anchor 11 + the pair 1):
    round 2 begins with Ben (R-SETUP-4), and his first turn is an ordinary one."""
    g = Game(2, ruleset=XS).start_round(hands={0: ANCHOR + ["swimmer:black", "jellyfish:pink"]},
                                        then=["boat:black", "boat:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")), stop(0))
    assert scored(g).card_points[0] == 12
    g.start_round()
    assert g.player == 1 and g.state.flow.step == "take"
    assert g.refuse(ev.ForcedDrawn(player=1, card=g.deck[0])).rule == "R-X-JELLYFISH-TURN"
    g.play(draw(1, g.deck[0], g.deck[1]))


def test_r_end_3_a_forced_take_of_the_last_card_is_a_deck_out():
    """R-X-JELLYFISH-TURN, R-END-3, R-SETUP-4: with 4 cards left Ann draws two, her fish pair
    draws the third and she lays swimmer + jellyfish; Ben's forced take is the last card.
    His turn ends with an empty deck and no call: a deck-out ended by Ben, so round 2 starts
    with Ann."""
    g = Game(2, ruleset=XS).start_round(
        hands={0: ["swimmer:black", "jellyfish:pink", "fish:black", "fish:yellow"]})
    g.drain(4, player=0)
    d = g.deck
    g.play(draw(0, d[0], d[1], pile=0), fish(0, "fish:black", "fish:yellow", d[2]),
           ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")), end(0))
    assert g.refuse(take(1, 0, g.pile_top(0))).rule == "R-X-JELLYFISH-TURN"
    g.play(ev.ForcedDrawn(player=1, card=d[3]), end(1))
    rs = scored(g)
    assert rs.ending == "deck_out" and rs.points == (0, 0)
    assert g.refuse(ev.RoundStarted(round=2, first_player=1, discards=("crab:black", "crab:grey"))
                    ).rule == "R-SETUP-4"
    g.start_round(first=0)


def test_r_ev_dance_of_the_mermaids_in_a_forced_turn():
    """R-EV-DANCE-OF-THE-MERMAIDS, R-X-JELLYFISH-TURN (Ruling, text not BGA: the mermaid win
    is checked after a forced turn): Ben holds two mermaids; Ann's lock forces his turn and
    its take is a third mermaid: he wins at the end of that turn, the round unscored."""
    g = pepper("dance-of-the-mermaids", ruleset=XS,
               hands={0: ["swimmer:black", "jellyfish:pink"], 1: [M, M]},
               then=["boat:black", "boat:yellow", M, "crab:black"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")), end(0),
           ev.ForcedDrawn(player=1, card=M), end(1))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(1,), totals=(0, 0))]


def test_r_ev_dance_of_the_mermaids_four_win_too():
    """R-EV-DANCE-OF-THE-MERMAIDS (Ruling, text not BGA: 3 or more, where BoardGameArena
    tests for exactly 3): Ann holds two mermaids and two fish, keeps a third mermaid from her
    draw and her fish pair draws the fourth: with 4 at the end of her turn she wins."""
    g = pepper("dance-of-the-mermaids", hands={0: [M, M, "fish:black", "fish:yellow"]},
               then=[M, "boat:black", M])
    g.play(draw(0, M, "boat:black", pile=0), fish(0, "fish:black", "fish:yellow", M))
    assert g.hand(0).count(M) == 4
    g.play(end(0))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(0,), totals=(0, 0))]


# ---------------------------------------------------------------- the events at the game's end

def test_r_ev_award_nothing_is_awarded_when_the_game_ends():
    """R-EV-AWARD ("none of this happens when the game ends"), R-GAME-1: a target of 5, Ann
    stops with 7 (penguins 5, two pairs), Ben has 1 (his one octopus, under the Kraken): the
    game ends after round_scored, with no event_awarded, and Ann wins."""
    g = Game(2, target=5, events="pepper").start_round(
        event="kraken", hands={0: ["penguin:purple", "penguin:pink", "penguin:light-orange",
                                   "crab:black", "crab:yellow", "fish:black", "fish:green"],
                               1: NOTHING},
        then=["boat:black", "boat:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0), stop(0))
    out = g.derived()
    assert [type(e) for e in out] == [ev.RoundScored, ev.GameEnded]
    assert out[0].points == (7, 1) and out[1].winners == (0,)


# ---------------------------------------------------------------- the events one by one, again

def test_r_ev_dolphins_the_seahorse_discarded_draws():
    """R-EV-DOLPHINS: the seahorse counts as a collector for the Dolphins: discarding it in
    a deck draw takes the deck's top card."""
    g = pepper("dolphins", ruleset=XS, then=["boat:black", SH, "fish:black", "fish:yellow"])
    assert g.refuse(draw(0, "boat:black", SH, pile=0)).rule == "R-X-NOEFFECT"
    g.play(ev.DeckDrawn(player=0, cards=("boat:black", SH), kept="boat:black", discard_pile=0,
                        dolphins_drew="fish:black"))
    assert g.hand(0) == ("boat:black", "fish:black") and g.pile_top(0) == SH


def test_r_ev_dolphins_a_boat_take_discarding_a_collector_draws():
    """R-EV-DOLPHINS, R-DUO-BOAT: the take a boat pair gives is a two-card deck draw like any
    other: its discarded octopus makes the Dolphins draw."""
    g = pepper("dolphins", hands={0: ["boat:black", "boat:yellow"]},
               then=["crab:black", "fish:black", "crab:yellow", "octopus:green", "fish:yellow"])
    g.play(draw(0, "crab:black", "fish:black", pile=0),
           ev.BoatsPlayed(player=0, cards=("boat:black", "boat:yellow")))
    assert g.refuse(draw(0, "crab:yellow", "octopus:green", pile=1)).rule == "R-X-NOEFFECT"
    g.play(ev.DeckDrawn(player=0, cards=("crab:yellow", "octopus:green"), kept="crab:yellow",
                        discard_pile=1, dolphins_drew="fish:yellow"))
    assert g.hand(0)[-2:] == ("crab:yellow", "fish:yellow")


def test_r_ev_dolphins_draw_the_last_card_then_a_deck_out():
    """R-EV-DOLPHINS, R-END-3: Ann's fish pair on her first turn makes the deck odd (the
    deck's next cards alternate collector and other, so the filler draws keep the collector
    and the Dolphins never draw on the way); with 3 cards left she draws two and discards a
    shell: the Dolphins take the last card. She does not call: a deck-out, ended by Ann."""
    used = {"fish:black", "fish:yellow", "crab:black", "crab:yellow", "boat:yellow",
            "boat:black", "shell:grey", "fish:dark-blue", "lighthouse:purple", "shoal:grey"}
    pool = [c for c in catalog_order() if c not in used and c != M]
    collectors = [c for c in pool if KIND[c] in ("shell", "octopus", "penguin", "sailor")]
    others = [c for c in pool if c not in collectors][:len(collectors)]
    g = pepper("dolphins", hands={0: ["fish:black", "fish:yellow"]},
               then=["crab:black", "crab:yellow", "boat:yellow",
                     *(c for pair in zip(others, collectors) for c in pair)],
               bottom=["boat:black", "shell:grey", "fish:dark-blue"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0),
           fish(0, "fish:black", "fish:yellow", "boat:yellow"), end(0))
    g.drain(3, player=0)
    assert g.deck == ("boat:black", "shell:grey", "fish:dark-blue")
    g.play(ev.DeckDrawn(player=0, cards=("boat:black", "shell:grey"), kept="boat:black",
                        discard_pile=0, dolphins_drew="fish:dark-blue"), end(0))
    assert g.deck == () and scored(g).ending == "deck_out" and g.state.flow.ender == 0


def test_r_ev_hermit_crab_only_the_pile_that_has_cards():
    """R-EV-HERMIT-CRAB: Ann takes pile 1's only card; her crab pair then takes one card
    from pile 0 alone: a take from the empty pile 1 is refused, and leaving pile 0 out
    breaks R-X-NOEFFECT."""
    g = pepper("hermit-crab", hands={0: ["crab:black", "crab:yellow"]},
               discards=("shell:grey", "shell:black"))
    assert g.player == 0 and g.pile(1) == ("shell:black",)
    g.play(take(0, 1, "shell:black"))
    p0 = g.pile(0)
    assert g.refuse(hermit(0, "crab:black", "crab:yellow", (0, p0[0]), (1, "shell:black"))
                    ).rule == "R-EV-HERMIT-CRAB"
    assert g.refuse(hermit(0, "crab:black", "crab:yellow")).rule == "R-X-NOEFFECT"
    g.play(hermit(0, "crab:black", "crab:yellow", (0, p0[0])))
    assert g.pile(0) == p0[1:] and g.pile(1) == () and g.hand(0)[-1] == p0[0]


def test_r_ev_hermit_crab_not_for_a_lobster_pair_nor_a_trio():
    """R-EV-HERMIT-CRAB, R-X-LOBSTER-NOTCRAB, R-X-TRIO: under the Hermit Crab a crab with
    the lobster is still the lobster's pair (crabs_played refused; the lobster sees the top
    five), and a crab pair in a trio takes nothing."""
    g = pepper("hermit-crab", ruleset=XS,
               hands={0: ["crab:black", "lobster:black", "crab:yellow", "crab:green",
                          "starfish:yellow"]}, then=["boat:black", "boat:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0))
    piles = g.state.table.piles
    assert g.refuse(hermit(0, "crab:black", "lobster:black", (0, piles[0][0]),
                           (1, piles[1][0]))).rule == "R-X-LOBSTER-NOTCRAB"
    g.play(ev.StarfishPlayed(player=0, cards=("crab:yellow", "crab:green"),
                             starfish="starfish:yellow"))
    assert g.state.table.piles == piles
    top5 = g.deck[:5]
    g.play(ev.LobsterPlayed(player=0, cards=("crab:black", "lobster:black"), seen=top5,
                            kept=top5[0], deck=g.deck[5:] + top5[1:]))
    assert g.state.table.piles == piles and g.hand(0)[-1] == top5[0]


# ---------------------------------------------------------------- Water Rodeo, Coral Reef

def test_r_ev_water_rodeo_sharks_a_taken_lobster_pair_scores_for_the_thief():
    """R-EV-WATER-RODEO-SHARKS, R-X-LOBSTER-NOTCRAB ("a Water Rodeo shark pair can take
    it"), R-X-SCORE-DUO (taken pairs count 1), R-X-SCORE-CAST (crabs in taken pairs count),
    R-X-SCORE-COLOUR. Ben lays crab:yellow + lobster:black; Ann's two sharks take it. Ann
    then holds cast of crabs, the anchor, penguin:purple, boat:dark-blue and has laid the
    sharks and the taken pair: pairs 2, cast 1 (the one crab), sailors 5, captain 6,
    penguin 1: 15; colours black 2 (shark, lobster), green 2 (shark, cast): bonus 2."""
    g = pepper("water-rodeo", ruleset=XS,
               hands={0: ["shark:black", "shark:green", "castofcrabs:green"] + ANCHOR,
                      1: ["crab:yellow", "lobster:black"]},
               then=["penguin:purple", "fish:green", "fish:yellow", "boat:dark-blue"])
    g.play(draw(0, "penguin:purple", "fish:green", pile=0), end(0),
           draw(1, "fish:yellow", "boat:dark-blue", pile=0))
    top5 = g.deck[:5]
    g.play(ev.LobsterPlayed(player=1, cards=("crab:yellow", "lobster:black"), seen=top5,
                            kept=top5[0], deck=g.deck[5:] + top5[1:]), end(1))
    g.play(take(0, 0, "boat:dark-blue"),
           ev.SharksPlayed(player=0, cards=("shark:black", "shark:green"), victim=1,
                           pair=("lobster:black", "crab:yellow")))
    assert g.laid(1) == ()
    g.play(stop(0))
    rs = scored(g)
    assert (rs.card_points[0], rs.color_bonus[0]) == (15, 2)


def test_r_ev_coral_reef_the_face_down_shell_is_no_shell_and_no_colour():
    """R-EV-CORAL-REEF, R-X-SCORE-SEAHORSE, R-X-SCORE-COLOUR: Ann holds the anchor, a
    mermaid, the seahorse, shell:black, boat:black and keeps fish:black; she lays the shell
    face down. Face-up she has no shell, so the seahorse has no kind (the sailors are full):
    0; colours white 2 (mermaid, seahorse), black 2 (boat, fish): the mermaid 2. Card
    points 11 + 2 = 13, bonus 2 (with the shell counted: seahorse +2, black 3, 16 and 3)."""
    g = pepper("coral-reef", ruleset=XS,
               hands={0: ANCHOR + [M, SH, "shell:black", "boat:black"]},
               then=["fish:black", "crab:yellow"])
    g.play(draw(0, "fish:black", "crab:yellow", pile=0),
           ev.ShellFaceDown(player=0, card="shell:black"), stop(0))
    rs = scored(g)
    assert (rs.card_points[0], rs.color_bonus[0]) == (13, 2)


def test_r_ev_protect_a_held_coral_reef_protects_against_every_attacker():
    """R-EV-APPLY, R-EV-PROTECT, R-EV-AWARD: Ben, last after round 1 under the Coral Reef,
    holds it in round 2 (table event: the Tornado). He lays a shell face down; the Coral
    Reef is not in effect for Ann, yet her shark and swimmer may not choose him."""
    g = scored_game("coral-reef")
    assert g.derived()[1].to == 1
    g.start_round(event="tornado", hands={1: ["shell:grey", "octopus:green"],
                                          0: ["shark:black", "swimmer:black"]},
                  then=["boat:black", "boat:yellow", "fish:black", "fish:yellow"])
    assert g.state.effects(1) == {"tornado", "coral-reef"} and g.state.effects(0) == {"tornado"}
    assert g.player == 1
    g.play(draw(1, "boat:black", "boat:yellow", pile=0),
           ev.ShellFaceDown(player=1, card="shell:grey"), end(1),
           draw(0, "fish:black", "fish:yellow", pile=0))
    assert g.refuse(shark(0, "shark:black", "swimmer:black", 1, "octopus:green")
                    ).rule == "R-EV-PROTECT"
    g.play(shark(0, "shark:black", "swimmer:black", None, None))


def test_r_ev_protect_the_water_rodeo_pairs_may_not_choose_a_protected_player():
    """R-EV-PROTECT, RULES.md §17 ("a protected victim: R-EV-PROTECT for all three"): Ben
    holds the Coral Reef in round 2 under the Water Rodeo, lays a fish pair and a shell face
    down; Ann's swimmer pair and shark pair may not choose him (though he has a hand and a
    laid pair), and with nobody else they choose nobody and name no card or pair."""
    g = scored_game("coral-reef")
    assert g.derived()[1].to == 1
    fish_pair = ("fish:black", "fish:yellow")
    g.start_round(event="water-rodeo", hands={1: ["shell:grey", "octopus:green", *fish_pair],
                                              0: ["swimmer:black", "swimmer:yellow",
                                                  "shark:black", "shark:green"]},
                  then=["boat:black", "boat:yellow", "octopus:yellow", "penguin:pink",
                        "penguin:purple"])
    assert g.player == 1
    g.play(draw(1, "boat:black", "boat:yellow", pile=0),
           fish(1, *fish_pair, "octopus:yellow"),
           ev.ShellFaceDown(player=1, card="shell:grey"), end(1),
           draw(0, "penguin:pink", "penguin:purple", pile=0))
    swimmers = ("swimmer:black", "swimmer:yellow")
    sharks = ("shark:black", "shark:green")
    assert g.refuse(ev.SwimmersPlayed(player=0, cards=swimmers, victim=1, gave=None, got=None)
                    ).rule == "R-EV-PROTECT"
    assert g.refuse(ev.SharksPlayed(player=0, cards=sharks, victim=1, pair=fish_pair)
                    ).rule == "R-EV-PROTECT"
    # nobody chosen: nothing given, got or taken (R-EV-WATER-RODEO-SWIMMERS / -SHARKS)
    assert g.refuse(ev.SwimmersPlayed(player=0, cards=swimmers, victim=None, gave="shark:black",
                                      got="octopus:green")).rule == "R-EV-WATER-RODEO-SWIMMERS"
    assert g.refuse(ev.SharksPlayed(player=0, cards=sharks, victim=None, pair=fish_pair)
                    ).rule == "R-EV-WATER-RODEO-SHARKS"
    g.play(ev.SwimmersPlayed(player=0, cards=swimmers, victim=None, gave=None, got=None),
           ev.SharksPlayed(player=0, cards=sharks, victim=None, pair=None))
    assert g.laid(1) == (fish_pair,)


def test_r_ev_water_rodeo_swimmers_a_fourth_mermaid_wins_at_its_holders_turn_end():
    """R-EV-WATER-RODEO-SWIMMERS, R-MERMAID-WIN ("at the end of their turn"): Ann, under
    the Water Rodeo, gives Ben her mermaid for his octopus: Ben holds four mermaids when
    Ann's turn ends, which does not win; at the end of his own turn he wins."""
    g = pepper("water-rodeo",
               hands={0: ["swimmer:black", "swimmer:yellow", M], 1: [M, M, M, "octopus:green"]},
               then=["boat:black", "boat:yellow", "fish:black", "fish:yellow"])
    g.play(draw(0, "boat:black", "boat:yellow", pile=0),
           ev.SwimmersPlayed(player=0, cards=("swimmer:black", "swimmer:yellow"), victim=1,
                             gave=M, got="octopus:green"), end(0))
    assert g.hand(1).count(M) == 4 and g.derived() == [] and g.player == 1
    g.play(draw(1, "fish:black", "fish:yellow", pile=0), end(1))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(1,), totals=(0, 0))]


# ---------------------------------------------------------------- places with three players

THREE = {0: ANCHOR + ["crab:black", "boat:black", "fish:black", "swimmer:black"],      # 11
         1: ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow",
             "shell:green", "shell:grey", "penguin:pink"],                              # 10 + 1
         2: ["colony:green", "octopus:purple", "crab:grey", "swimmer:yellow", "fish:green",
             "boat:dark-blue"]}                                # 0 (colony of no penguin)


def three_players_round(event: str) -> Game:
    """Cid keeps penguin:light-orange (penguin 1, his colony 2), Ann keeps octopus:yellow
    (0) and stops: card points 11, 11, 3: Ann and Ben share the highest total, Cid alone is
    lowest."""
    g = Game(3, events="pepper").start_round(
        event=event, hands=THREE,
        then=["penguin:light-orange", "octopus:light-blue", "octopus:yellow", "crab:dark-blue"])
    assert g.player == 2
    g.play(draw(2, "penguin:light-orange", "octopus:light-blue", pile=0), end(2),
           draw(0, "octopus:yellow", "crab:dark-blue", pile=0), stop(0))
    return g


def test_r_ev_place_a_tie_for_first_gives_the_first_place_event_to_nobody():
    """R-EV-PLACE, R-EV-AWARD step 2: totals 11, 11, 3: nobody is first, so the Tornado
    (first place) is discarded."""
    g = three_players_round("tornado")
    rs, awarded = g.derived()
    assert rs.totals == (11, 11, 3)
    assert awarded == ev.EventAwarded(round=1, event="tornado", to=None, discarded=())
    assert g.state.event_discards == ("tornado",) and g.state.held == ((), (), ())


def test_r_ev_place_the_only_lowest_is_last():
    """R-EV-PLACE, R-EV-AWARD step 2: totals 11, 11, 3: Cid alone is last and receives the
    Sunfish (last place)."""
    g = three_players_round("sunfish")
    _, awarded = g.derived()
    assert awarded == ev.EventAwarded(round=1, event="sunfish", to=2, discarded=())
    assert g.state.held == ((), (), ("sunfish",))


def test_r_ev_angelfish_after_the_take_a_boat_pair_gives():
    """R-EV-ANGELFISH ("the take a boat pair gives" counts), R-DUO-BOAT: Ann's draw puts a
    crab:grey on pile 0 (pile 1's top is octopus:purple, no take due); her boat pair's draw
    puts penguin:purple there: both tops purple, the Angelfish take is due before anything
    else."""
    g = pepper("angelfish", hands={0: ["boat:black", "boat:yellow"]},
                discards=("shell:grey", "octopus:purple"),
                then=["crab:black", "crab:grey", "fish:black", "penguin:purple"])
    assert g.pile_top(1) == "octopus:purple"
    g.play(draw(0, "crab:black", "crab:grey", pile=0),
            ev.BoatsPlayed(player=0, cards=("boat:black", "boat:yellow")),
            draw(0, "fish:black", "penguin:purple", pile=0))
    assert g.refuse(end(0)).rule == "R-EV-ANGELFISH"
    g.play(ev.AngelfishTaken(player=0, pile=1, card="octopus:purple"), end(0))


# ---------------------------------------------------------------- the last turns of a round

def test_r_last_1_a_boat_pair_in_a_final_turn_gives_its_take():
    """R-LAST-1 (Ruling: a boat pair laid in a final turn still gives its extra take),
    R-FLOW-TAKE: after Ann's LAST CHANCE, Ben lays two boats in his final turn: the take
    comes next (ending the turn is refused), then he ends; the round is scored."""
    g = Game(2).start_round(hands={0: ANCHOR, 1: ["boat:black", "boat:yellow", "crab:grey"]},
                            then=["octopus:green", "fish:black", "crab:black", "fish:yellow",
                                  "octopus:yellow", "crab:yellow"])
    g.play(draw(0, "octopus:green", "fish:black", pile=0), last_chance(0),
           draw(1, "crab:black", "fish:yellow", pile=0),
           ev.BoatsPlayed(player=1, cards=("boat:black", "boat:yellow")))
    assert g.refuse(end(1)).rule == "R-FLOW-TAKE"
    g.play(draw(1, "octopus:yellow", "crab:yellow", pile=1), end(1))
    assert scored(g).ending == "last_chance"


def test_r_x_jellyfish_last_a_forced_final_turn_on_an_empty_deck_takes_nothing():
    """R-X-JELLYFISH-LAST, R-X-JELLYFISH-TURN, R-LAST-2, R-END-3 (Ruling: the call comes
    first): Ann's draw takes the deck's last two cards; she lays swimmer + jellyfish and
    calls LAST CHANCE. Ben's final turn is forced on an empty deck: no pile take, a
    forced_drawn with no card, then the end; the round is scored by LAST CHANCE."""
    g = Game(2, ruleset=XS).start_round(hands={0: ANCHOR + ["swimmer:black", "jellyfish:pink"]})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0), ev.JellyfishPlayed(player=0, cards=("swimmer:black",
                                                                       "jellyfish:pink")),
           last_chance(0))
    assert g.deck == () and g.player == 1
    assert g.refuse(take(1, 0, g.pile_top(0))).rule == "R-X-JELLYFISH-TURN"
    assert g.refuse(ev.ForcedDrawn(player=1, card=b)).rule == "R-X-JELLYFISH-TURN"
    g.play(ev.ForcedDrawn(player=1, card=None), end(1))
    rs = scored(g)
    assert rs.ending == "last_chance" and rs.caller == 0


def test_r_ev_diodon_fish_the_turn_that_empties_the_deck():
    """R-EV-DIODON-FISH, R-END-3 (Ruling): under the Diodon Fish, Ann, whose draw empties the
    deck, may not stop it with STOP; LAST CHANCE comes first and the round goes on."""
    g = pepper("diodon-fish", hands={0: ANCHOR})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0))
    assert g.refuse(stop(0)).rule == "R-EV-DIODON-FISH"
    g.play(last_chance(0))
    assert g.player == 1 and g.state.flow.due is None


def odd_deck(event: str | None, hand: list[str], flip: str) -> Game:
    """An Extra Salt round (with ``event``, if any, as its table event) whose deck holds one
    card with Ann to act. On her first turn she turned the deck's size odd: with ``flip``
    "fish" her fish pair drew one card (R-DUO-FISH), with "lobster" her crab:green + lobster
    kept one of the top five cards and put four back (R-X-LOBSTER)."""
    g = Game(2, ruleset=XS, events="pepper" if event else None)
    pair = ["fish:black", "fish:yellow"] if flip == "fish" else ["crab:green", "lobster:black"]
    g.start_round(hands={0: pair + hand}, then=["boat:black", "boat:yellow", "crab:black"],
                  event=event)
    g.play(draw(0, "boat:black", "boat:yellow", pile=0))
    if flip == "fish":
        g.play(fish(0, "fish:black", "fish:yellow", "crab:black"))
    else:
        top5 = g.deck[:5]
        g.play(ev.LobsterPlayed(player=0, cards=("crab:green", "lobster:black"), seen=top5,
                                kept=top5[0], deck=g.deck[5:] + top5[1:]))
    g.play(end(0))
    g.drain(1, player=0)
    assert len(g.deck) == 1 and g.player == 0
    return g


def test_r_ev_sunfish_one_card_left_draws_one():
    """R-EV-SUNFISH ("one card if only one is left"), R-END-3: with one card left (the deck
    turned odd by a lobster, as a Sunfish fish pair draws two) Ann takes
    a pile's top and her fish pair draws the last card alone; a second card is refused.
    The deck is empty at her turn's end: a deck-out."""
    g = odd_deck("sunfish", ["fish:dark-blue", "fish:light-blue"], flip="lobster")
    last = g.deck[0]
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(ev.FishPlayed(player=0, cards=("fish:dark-blue", "fish:light-blue"),
                                  drew=last, also_drew="crab:grey")).rule == "R-EV-SUNFISH"
    g.play(ev.FishPlayed(player=0, cards=("fish:dark-blue", "fish:light-blue"), drew=last))
    assert g.deck == () and g.hand(0)[-1] == last
    g.play(end(0))
    assert scored(g).ending == "deck_out"


def test_r_x_lobster_one_card_left_keeps_it():
    """R-X-LOBSTER (n = 1: the player sees the one card and keeps it; nothing goes back,
    no new order), R-END-3: the deck is then empty and Ann's turn ends in a deck-out."""
    g = odd_deck(None, ["crab:grey", "lobster:black"], flip="fish")
    last = g.deck[0]
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(ev.LobsterPlayed(player=0, cards=("crab:grey", "lobster:black"), seen=None,
                                     kept=None)).rule == "R-X-NOEFFECT"
    g.play(ev.LobsterPlayed(player=0, cards=("crab:grey", "lobster:black"), seen=(last,),
                            kept=last))
    assert g.deck == () and g.hand(0)[-1] == last
    g.play(end(0))
    assert scored(g).ending == "deck_out"


def test_r_duo_boat_after_the_deck_ran_out_takes_from_a_pile():
    """R-DUO-BOAT ("either way of step 1"), R-TAKE-1, R-END-3: with two cards left Ann takes
    a pile's top; her first boat pair's draw takes the last two cards; her second boat pair's
    take can only be a pile's top (a deck draw is refused). Her turn then ends with an empty
    deck and no call: a deck-out."""
    boats = ["boat:black", "boat:black", "boat:yellow", "boat:yellow"]
    g = Game(2).start_round(hands={0: boats})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(take(0, 0, g.pile_top(0)), ev.BoatsPlayed(player=0, cards=("boat:black", "boat:black")),
           draw(0, a, b, pile=1), ev.BoatsPlayed(player=0, cards=("boat:yellow", "boat:yellow")))
    assert g.deck == ()
    assert g.refuse(draw(0, a)).rule == "R-TAKE-1"
    assert g.refuse(end(0)).rule == "R-FLOW-TAKE"
    g.play(take(0, 1, g.pile_top(1)), end(0))
    assert scored(g).ending == "deck_out"


def plain_turn(g: Game, p: int, *middle: ev.Event) -> None:
    """Seat ``p`` draws the deck's top two cards (keeps the first, the second on pile 0),
    plays ``middle`` and ends the turn."""
    g.play(draw(p, g.deck[0], g.deck[1], pile=0), *middle, end(p))


def forced_turn(g: Game, p: int) -> None:
    g.play(ev.ForcedDrawn(player=p, card=g.deck[0]), end(p))


def test_r_x_jellyfish_many_two_locks_and_a_protected_player():
    """R-X-JELLYFISH-MANY, R-X-JELLYFISH-TURN, R-EV-PROTECT, three players under the Coral
    Reef. Ben places a shell face down. Ann lays swimmer + jellyfish: Ben, protected, plays
    an ordinary turn and lays his own swimmer + jellyfish. Cid's turn is forced (two locks).
    Ann's own lock ends as her turn begins, but Ben's holds: forced. Ben's turn begins: his
    lock ends, Ann's ended before: an ordinary turn."""
    g = Game(3, ruleset=XS, events="pepper").start_round(
        event="coral-reef", hands={0: ["swimmer:black", "jellyfish:pink", "octopus:green"],
                                   1: ["shell:grey", "swimmer:yellow", "jellyfish:purple"],
                                   2: ["crab:black", "boat:black", "fish:black"]})
    assert g.player == 0
    plain_turn(g, 0)
    plain_turn(g, 1, ev.ShellFaceDown(player=1, card="shell:grey"))
    plain_turn(g, 2)
    plain_turn(g, 0, ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")))
    assert g.refuse(ev.ForcedDrawn(player=1, card=g.deck[0])).rule == "R-X-JELLYFISH-TURN"
    plain_turn(g, 1, ev.JellyfishPlayed(player=1, cards=("swimmer:yellow", "jellyfish:purple")))
    assert g.refuse(draw(2, g.deck[0], g.deck[1], pile=0)).rule == "R-X-JELLYFISH-TURN"
    forced_turn(g, 2)
    assert g.refuse(draw(0, g.deck[0], g.deck[1], pile=0)).rule == "R-X-JELLYFISH-TURN"
    forced_turn(g, 0)
    assert g.refuse(ev.ForcedDrawn(player=1, card=g.deck[0])).rule == "R-X-JELLYFISH-TURN"
    plain_turn(g, 1)
    plain_turn(g, 2)


def test_r_last_2_a_forced_final_turn_takes_the_last_card_and_the_round_goes_on():
    """R-LAST-2 (Ruling: no deck-out in the final turns), R-X-JELLYFISH-LAST, three players:
    with one card left Ann takes a pile's top, lays swimmer + jellyfish and calls LAST
    CHANCE. Ben's forced final turn takes the last card: the deck is empty at the end of his
    turn, but the round goes on; Cid's forced final turn takes nothing; then the round is
    scored by LAST CHANCE."""
    g = Game(3, ruleset=XS).start_round(
        hands={0: ANCHOR + ["swimmer:black", "jellyfish:pink", "fish:black", "fish:yellow"]},
        then=["crab:black", "crab:yellow", "boat:yellow"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0),
           fish(0, "fish:black", "fish:yellow", "boat:yellow"), end(0))
    g.drain(1, player=0)
    last = g.deck[0]
    g.play(take(0, 0, g.pile_top(0)),
           ev.JellyfishPlayed(player=0, cards=("swimmer:black", "jellyfish:pink")), last_chance(0),
           ev.ForcedDrawn(player=1, card=last), end(1))
    assert g.deck == () and g.derived() == [] and g.player == 2
    g.play(ev.ForcedDrawn(player=2, card=None), end(2))
    assert scored(g).ending == "last_chance"


def test_r_game_1_the_tie_break_looks_at_the_tied_players_only():
    """R-GAME-1, three players, target 20. Round 1, Ann stops: Ann 11 (sailors 5, captain
    6), Ben 9 (octopuses 6, penguins 3), Cid 0. Round 2, Ben stops: Ben 11 (shells 10,
    penguin 1), Ann 9, Cid 12 (the anchor 11, a crab pair 1). Totals 20, 20, 12: Ann and
    Ben tie on the highest total; of the two, Ben scored more in the last round (11 to 9),
    so Ben wins, although Cid scored most (12) in that round."""
    g = Game(3, target=20).start_round(
        hands={0: ANCHOR + ["fish:black", "boat:yellow"],
               1: ["octopus:light-blue", "octopus:yellow", "octopus:green", "penguin:purple",
                   "penguin:pink"],
               2: ["lighthouse:purple", "colony:green", "crab:grey", "swimmer:yellow",
                   "fish:green"]},
        then=["shark:black", "crab:yellow"])
    g.play(draw(0, "shark:black", "crab:yellow", pile=0), stop(0))
    assert scored(g).points == (11, 9, 0)
    g.start_round(
        hands={1: ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow",
                   "shell:green", "shell:grey"],
               2: ANCHOR + ["crab:black", "crab:yellow", "boat:black"],
               0: ["octopus:light-blue", "octopus:yellow", "octopus:green", "penguin:pink",
                   "penguin:light-orange", "fish:yellow"]},
        then=["penguin:purple", "fish:dark-blue"])
    assert g.player == 1
    g.play(draw(1, "penguin:purple", "fish:dark-blue", pile=0), stop(1))
    rs, ended = g.derived()
    assert rs.points == (9, 11, 12) and rs.totals == (20, 20, 12)
    assert ended == ev.GameEnded(reason="target", winners=(1,), totals=(20, 20, 12))


def test_r_ev_treasure_chest_held_counts_with_the_kraken_on_the_table():
    """R-EV-APPLY (table event and held event together), R-EV-TREASURE-CHEST, R-EV-KRAKEN,
    R-EV-AWARD. Round 1 under the Treasure Chest: Ann stops with 11 (enough: 10), Ben has
    0: Ann, first, holds the Treasure Chest. Round 2 under the Kraken: Ann's 3 octopuses
    and 3 penguins make 3 + 5 = 8 (not 6 + 5 = 11), below the 10 she needs: both calls are
    refused. Ben, with 4 shells (6) and a crab pair (1), 7, may call: the Treasure Chest is
    not in effect for him."""
    g = Game(2, events="pepper").start_round(
        event="treasure-chest",
        hands={0: ANCHOR + ["fish:black", "boat:yellow", "shark:black"],
               1: ["lighthouse:purple", "shoal:grey", "colony:green", "octopus:purple",
                   "crab:grey", "swimmer:yellow"]},
        then=["crab:black", "crab:yellow"])
    g.play(draw(0, "crab:black", "crab:yellow", pile=0), stop(0))
    rs, awarded = g.derived()
    assert rs.points == (11, 0) and awarded.to == 0
    g.start_round(event="kraken",
                  hands={1: ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow",
                             "crab:black", "crab:yellow"],
                         0: ["octopus:light-blue", "octopus:yellow", "octopus:green",
                             "penguin:purple", "penguin:pink", "penguin:light-orange"]},
                  then=["fish:yellow", "boat:dark-blue", "boat:light-blue", "fish:light-blue",
                        "fish:dark-blue", "boat:black"])
    assert g.state.effects(0) == {"kraken", "treasure-chest"} and g.player == 1
    g.play(draw(1, "fish:yellow", "boat:dark-blue", pile=0), end(1),
           draw(0, "boat:light-blue", "fish:light-blue", pile=0))
    assert g.refuse(stop(0)).rule == "R-EV-TREASURE-CHEST"
    assert g.refuse(last_chance(0)).rule == "R-EV-TREASURE-CHEST"
    g.play(end(0), draw(1, "fish:dark-blue", "boat:black", keep="boat:black", pile=0), stop(1))
    assert scored(g).card_points == (8, 7)


def test_r_ev_dance_of_the_mermaids_held_counts_for_its_holder_only():
    """R-EV-APPLY, R-EV-DANCE-OF-THE-MERMAIDS, R-MERMAID-WIN: Ben, last after round 1 under
    the Dance of the Mermaids, holds it in round 2 (table event: the Kraken). Ann, for whom
    the Dance is not in effect, holds three mermaids at the end of her turn: no win. In
    another round 2, Ben keeps a third mermaid: he wins at the end of his turn."""
    def round_two(hands, then):
        g = scored_game("dance-of-the-mermaids")
        assert g.derived()[1].to == 1
        g.start_round(event="kraken", hands=hands, then=then)
        assert g.player == 1 and "dance-of-the-mermaids" not in g.state.effects(0)
        return g
    g = round_two({1: ["crab:black", "boat:black"], 0: [M, M]},
                  ["fish:black", "fish:yellow", M, "octopus:green"])
    g.play(draw(1, "fish:black", "fish:yellow", pile=0), end(1),
           draw(0, M, "octopus:green", pile=0), end(0))
    assert g.hand(0).count(M) == 3 and g.derived() == [] and g.player == 1
    g = round_two({1: [M, M], 0: ["crab:black", "boat:black"]}, [M, "octopus:green"])
    g.play(draw(1, M, "octopus:green", pile=0), end(1))
    assert g.derived() == [ev.GameEnded(reason="mermaids", winners=(1,), totals=g.state.totals)]
