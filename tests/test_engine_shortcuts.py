"""The engine's shortcuts against the slower code they stand for: the card-pair check made
once per ruleset against ``Ruleset.pair_kinds`` (R-DUO-PAIR, R-X-PAIRS), ``without_all`` against
removing one card at a time, and the field-by-field ``round_scored`` check against comparing
with the event ``next_derived`` builds (R-DERIVED), likewise the ``event_awarded`` check,
``player_points``' reuse of a seat's last call against the independent scorer of RULES.md
§12, and a breakdown from those counts against ``scoring.holding_breakdown``."""

from __future__ import annotations

import random

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log.cards import KIND
from seasalt_log.engine import State, apply
from seasalt_log.engine.core import _round_scored_matches, next_derived
from seasalt_log.engine.rulings import rules_for
from seasalt_log.engine.table import without, without_all
from seasalt_log.errors import IllegalMoveError

from .randomplay import play_random_game

PAIR_TYPES = (ev.CrabsPlayed, ev.BoatsPlayed, ev.FishPlayed, ev.SharkPlayed, ev.LobsterPlayed,
              ev.JellyfishPlayed, ev.SwimmersPlayed, ev.SharksPlayed)


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_code_pairs_are_the_kind_pairs_of_the_ruleset(ruleset, events):
    """R-DUO-PAIR, R-X-PAIRS: a card pair passes exactly when its sorted kinds are listed."""
    rules = rules_for(ruleset, events)
    for kind in PAIR_TYPES:
        allowed = rules.pair_kinds(ev.TAGS[kind])
        codes = rules.pair_codes[kind]
        for a in KIND:
            for b in KIND:
                want = tuple(sorted((KIND[a], KIND[b]))) in allowed
                assert ((a, b) in codes) == want, (ev.TAGS[kind], a, b)


def _without_one_by_one(cards: tuple[str, ...], remove: tuple[str, ...]) -> tuple[str, ...] | None:
    for card in remove:
        left = without(cards, card)
        if left is None:
            return None
        cards = left
    return cards


def test_without_all_removes_first_copies_as_one_by_one():
    rng = random.Random(19)
    pool = ["crab:black", "crab:yellow", "boat:black", "mermaid:white", "shell:grey"]
    for _ in range(2000):
        cards = tuple(rng.choice(pool) for _ in range(rng.randrange(8)))
        remove = tuple(rng.choice(pool) for _ in range(rng.randrange(4)))
        assert without_all(cards, remove) == _without_one_by_one(cards, remove)


def _differs(s: State, e: ev.RoundScored) -> bool:
    """The R-DERIVED check as it was: compare with the event ``next_derived`` builds."""
    want = next_derived(s)
    return type(want) is not ev.RoundScored or any(
        getattr(e, name) != getattr(want, name) for name in want.__struct_fields__ if name != "at")


def _variants(e: ev.RoundScored) -> list[ev.RoundScored]:
    """``e`` with one field changed at a time."""
    bump = lambda xs, i: tuple(x + (k == i) for k, x in enumerate(xs))  # noqa: E731
    out = [replace(e, round=e.round + 1), replace(e, caller_won=not e.caller_won),
           replace(e, caller_won=None if e.caller_won is not None else True),
           replace(e, caller=None if e.caller is not None else 0)]
    out += [replace(e, ending=x) for x in ("stop", "last_chance", "deck_out") if x != e.ending]
    for name in ("card_points", "color_bonus", "points", "totals"):
        value = getattr(e, name)
        out += [replace(e, **{name: bump(value, i)}) for i in range(len(value))]
        out.append(replace(e, **{name: value[:-1]}))
    return out


def test_round_scored_check_agrees_with_the_built_event():
    """R-DERIVED: for every round end of 30 random games, the recorded event and one-field
    variants of it pass or fail the shortcut exactly as against ``next_derived``."""
    checked = 0
    for seed in range(30):
        s = State()
        for e in play_random_game(300 + seed, 2 + seed % 3):
            if type(e) is ev.RoundScored:
                assert _round_scored_matches(s, e) and not _differs(s, e)
                for bad in _variants(e):
                    assert _round_scored_matches(s, bad) == (not _differs(s, bad))
                    with pytest.raises(IllegalMoveError, match="R-DERIVED"):
                        apply(s, bad)
                    checked += 1
            s = apply(s, e)
    assert checked > 100


@pytest.mark.parametrize("ruleset,events", [("extra-salt", None), (None, "pepper"),
                                            ("extra-salt", "pepper")])
