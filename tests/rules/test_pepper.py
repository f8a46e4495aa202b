"""Extra Pepper (RULES.md §14, §17): the event deck, the events in effect, awarding them,
and each of the 12 events, legal and illegal. Expected values are worked from the rules."""

from __future__ import annotations

from collections import Counter

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.engine import apply, legal_moves
from seasalt_log.engine.core import next_derived, player_points
from seasalt_log.engine.rulings import DOLPHIN_CODES, rules_for
from seasalt_log.errors import LogFormatError

from ..scenario import Game, boats, crabs, draw, end, fish, last_chance, shark, stop, take

CB, CY, CG = "crab:black", "crab:yellow", "crab:green"
BB, BY = "boat:black", "boat:yellow"
FB, FG = "fish:black", "fish:green"
O1, O2, O3 = "octopus:green", "octopus:yellow", "octopus:grey"
P1, P2, P3 = "penguin:purple", "penguin:pink", "penguin:light-orange"
SG, SB, SY = "shell:grey", "shell:black", "shell:yellow"
SWB, SWY = "swimmer:black", "swimmer:yellow"
SHB, SHG = "shark:black", "shark:green"
M = "mermaid:white"


def pepper(event: str, players: int = 2, ruleset: str | None = None, **kw) -> Game:
    """A game with events whose first round has ``event`` as its table event."""
    return Game(players, ruleset=ruleset, events="pepper").start_round(event=event, **kw)


def hermit(player, a, b, *takes) -> ev.CrabsPlayed:
    return ev.CrabsPlayed(player=player, cards=(a, b), pile=None, took=None,
                          takes=tuple(ev.HermitTake(pile=i, card=c) for i, c in takes))


# ---------------------------------------------------------------- the event deck

def test_r_ev_cards_and_r_ev_deck_twelve_events_one_round_event():
    """R-EV-CARDS, R-EV-DECK, R-EV-ROUND: 12 events in the deck; round 1's event leaves it;
    a game with events must name each round's event; one without may not."""
    g = Game(events="pepper")
    assert len(g.state.event_deck) == 12
    g.start_round(event="kraken")
    assert g.state.table_event == "kraken" and "kraken" not in g.state.event_deck
    with pytest.raises(LogFormatError):
        apply(Game(events="pepper").state, ev.RoundStarted(round=1, first_player=0,
                                                           discards=(SG, SB)))
    with pytest.raises(LogFormatError):
        apply(Game().state, ev.RoundStarted(round=1, first_player=0, discards=(SG, SB),
                                            event="kraken"))


def test_r_ev_variants_are_format_errors():
    """R-EV-VARIANTS: no variant value of events, and an unknown event code, decode."""
    with pytest.raises(LogFormatError):
        ev.decode('{"type":"game_started","players":["a","b"],"events":"permanent"}')
    with pytest.raises(LogFormatError) as info:
        ev.decode('{"type":"round_started","round":1,"first_player":0,'
                  '"discards":["shell:grey","shell:black"],"event":"octopus"}')
    assert "unknown event code" in info.value.reason


def test_event_types_are_unknown_without_events():
    """LOG_FORMAT.md: event types and fields in a game without events: format errors."""
    g = Game().start_round(discards=(SG, SB), then=[BB, O1])
    g.play(draw(0, BB, O1))
    with pytest.raises(LogFormatError):
        apply(g.state, ev.ShellFaceDown(player=0, card=SG))
    g2 = Game().start_round(discards=(SG, SB), then=[BB, O1, O2])
    with pytest.raises(LogFormatError):
        apply(g2.state, replace(draw(0, BB, O1), dolphins_drew=O2))


# ---------------------------------------------------------------- the events one by one