def test_player_points_as_a_game_runs_equal_the_independent_scorer(ruleset, events):
    """engine.player_points answers again from a seat's last call (same objects), and counts
    a take's new hand from the last count lists: asked state after state as the simulator
    asks (the acting seat, then every seat), it gives what the independent scorer of
    RULES.md §12 gives for the holding and the events in effect (R-X-SCORE, R-EV-APPLY)."""
    from seasalt_log.engine.core import player_points
    from seasalt_log.sim import simulate

    from .extra_scoring_oracle import extra_breakdown as oracle

    n = taken = 0
    for game in simulate(6, 2, 31, None, ruleset, events):
        s = State()
        for e in game:
            before = s
            s = apply(s, e)
            if s.phase != "round":
                continue
            taken += type(e) in (ev.DeckDrawn, ev.DiscardTaken) and before.phase == "round"
            for seat in (s.flow.player, *range(s.n), s.flow.player):
                t = s.table
                want = oracle(t.hands[seat], t.laid[seat], s.effects(seat))["card_points"]
                assert player_points(s, seat) == want, (s, seat)
                n += 1
    assert n > 3000 and taken > 300


def test_dolphin_codes_are_the_cards_of_the_dolphin_kinds():
    """R-EV-DOLPHINS: the collectors (shell, octopus, penguin, sailor) and the seahorse."""
    from seasalt_log.cards import CODES, EXTRA_CODES
    from seasalt_log.engine.rulings import DOLPHIN_CODES

    kinds = {"shell", "octopus", "penguin", "sailor", "seahorse"}
    assert DOLPHIN_CODES == {c for c in (*CODES, *EXTRA_CODES) if c.split(":")[0] in kinds}


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_fewest_mermaids_to_win_is_the_least_any_events_need(ruleset, events):
    """``Ruleset.fewest_mermaids_to_win`` is the least of ``mermaids_to_win_for`` over every
    set of events in effect, also for a ruleset with another count (replace)."""
    from itertools import combinations

    rules = rules_for(ruleset, events)
    for r in (rules, replace(rules, mermaids_to_win=2), replace(rules, mermaids_to_win=5)):
        needs = [r.mermaids_to_win_for(frozenset(c)) for k in (0, 1, 2, 3)
                 for c in combinations(sorted(ev.EVENT_CODES), k)]
        assert r.fewest_mermaids_to_win == min(needs)
    assert rules.fewest_mermaids_to_win == (3 if events else 4)


def test_fewest_mermaids_to_win_cannot_be_passed():
    """The derived count is not a constructor argument: a caller cannot set a wrong one (it
    used to be a field whose passed value was silently overwritten), and it survives the
    ways a ruleset is copied (pickled to a worker, copied, replaced)."""
    import copy
    import pickle

    from seasalt_log.engine.rulings import Ruleset

    with pytest.raises(TypeError, match="fewest_mermaids_to_win"):
        Ruleset(fewest_mermaids_to_win=9)
    with pytest.raises(TypeError, match="fewest_mermaids_to_win"):
        replace(rules_for(None), fewest_mermaids_to_win=9)
    assert "fewest_mermaids_to_win" not in Ruleset.__struct_fields__
    pepper = rules_for("extra-salt", "pepper")
    for r in (pickle.loads(pickle.dumps(pepper)), copy.copy(pepper), copy.deepcopy(pepper)):
        assert r == pepper and r.fewest_mermaids_to_win == 3
    assert replace(pepper, mermaid_events=()).fewest_mermaids_to_win == 4


MERMAID = "mermaid:white"