def test_r_ev_hermit_crab_one_card_from_each_pile():
    """R-EV-HERMIT-CRAB: pile 0 first, then pile 1, any card of each; R-X-NOEFFECT: a pile
    with cards left out; the base fields pile/took must be null."""
    g = pepper("hermit-crab", hands={0: [CB, CY]}, discards=(SG, SB), then=[BB, O1])
    g.play(draw(0, BB, O1, pile=1))
    p0, p1 = g.pile(0), g.pile(1)
    assert g.refuse(crabs(0, CB, CY, 0, p0[-1])).rule == "R-EV-HERMIT-CRAB"
    assert g.refuse(hermit(0, CB, CY, (0, p0[0]))).rule == "R-X-NOEFFECT"
    assert g.refuse(hermit(0, CB, CY, (1, SB), (0, p0[0]))).rule == "R-EV-HERMIT-CRAB"
    assert g.refuse(hermit(0, CB, CY, (0, p0[0]), (1, M))).rule == "R-EV-HERMIT-CRAB"
    g.play(hermit(0, CB, CY, (0, p0[0]), (1, SB)))          # pile 0's bottom card, then SB
    assert g.pile(0) == p0[1:] and g.pile(1) == (O1,)
    assert g.hand(0)[-2:] == (p0[0], SB)


def test_r_ev_hermit_crab_takes_only_where_in_effect():
    """R-EV-HERMIT-CRAB: takes under another event break the Hermit Crab's rule."""
    g = pepper("kraken", hands={0: [CB, CY]}, then=[BB, O1])
    g.play(draw(0, BB, O1))
    assert g.refuse(hermit(0, CB, CY, (0, g.pile(0)[0]), (1, g.pile(1)[0]))
                    ).rule == "R-EV-HERMIT-CRAB"


def test_r_ev_sunfish_a_fish_pair_draws_two():
    """R-EV-SUNFISH: drew then also_drew, the deck's top two; R-X-NOEFFECT without the second."""
    g = pepper("sunfish", hands={0: [FB, FG]}, then=[BB, O1, O2, O3])
    g.play(draw(0, BB, O1))
    assert g.refuse(fish(0, FB, FG, O2)).rule == "R-X-NOEFFECT"
    g.play(replace(fish(0, FB, FG, O2), also_drew=O3))
    assert g.hand(0)[-2:] == (O2, O3)
    h = pepper("kraken", hands={0: [FB, FG]}, then=[BB, O1, O2, O3])
    h.play(draw(0, BB, O1))
    assert h.refuse(replace(fish(0, FB, FG, O2), also_drew=O3)).rule == "R-EV-SUNFISH"


def rodeo_game() -> Game:
    """Under the Water Rodeo, Ann holds two swimmers and two sharks; Ben has laid two boats."""
    g = pepper("water-rodeo", hands={0: [SWB, SWY, SHB, SHG, O1], 1: [BB, BY, P1, P2, P3]},
               then=[CG, O2, FB, FG, "fish:dark-blue", "fish:light-blue"])
    g.play(draw(0, CG, O2), end(0), draw(1, FB, FG), boats(1, BB, BY))
    g.play(draw(1, "fish:dark-blue", "fish:light-blue"), end(1))
    return g


def swimmers(player, victim, gave=None, got=None) -> ev.SwimmersPlayed:
    return ev.SwimmersPlayed(player=player, cards=(SWB, SWY), victim=victim, gave=gave, got=got)


def sharks(player, victim, pair) -> ev.SharksPlayed:
    return ev.SharksPlayed(player=player, cards=(SHB, SHG), victim=victim, pair=pair)