def _mermaid_need(s: State, seat: int) -> int:
    """R-MERMAID-WIN: 4 mermaids; R-EV-DANCE-OF-THE-MERMAIDS (Ruling): 3 when the Dance of
    the Mermaids is the table event or held by the seat, in a round with a table event."""
    if s.table_event is not None and "dance-of-the-mermaids" in (s.table_event, *s.held[seat]):
        return 3
    return 4


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_a_turns_end_mermaid_win_as_the_rules_count_it(ruleset, events):
    """At every play step of simulated games, the acting seat given 0 to 5 mermaids (and,
    with events, the Dance of the Mermaids as table event, held, or neither) wins at
    ``turn_ended`` exactly when it holds as many as the rules need."""
    from seasalt_log.engine.table import replace_at
    from seasalt_log.sim import simulate

    rng = random.Random(7)
    checked = {True: 0, False: 0}
    for game in simulate(3, 3, 41, None, ruleset, events):
        s = State()
        for e in game:
            if s.phase == "round" and s.flow.step == "play" and not s.flow.due and rng.random() < 0.3:
                p, t = s.flow.player, s.table
                k = rng.randrange(6)
                others = [c for c in t.hands[p] if c != MERMAID]
                hand = tuple(rng.sample(others, min(2, len(others)))) + (MERMAID,) * k
                x = replace(s, table=replace(t, hands=replace_at(t.hands, p, hand)))
                if s.table_event is not None:
                    how = rng.randrange(3)
                    if how == 0:
                        x = x.changed(table_event="dance-of-the-mermaids")
                    elif how == 1:
                        x = x.changed(held=replace_at(x.held, p, ("dance-of-the-mermaids",)))
                after = apply(x, ev.TurnEnded(player=p))
                won = k >= _mermaid_need(x, p)
                assert (after.flow.due == "game_ended" and after.flow.mermaid_winner == p) == won
                checked[won] += 1
            s = apply(s, e)
    assert checked[True] > 20 and checked[False] > 20


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_the_angelfish_take_follows_a_take_as_the_rules_say(ruleset, events):
    """R-EV-ANGELFISH: after every take step of simulated games (a deck draw, a discard
    taken), the Angelfish take is due exactly when both piles have cards, their tops share
    a colour, and the Angelfish is the table event or held by the player (R-EV-APPLY). With
    events, each take is also tried with the Angelfish made the table event, held by the
    player, or held by another seat only (under another table event; takes under the
    Dolphins, whose draw another event would refuse, are not tried)."""
    from seasalt_log.cards import COLOR
    from seasalt_log.engine.table import replace_at
    from seasalt_log.sim import simulate

    def due_after(s: State, seat: int) -> bool:
        p0, p1 = s.table.piles
        return bool(s.table_event is not None and p0 and p1 and COLOR[p0[-1]] == COLOR[p1[-1]]
                    and "angelfish" in (s.table_event, *s.held[seat]))

    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for game in simulate(20, 3, 43, None, ruleset, events):
        s = State()
        for e in game:
            after = apply(s, e)
            if type(e) in (ev.DeckDrawn, ev.DiscardTaken):
                due = due_after(after, e.player)
                assert (after.flow.step == "angel") == due
                seen[due] += 1
                if s.table_event is not None and "dolphins" not in s.effects(e.player):
                    p, other = e.player, (e.player + 1) % len(s.players)
                    x = [s.changed(table_event="angelfish"),
                         s.changed(held=replace_at(s.held, p, ("angelfish",))),
                         s.changed(table_event="kraken", held=replace_at(s.held, other, (
                             "angelfish",)))][rng.randrange(3)]
                    tried = apply(x, e)
                    due = due_after(tried, p)
                    assert (tried.flow.step == "angel") == due
                    seen[due] += 1
            s = after
    assert seen[False] > 100 and (seen[True] > 0) == (events is not None)


def test_the_events_in_effect_as_the_rules_say_asked_in_any_order():
    """R-EV-APPLY: a seat's events in effect are the round's table event and the events the
    seat holds (none without a table event), whatever was asked before: every state and seat
    of simulated games with events asked game after game, then the states of several games
    interleaved in a random order, then the same seat with other held tuples (equal ones
    that are other objects among them) and other table events."""
    from seasalt_log.sim import simulate

    def want(s: State, seat: int) -> frozenset[str]:
        if s.table_event is None:
            return frozenset()
        return frozenset((s.table_event, *s.held[seat]))

    asks: list[tuple[State, int]] = []
    for game in simulate(12, 4, 51, None, "extra-salt", "pepper"):
        s = State()
        for e in game:
            s = apply(s, e)
            for seat in range(s.n):
                assert s.effects(seat) == want(s, seat)
                asks.append((s, seat))
    assert sum(1 for s, _ in asks if s.table_event is not None) > 1000
    rng = random.Random(52)
    for s, seat in rng.sample(asks, 3000):
        assert s.effects(seat) == want(s, seat)
    # the same seat asked with other held tuples (equal or not) and other table events
    s = next(s for s, _ in asks if s.table_event is not None and any(s.held))
    seat = next(i for i, h in enumerate(s.held) if h)
    others = sorted(set(ev.EVENT_CODES) - {s.table_event, *s.held[seat]})
    for held in (tuple(s.held[seat]), (others[0],), (), (others[0], others[1]),
                 tuple(list(s.held[seat]))):
        for event in (s.table_event, others[2], "".join(list(s.table_event))):
            t = s.changed(table_event=event,
                          held=tuple(held if i == seat else h for i, h in enumerate(s.held)))
            assert t.effects(seat) == frozenset((event, *held))
            assert s.effects(seat) == want(s, seat)


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_free_pair_codes_are_the_pairs_no_event_is_needed_for(ruleset, events):
    """R-X-TRIO's first test: a card pair is in ``free_pair_codes`` exactly when its sorted
    kinds are a pair of a type the ruleset lists and no event must be in effect for
    (R-EV-WATER-RODEO's types need one)."""
    rules = rules_for(ruleset, events)
    by_event = {tag for tag, _ in rules.event_pairs}
    free = {kinds for tag, allowed in rules.pairs if tag not in by_event for kinds in allowed}
    for a in KIND:
        for b in KIND:
            want = tuple(sorted((KIND[a], KIND[b]))) in free
            assert ((a, b) in rules.free_pair_codes) == want, (a, b)


def _agrees(matches, s: State, bad, want) -> None:
    """The engine's field-by-field check ``matches`` passes ``bad`` exactly when it equals
    the derived event ``want`` (its time aside); else ``apply`` refuses it (R-DERIVED)."""
    same = all(getattr(bad, n) == getattr(want, n) for n in want.__struct_fields__ if n != "at")
    assert matches(s, bad) == same
    if not same:
        with pytest.raises(IllegalMoveError, match="R-DERIVED"):
            apply(s, bad)


def _award_variants(e: ev.EventAwarded) -> list[ev.EventAwarded]:
    """``e`` with one thing changed at a time."""
    other = next(c for c in ev.EVENT_CODES if c != e.event)
    out = [replace(e, round=e.round + 1), replace(e, event=other),
           replace(e, to=None if e.to is not None else 0),
           replace(e, to=(e.to or 0) + 1),
           replace(e, discarded=(*e.discarded, ev.EventDiscard(player=0, event=other)))]
    d = e.discarded
    if d:
        out += [replace(e, discarded=d[:-1]), replace(e, discarded=d[1:]),
                replace(e, discarded=tuple(reversed(d))) if len(d) > 1 else e,
                replace(e, discarded=(replace(d[0], player=d[0].player + 1), *d[1:])),
                replace(e, discarded=(replace(d[0], event=other), *d[1:])),
                # built in Python, not decoded: a list, or items that are not EventDiscards
                replace(e, discarded=list(d)),
                replace(e, discarded=tuple({"player": x.player, "event": x.event} for x in d))]
    return [x for x in out if x is not e]


def test_event_awarded_check_agrees_with_the_built_event():
    """R-DERIVED, R-EV-AWARD: for every ``event_awarded`` of simulated games with events, the
    recorded event and variants of it pass the field-by-field check exactly when they equal
    the event ``next_derived`` builds; each variant is refused."""
    from seasalt_log.engine.core import _award_matches
    from seasalt_log.engine.rulings import EVENT_PLACES
    from seasalt_log.sim import simulate

    checked = 0
    for ruleset in (None, "extra-salt"):
        rules = rules_for(ruleset, "pepper")
        assert rules.first_place == {c: p == "first" for c, p in EVENT_PLACES}
        for game in simulate(8, 3, 41, None, ruleset, "pepper"):
            s = State()
            for e in game:
                if type(e) is ev.EventAwarded:
                    want = next_derived(s)
                    assert _award_matches(s, e) and want == replace(e, at=want.at)
                    for bad in _award_variants(e):
                        _agrees(_award_matches, s, bad, want)
                        checked += 1
                s = apply(s, e)
    assert checked > 100


@pytest.mark.parametrize("ruleset,events", [("extra-salt", None), ("extra-salt", "pepper")])
def test_a_breakdown_after_a_seats_points_is_the_scorings(ruleset, events):
    """R-X-SCORE: the engine's breakdown of a seat (each round end's, ``round_breakdowns``)
    may take the counts ``player_points`` made for the seat's holding; asked after
    ``player_points`` of the state before (the holding changed or not), or after the
    breakdown of the state before (a call's, kept for the round's end it brings), it is
    ``scoring.holding_breakdown``'s of the holding and the events in effect."""
    from seasalt_log.engine.core import _breakdown, player_points
    from seasalt_log.scoring import holding_breakdown
    from seasalt_log.sim import simulate

    n = 0
    for game in simulate(4, 3, 43, None, ruleset, events):
        s = State()
        for e in game:
            before, s = s, apply(s, e)
            if before.phase != "round" or s.phase != "round":
                continue
            for seat in range(s.n):
                if n % 2:
                    player_points(before, seat)
                else:
                    _breakdown(before, seat)
                t = s.table
                face_down = int(t.face_down[seat] is not None) if s.table_event else 0
                want = holding_breakdown(t.hands[seat], t.laid[seat], s.ruleset,
                                         s.effects(seat), face_down)
                assert _breakdown(s, seat) == want
                n += 1
    assert n > 1000