def test_r_ev_water_rodeo_swimmers_look_and_swap():
    """R-EV-WATER-RODEO, R-EV-WATER-RODEO-SWIMMERS: choose Ben, swap one card for one; the
    card got must be in Ben's hand (he holds no crab)."""
    g = rodeo_game()
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(swimmers(0, None)).rule == "R-X-NOEFFECT"
    assert g.refuse(swimmers(0, 0)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    assert g.refuse(swimmers(0, 1, gave=O1)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    assert g.refuse(swimmers(0, 1, got=P1)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    assert g.refuse(swimmers(0, 1, gave=SWB, got=P1)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    assert g.refuse(swimmers(0, 1, gave=O1, got=CY)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    g.play(swimmers(0, 1, gave=O1, got=P1))
    assert P1 in g.hand(0) and O1 in g.hand(1) and O1 not in g.hand(0)


def test_r_ev_water_rodeo_sharks_take_a_laid_pair():
    """R-EV-WATER-RODEO-SHARKS: Ben's boat pair moves to Ann's front and counts for her."""
    g = rodeo_game()
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(sharks(0, None, None)).rule == "R-X-NOEFFECT"     # Ben can be chosen
    assert g.refuse(sharks(0, 1, None)).rule == "R-EV-WATER-RODEO-SHARKS"
    assert g.refuse(sharks(0, 1, (FB, FG))).rule == "R-EV-WATER-RODEO-SHARKS"
    g.play(sharks(0, 1, (BY, BB)))
    assert g.laid(1) == () and g.laid(0) == ((SHB, SHG), (BB, BY))


def test_r_ev_water_rodeo_swimmers_not_a_player_with_an_empty_hand():
    """R-EV-WATER-RODEO-SWIMMERS, RULES.md §17: the chosen player must have a hand that is
    not empty. Ben's one card is stolen by Cid and his second by Dee; Ann's swimmer pair
    may not choose him, and chooses Cid instead."""
    g = pepper("water-rodeo", players=4, first=2,
               hands={2: [SHB, "swimmer:light-orange"], 3: [SHG, "swimmer:dark-blue"],
                      0: [SWB, SWY], 1: [CB]})
    assert g.player == 1
    g.play(take(1, 0, g.pile_top(0)), end(1))
    other = [c for c in g.hand(1) if c != CB][0]
    g.play(take(2, 0, g.pile_top(0)), shark(2, SHB, "swimmer:light-orange", 1, CB), end(2))
    g.play(take(3, 0, g.pile_top(0)), shark(3, SHG, "swimmer:dark-blue", 1, other), end(3))
    assert g.hand(1) == ()
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(swimmers(0, 1)).rule == "R-EV-WATER-RODEO-SWIMMERS"
    g.play(swimmers(0, 2))


def test_r_x_pairs_the_water_rodeo_pairs_are_two_of_a_kind():
    """R-X-PAIRS, RULES.md §17: swimmers_played needs two swimmers and sharks_played two
    sharks; a shark and a swimmer under either type is refused under R-X-PAIRS."""
    g = rodeo_game()
    g.play(take(0, 0, g.pile_top(0)))
    mixed = ev.SwimmersPlayed(player=0, cards=(SWB, SHB), victim=1, gave=None, got=None)
    assert g.refuse(mixed).rule == "R-X-PAIRS"
    assert g.refuse(ev.SharksPlayed(player=0, cards=(SHB, SWB), victim=1, pair=(BB, BY))
                    ).rule == "R-X-PAIRS"


@pytest.mark.parametrize("victim", [-1, -2, 2, 5])
def test_a_victim_seat_outside_the_game_is_a_format_error(victim):
    """An event that skipped ``events.validate`` with a victim seat outside the game
    (negative, or past the last seat) is the LogFormatError ``apply`` promises (not a bare
    ValueError from a shift, nor a rule's refusal), for both pairs of R-EV-WATER-RODEO; the
    state is left as it was."""
    g = rodeo_game()
    g.play(take(0, 0, g.pile_top(0)))
    before = g.state
    for event in (swimmers(0, victim, gave=O1, got=P1), sharks(0, victim, (BB, BY))):
        with pytest.raises(LogFormatError) as info:
            apply(before, event)
        assert info.value.game_id == before.game_id and info.value.round == 1
        assert info.value.rule == "LOG-FORMAT" and info.value.path == "$.victim"
        assert info.value.reason == f"seat {victim} out of range (this game has seats 0..1)"
    assert g.state is before and g.hand(0).count(SWB) == 1


def test_r_ev_water_rodeo_pairs_need_the_event():
    """R-EV-WATER-RODEO: without it, two swimmers are no pair (checked before the kinds)."""
    g = pepper("kraken", hands={0: [SWB, SWY]}, then=[BB, O1])
    g.play(draw(0, BB, O1))
    assert g.refuse(swimmers(0, 1)).rule == "R-EV-WATER-RODEO"


def test_r_x_trio_unit_a_trio_pair_cannot_be_taken():
    """R-X-TRIO-UNIT: the shark pair may not take the pair of a trio."""
    g = pepper("water-rodeo", ruleset="extra-salt",
               hands={0: [SHB, SHG, O1], 1: [BB, BY, "starfish:yellow"]},
               then=[CG, O2, FB, FG])
    g.play(draw(0, CG, O2), end(0), draw(1, FB, FG),
           ev.StarfishPlayed(player=1, cards=(BB, BY), starfish="starfish:yellow"), end(1))
    g.play(take(0, 0, g.pile_top(0)))
    assert g.refuse(sharks(0, 1, (BB, BY))).rule == "R-X-TRIO-UNIT"
    g.play(sharks(0, None, None))                          # nobody has a plain pair


def stop_round(event: str, hand: list[str], ruleset: str | None = None) -> ev.RoundScored:
    g = pepper(event, ruleset=ruleset, hands={0: hand}, then=[BB, BY])
    g.play(draw(0, BB, BY), stop(0))
    return g.derived()[0]


def test_r_ev_dance_of_the_shells_kraken_tornado_change_the_tables():
    """R-EV-DANCE-OF-THE-SHELLS (3 shells 6), R-EV-KRAKEN (3 octopuses 3), R-EV-TORNADO
    (mermaids 0); penguins 1/3/5 make up the 7 points needed to stop."""
    assert stop_round("dance-of-the-shells", [SG, SB, SY, P1]).card_points[0] == 6 + 1
    assert stop_round("kraken", [O1, O2, O3, P1, P2, P3]).card_points[0] == 3 + 5
    scored = stop_round("tornado", [M, M, P1, P2, P3, O1, O2])
    assert scored.card_points[0] == 0 + 5 + 3          # mermaids 0, penguins 5, octopuses 3


def test_r_ev_dance_of_the_mermaids_three_win():
    """R-EV-DANCE-OF-THE-MERMAIDS (Ruling, text not BGA): at least 3 mermaids win."""
    g = pepper("dance-of-the-mermaids", hands={0: [M, M]}, then=[M, BB])
    g.play(draw(0, M, BB), end(0))
    ended = g.derived()
    assert [type(e) for e in ended] == [ev.GameEnded] and ended[0].reason == "mermaids"


def test_r_ev_treasure_chest_needs_ten():
    """R-EV-TREASURE-CHEST: 8 card points may not call; 10 may."""
    g = pepper("treasure-chest", hands={0: [O1, O2, O3, P1]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert player_points(g.state, 0) == 7
    assert g.refuse(stop(0)).rule == "R-EV-TREASURE-CHEST"
    assert g.refuse(last_chance(0)).rule == "R-EV-TREASURE-CHEST"
    h = pepper("treasure-chest", hands={0: [O1, O2, O3, P1, P2, P3]}, then=[BB, BY])
    h.play(draw(0, BB, BY), last_chance(0))


@pytest.mark.parametrize("hand, points, legal", [
    ([O1, O2, O3, P1, P2], 9, False),                   # 3 octopuses 6 + 2 penguins 3
    ([O1, O2, O3, "octopus:light-blue", P1], 10, True),  # 4 octopuses 9 + 1 penguin 1
], ids=["nine", "ten"])
def test_r_ev_treasure_chest_ten_exactly(hand, points, legal):
    """R-EV-TREASURE-CHEST, RULES.md §17: at the boundary, 9 card points may not call
    (R-EV-TREASURE-CHEST), 10 may; the kept boat adds nothing (a single boat)."""
    g = pepper("treasure-chest", hands={0: hand}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert player_points(g.state, 0) == points
    if legal:
        g.play(stop(0))
    else:
        assert g.refuse(stop(0)).rule == "R-EV-TREASURE-CHEST"


def test_r_ev_diodon_fish_no_stop():
    """R-EV-DIODON-FISH: STOP is refused with enough points; LAST CHANCE is allowed."""
    g = pepper("diodon-fish", hands={0: [O1, O2, O3, P1]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert g.refuse(stop(0)).rule == "R-EV-DIODON-FISH"
    assert ev.StopCalled(player=0) not in legal_moves(g.state)
    g.play(last_chance(0))


def test_r_ev_angelfish_same_colour_tops_must_be_taken():
    """R-EV-ANGELFISH, R-EV-FLOW: after the take, both tops grey: one must be taken next;
    nothing else, and nowhere else."""
    g = pepper("angelfish", discards=(SG, O1), then=[BB, "crab:grey", O2, FB])
    assert g.refuse(ev.AngelfishTaken(player=0, pile=0, card=SG)).rule == "R-EV-ANGELFISH"
    g.play(draw(0, BB, "crab:grey", pile=1))
    assert g.refuse(end(0)).rule == "R-EV-ANGELFISH"
    assert g.refuse(ev.AngelfishTaken(player=0, pile=1, card=O1)).rule == "R-EV-ANGELFISH"
    g.play(ev.AngelfishTaken(player=0, pile=0, card=SG), end(0))
    assert g.pile(0) == () and SG in g.hand(0)


def test_r_ev_dolphins_a_discarded_collector_draws():
    """R-EV-DOLPHINS: discarding an octopus takes the deck's top card; a boat does not."""
    g = pepper("dolphins", discards=(SG, SB), then=[BB, O1, O2, FB])
    assert g.refuse(draw(0, BB, O1)).rule == "R-X-NOEFFECT"
    assert g.refuse(replace(draw(0, BB, O1), dolphins_drew=FB)).rule == "R-X-DRAW"
    g.play(replace(draw(0, BB, O1), dolphins_drew=O2))
    assert g.hand(0) == (BB, O2)
    g.play(end(0))
    assert g.refuse(replace(draw(1, FB, g.deck[1], keep=g.deck[1]),
                            dolphins_drew=g.deck[2])).rule == "R-EV-DOLPHINS"


def test_r_ev_coral_reef_and_r_ev_protect():
    """R-EV-CORAL-REEF, R-EV-PROTECT: Ann's face-down shell protects her from Ben's shark;
    it scores nothing; one per round; only a shell."""
    g = pepper("coral-reef", hands={0: [SG, SB, O1], 1: [SHB, SWB, P1]}, then=[BB, BY, FB, FG])
    g.play(draw(0, BB, BY))
    assert g.refuse(ev.ShellFaceDown(player=0, card=O1)).rule == "R-EV-CORAL-REEF"
    g.play(ev.ShellFaceDown(player=0, card=SG))
    assert g.refuse(ev.ShellFaceDown(player=0, card=SB)).rule == "R-EV-CORAL-REEF"
    assert player_points(g.state, 0) == 0                 # one shell in hand, the other down
    g.play(end(0), draw(1, FB, FG))
    assert g.refuse(shark(1, SHB, SWB, 0, BB)).rule == "R-EV-PROTECT"
    g.play(shark(1, SHB, SWB, None, None))               # nobody else to steal from


def test_r_ev_coral_reef_only_where_it_is_in_effect_and_only_a_held_shell():
    """R-EV-CORAL-REEF, R-EV-APPLY: under another event (the Kraken) nobody may place a shell
    face down; under the Coral Reef the shell must be one the player holds."""
    g = pepper("kraken", hands={0: [SG, SB, O1]}, then=[BB, BY])
    g.play(draw(0, BB, BY))
    assert g.refuse(ev.ShellFaceDown(player=0, card=SG)).rule == "R-EV-CORAL-REEF"
    h = pepper("coral-reef", hands={0: [SG, SB, O1]}, then=[BB, BY])
    h.play(draw(0, BB, BY))
    assert h.refuse(ev.ShellFaceDown(player=0, card=SY)).rule == "R-EV-CORAL-REEF"
    h.play(ev.ShellFaceDown(player=0, card=SB))


def test_r_ev_protect_the_jellyfish_lock_does_not_force_a_protected_player():
    """R-EV-PROTECT, R-X-JELLYFISH-TURN: Ben is protected, so Ann's lock does not force him."""
    g = pepper("coral-reef", ruleset="extra-salt",
               hands={0: [SWB, "jellyfish:pink", O1], 1: [SG, P1, P2]},
               then=[BB, BY, FB, FG, O2, O3])
    g.play(draw(0, BB, BY), end(0), draw(1, FB, FG), ev.ShellFaceDown(player=1, card=SG), end(1))
    g.play(draw(0, O2, O3), ev.JellyfishPlayed(player=0, cards=(SWB, "jellyfish:pink")), end(0))
    assert g.refuse(ev.ForcedDrawn(player=1, card=g.deck[0])).rule == "R-X-JELLYFISH-TURN"
    g.play(draw(1, g.deck[0], g.deck[1]))


# ---------------------------------------------------------------- awarding events

def scored_game(event: str, then_event: str | None = None) -> Game:
    """Round 1 under ``event``: Ann stops with 7 points (penguins 5, two pairs), Ben has 0:
    Ann first, Ben last."""
    g = pepper(event, hands={0: [P1, P2, P3, CB, CY, FB, FG],
                             1: ["lighthouse:purple", "shoal:grey", "colony:green",
                                 "octopus:purple", "crab:grey", SWY, "sailor:pink"]},
               then=[BB, BY])
    g.play(draw(0, BB, BY), stop(0))
    return g


def test_r_ev_place_and_r_ev_award_first_place_event_to_the_leader():
    """R-EV-PLACE, R-EV-AWARD, R-EV-APPLY: the Kraken (first place) goes to Ann, the leader;
    next round it is in effect for her only."""
    g = scored_game("kraken")
    scored, awarded = g.derived()
    assert scored.totals[0] > scored.totals[1]
    assert awarded == ev.EventAwarded(round=1, event="kraken", to=0, discarded=())
    assert g.refuse(ev.RoundStarted(round=2, first_player=1, discards=(SG, SB),
                                    event="kraken")).rule == "R-EV-ROUND"
    assert g.refuse(ev.EventKept(player=0, event="kraken")).rule == "R-EV-AWARD"
    g.start_round(event="sunfish")
    assert g.state.effects(0) == {"kraken", "sunfish"} and g.state.effects(1) == {"sunfish"}


def test_a_round_started_has_its_event_errors_at_the_round_it_starts():
    """The next round's round_started sets that round up: a table event missing
    (R-X-RULESET-2) or not in the event deck (R-EV-ROUND) is round 2's error, before any
    turn of it; with the round number wrong, where the game stands (R-FLOW-ROUND): round 1,
    ended, so no turn."""
    g = scored_game("kraken")
    g.derived()
    last = g.state.flow.turn
    err = g.refuse(ev.RoundStarted(round=2, first_player=1, discards=(SG, SB), event="kraken"))
    assert (err.rule, err.round, err.turn) == ("R-EV-ROUND", 2, None)
    with pytest.raises(LogFormatError) as info:
        apply(g.state, ev.RoundStarted(round=2, first_player=1, discards=(SG, SB)))
    assert (info.value.round, info.value.turn, info.value.path) == (2, None, "$")
    assert str(info.value) == ("game scenario, round 2: LOG-FORMAT: missing field 'event' (a game "
                               "with events names each round's table event) at $")
    err = g.refuse(ev.RoundStarted(round=1, first_player=1, discards=(SG, SB), event="sunfish"))
    assert (err.rule, err.round, err.turn) == ("R-FLOW-ROUND", 1, None) and last


def test_r_ev_award_last_place_event_to_the_last_and_discards():
    """R-EV-AWARD step 1 and 2: a last-place event goes to Ben; with a tie nobody gets it."""
    g = scored_game("sunfish")
    assert g.derived()[1].to == 1
    tie = Game(events="pepper").start_round(event="kraken")
    tie.drain(leave=2)
    p = tie.player
    a, b = tie.deck
    tie.play(draw(p, a, b), end(p))                       # deck-out: 0 for everyone
    scored, awarded = tie.derived()
    assert scored.ending == "deck_out" and awarded.to is None
    assert "kraken" in tie.state.event_discards


def test_r_ev_hold_two_events_of_a_place_keep_one():
    """R-EV-HOLD, R-EV-AWARD step 4: Ann, first again, receives the Tornado while holding
    the Kraken: she keeps one before the next round starts; the other is discarded."""
    g = scored_game("kraken")
    g.derived()
    g.start_round(event="tornado")
    g.drain(leave=2)
    p = g.player
    a, b = g.deck
    g.play(draw(p, a, b), end(p))                         # deck-out: totals unchanged
    assert [type(e) for e in g.derived()] == [ev.RoundScored, ev.EventAwarded]
    assert g.state.keep_due == 0 and set(g.state.held[0]) == {"kraken", "tornado"}
    first = (g.state.flow.ender + 1) % 2
    assert g.refuse(ev.RoundStarted(round=3, first_player=first, discards=(SG, SB),
                                    event="sunfish")).rule == "R-EV-AWARD"
    assert g.refuse(ev.EventKept(player=1, event="kraken")).rule == "R-EV-AWARD"
    assert g.refuse(ev.EventKept(player=0, event="sunfish")).rule == "R-EV-AWARD"
    g.play(ev.EventKept(player=0, event="tornado"))
    assert g.state.held == (("tornado",), ()) and "kraken" in g.state.event_discards


def test_r_ev_reshuffle_the_discards_become_the_event_deck():
    """R-EV-RESHUFFLE (Ruling, BGA): with the event deck empty at step 3, the discards as
    they stand are shuffled into a new deck."""
    g = scored_game("sunfish")
    g.state = g.state.changed(event_deck=(), event_discards=("kraken", "tornado"))
    g.derived()
    assert g.state.event_deck == ("kraken", "tornado") and g.state.event_discards == ()
    g.start_round(event="tornado")


def test_r_derived_the_engine_computes_event_awarded():
    """R-DERIVED, R-EV-AWARD steps 1 and 2: after round 1 under the Sunfish (last place),
    Ann first and Ben last, Ben holding the Kraken (first place) and Ann the Tornado
    (first place): Ben's Kraken is discarded, Ann keeps the Tornado,
    the Sunfish goes to Ben. Every field but ``at`` must be the engine's; a wrong one is
    named."""
    g = scored_game("sunfish")
    g.play(next_derived(g.state))                           # round_scored
    g.state = g.state.changed(held=(("tornado",), ("kraken",)))
    good = ev.EventAwarded(round=1, event="sunfish", to=1,
                           discarded=(ev.EventDiscard(player=1, event="kraken"),))
    for field, bad in (("round", 2), ("event", "kraken"), ("to", 0), ("to", None),
                       ("discarded", ()),
                       ("discarded", (ev.EventDiscard(player=0, event="tornado"),)),
                       ("discarded", (ev.EventDiscard(player=1, event="kraken"),
                                      ev.EventDiscard(player=0, event="tornado")))):
        err = g.refuse(replace(good, **{field: bad}))
        assert err.rule == "R-DERIVED" and f"event_awarded.{field} is " in str(err), (field, err)
    g.play(replace(good, at="2024-01-01T00:00:00Z"))       # the timestamp is not compared
    assert g.state.held == (("tornado",), ("sunfish",)) and g.state.keep_due is None
    assert g.state.event_discards[-1:] == ("kraken",)
    assert g.refuse(good).rule == "R-DERIVED"               # nothing is due any more


def test_r_derived_event_awarded_only_after_round_scored():
    """R-DERIVED: the event_awarded due after round_scored may not come before it."""
    g = scored_game("kraken")
    err = g.refuse(ev.EventAwarded(round=1, event="kraken", to=0, discarded=()))
    assert err.rule == "R-DERIVED" and "round_scored expected" in str(err)


def test_r_x_flow_forced_and_r_ev_angelfish_where_they_meet():
    """R-X-FLOW-FORCED, RULES.md §17: a forced take never triggers the Angelfish, and an
    angelfish_taken in a forced turn is R-X-JELLYFISH-TURN."""
    g = pepper("angelfish", ruleset="extra-salt", discards=(SG, O1),
               hands={0: [SWB, "jellyfish:pink"]}, then=[BB, "crab:grey", FB, FG])
    g.play(take(0, 1, O1))
    g.play(ev.JellyfishPlayed(player=0, cards=(SWB, "jellyfish:pink")), end(0))
    assert g.refuse(ev.AngelfishTaken(player=1, pile=0, card=g.pile_top(0))
                    ).rule == "R-X-JELLYFISH-TURN"
    g.play(ev.ForcedDrawn(player=1, card=g.deck[0]), end(1))


# ---------------------------------------------------------------- the deck runs out

def test_r_ev_sunfish_and_dolphins_draw_nothing_from_an_empty_deck():
    """R-EV-SUNFISH ("none from an empty deck"), R-EV-DOLPHINS ("nothing if the deck is
    empty"), RULES.md §17: once a draw has taken the deck's last two cards, a fish pair's
    also_drew and the Dolphins' dolphins_drew must be null; a card there is refused."""
    g = pepper("sunfish", hands={0: [FB, FG]})
    g.drain(2, player=0)
    a, b = g.deck
    g.play(draw(0, a, b, pile=0))
    assert g.deck == ()
    assert g.refuse(replace(fish(0, FB, FG, None), also_drew=O1)).rule == "R-EV-SUNFISH"
    g.play(fish(0, FB, FG, None))                           # laid, nothing drawn
    assert g.laid(0) == ((FB, FG),)
    # the Dolphins: Ann draws the last two cards and discards a collector (the octopus).
    # The deck alternates collectors with other cards, so no filler draw has to discard one
    # (a Dolphins draw would leave an odd deck that two-card draws cannot bring down to 2).
    rest = Counter(rules_for(None, "pepper").cards) - Counter([SG, SB, BB, O3])
    collectors = [c for c in rest.elements() if c in DOLPHIN_CODES]
    others = [c for c in rest.elements() if c not in DOLPHIN_CODES]
    then = [c for i, o in enumerate(others) for c in (o, *collectors[i:i + 1])]
    h = pepper("dolphins", discards=(SG, SB), then=then, bottom=[BB, O3])
    h.drain(2, player=0)
    assert h.deck == (BB, O3)
    assert h.refuse(replace(draw(0, BB, O3, pile=0), dolphins_drew=O2)).rule == "R-EV-DOLPHINS"
    h.play(draw(0, BB, O3, pile=0))                         # dolphins_drew null: legal
    assert h.deck == () and BB in h.hand(0) and O2 not in h.hand(0)