def test_game_ended_check_agrees_with_the_built_event():
    """R-DERIVED, R-GAME-1, R-MERMAID-WIN: for every ``game_ended`` of random games of each
    setting, the recorded event and one-field variants of it pass the field-by-field check
    exactly when they equal the event ``next_derived`` builds; each variant is refused."""
    from seasalt_log.engine.core import _game_ended_matches
    from seasalt_log.sim import simulate

    checked = 0
    seen = set()
    for games, players, ruleset, events in ((20, 2, None, None), (10, 3, "extra-salt", "pepper")):
        for game in simulate(games, players, 47, None, ruleset, events):
            s = State()
            for e in game:
                if type(e) is ev.GameEnded:
                    want = next_derived(s)
                    assert _game_ended_matches(s, e) and want == replace(e, at=want.at)
                    seen.add(e.reason)
                    bump = tuple(t + (i == 0) for i, t in enumerate(e.totals))
                    for bad in (replace(e, reason="mermaids" if e.reason == "target" else "target"),
                                replace(e, winners=e.winners[:-1]),
                                replace(e, winners=(*e.winners, (e.winners[-1] + 1) % s.n)),
                                replace(e, totals=bump), replace(e, totals=e.totals[:-1])):
                        _agrees(_game_ended_matches, s, bad, want)
                        checked += 1
                s = apply(s, e)
    assert checked >= 100 and seen == {"target", "mermaids"}


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_shared_turn_flows_are_the_flows_the_handlers_make(ruleset, events, monkeypatch):
    """R-FLOW: a plain turn's flows (``core._PLAIN``, shared by every state at that round,
    turn, player and step) equal the flows each event's rules make without them: every
    event of random games applied with them kept and with none kept gives equal states."""
    from seasalt_log.engine import core
    from seasalt_log.sim import simulate

    shared = n = 0
    for game in simulate(4, 3, 47, None, ruleset, events):
        s = State()
        for e in game:
            before, s = s, apply(s, e)
            with monkeypatch.context() as m:    # nothing kept: every flow made by replace
                m.setattr(core, "_PLAIN", [[] for _ in range(32)])
                alone = apply(before, e)
            assert alone == s, (ev.TAGS[type(e)], s.flow, alone.flow)
            f = s.flow
            try:
                kept = core._PLAIN[f.round][f.turn][f.player]
            except IndexError:
                kept = None
            shared += kept is not None and any(f is x for x in kept)
            n += 1
    assert shared > n / 3           # the shortcut is taken: most turns are plain


def test_a_round_started_by_a_seat_out_of_range_is_refused_with_shared_flows():
    """R-FLOW-PLAYER: a round started by a negative seat is refused, as by the engine without
    the kept flows (a negative index would have found another seat's kept flow)."""
    from seasalt_log.engine import fold
    from seasalt_log.sim import simulate

    game = list(simulate(1, 4, 3, None, None, None))[0]
    fold(game)                      # the genuine game first: its flows are kept
    i = next(i for i, e in enumerate(game) if type(e) is ev.RoundStarted)
    bad = game[:i] + [replace(game[i], first_player=game[i].first_player - 8)] + game[i + 1:]
    with pytest.raises(IllegalMoveError) as err:
        fold(bad)
    assert err.value.rule == "R-FLOW-PLAYER"


@pytest.mark.parametrize("ruleset,events", [(None, None), ("extra-salt", None),
                                            (None, "pepper"), ("extra-salt", "pepper")])
def test_every_input_event_is_refused_while_a_derived_event_is_owed(ruleset, events):
    """R-DERIVED: ``check_game`` looks for a derived event the log left out only when an
    input event is refused, so no input event may pass while one is owed. Each input event
    of simulated games (every type the games reach, a forced turn's end included) is refused
    by the state before it with any derived event made due, and accepted without."""
    from seasalt_log.errors import SeasaltError
    from seasalt_log.sim import simulate

    seen: set[type] = set()
    for game in simulate(4, 3, 53, None, ruleset, events):
        s = State()
        for e in game:
            if type(e) not in ev.DERIVED_TYPES and s.phase != "new":
                for due in ("round_scored", "event_awarded", "game_ended"):
                    with pytest.raises(SeasaltError):
                        apply(replace(s, flow=replace(s.flow, due=due)), e)
                seen.add(type(e))
            s = apply(s, e)
    assert ev.TurnEnded in seen and ev.DeckDrawn in seen and ev.RoundStarted in seen
    if ruleset:
        assert ev.ForcedDrawn in seen
