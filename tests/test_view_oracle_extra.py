"""Player views of expansion games against the oracle of R-X-VIEW (tests/view_oracle.py):
random ``extra-salt`` games with and without events, every point, every seat. The last
tests make sure the checks fail when a view or a log line shows what R-X-VIEW hides."""

from __future__ import annotations

import json

import pytest
from msgspec.structs import replace

from seasalt_log import events as ev
from seasalt_log import narration, render
from seasalt_log import replay as replay_mod
from seasalt_log import view as view_mod

from . import view_oracle as oracle
from .randomplay import play_random_game
from .test_view_oracle import check_views

#: (seed, players, ruleset, events): Extra Salt alone, events alone, both
GAMES = [(seed, 2 + seed % 3, ruleset, events)
         for seed in range(8)
         for ruleset, events in (("extra-salt", None), (None, "pepper"), ("extra-salt", "pepper"))]


@pytest.fixture(scope="module")
def games():
    return [(f"random-{r}-{e}-{seed}", play_random_game(seed, n, ruleset=r, events=e))
            for seed, n, r, e in GAMES]


def test_the_games_reach_the_hidden_information_of_r_x_view(games):
    """The games do exercise every event type R-X-VIEW speaks of, else the check is weak."""
    seen = {type(e) for _, g in games for e in g}
    assert {ev.LobsterPlayed, ev.JellyfishPlayed, ev.ForcedDrawn, ev.StarfishPlayed,
            ev.AngelfishTaken, ev.ShellFaceDown, ev.SwimmersPlayed, ev.SharksPlayed,
            ev.EventKept, ev.EventAwarded} <= seen, seen
    fields = {f for _, g in games for e in g for f, on in (
        ("hermit", type(e) is ev.CrabsPlayed and bool(e.takes)),
        ("sunfish", type(e) is ev.FishPlayed and e.also_drew is not None),
        ("dolphins", type(e) is ev.DeckDrawn and e.dolphins_drew is not None)) if on}
    assert fields == {"hermit", "sunfish", "dolphins"}, fields


def test_views_of_expansion_games_agree_with_the_oracle(games):
    """R-X-VIEW: every view and log line of every seat shows only what the oracle allows."""
    assert sum(check_views(g, name) for name, g in games) > 1000


def _first(games, t, where=lambda e: True):
    """The first game with an event of type ``t`` (for which ``where`` holds), up to it."""
    for name, g in games:
        for i, e in enumerate(g):
            if type(e) is t and where(e):
                return name, g[:i + 1]
    raise AssertionError(f"no {t.__name__}")


def _first_look(games):
    """The first game with two swimmers that chose a player, up to that event."""
    return _first(games, ev.SwimmersPlayed, lambda e: e.victim is not None)


def test_a_leaked_face_down_shell_is_caught(games, monkeypatch):
    """R-EV-CORAL-REEF, R-X-VIEW: showing another player's face-down shell fails the check."""
    name, g = _first(games, ev.ShellFaceDown)
    real = view_mod.extra_view
    monkeypatch.setattr(view_mod, "extra_view", lambda s, viewer=None: real(s, None))
    with pytest.raises(AssertionError, match="the view names"):
        check_views(g, name)


@pytest.mark.parametrize("t", [ev.LobsterPlayed, ev.ForcedDrawn, ev.ShellFaceDown])
def test_a_leaked_private_card_in_the_log_is_caught(games, monkeypatch, t):
    """R-X-VIEW: a log line telling another player the lobster's cards, a forced take or a
    face-down shell fails the check."""
    name, g = _first(games, t)
    real = narration.describe
    monkeypatch.setattr(narration, "describe", lambda e, s, viewer=None:
                        real(e, s, None if type(e) is t else viewer))
    with pytest.raises(AssertionError, match="the line"):
        check_views(g, name)


def test_a_leaked_look_at_a_hand_is_caught(games, monkeypatch):
    """R-X-VIEW: the chosen player's hand sent to every seat, not only to the swimmers'
    player, fails the check."""
    name, g = _first_look(games)
    monkeypatch.setattr(view_mod, "looked_at", lambda e, viewer, before: tuple(
        sorted(before.table.hands[e.victim])) if e.victim is not None else None)
    with pytest.raises(AssertionError, match="the redacted event names|looked_at"):
        check_views(g, name)


def test_a_look_at_a_hand_left_out_is_caught(games, monkeypatch):
    """R-X-VIEW ("the player sees the chosen player's whole hand"): a player's copy of the
    swimmers without the hand fails the check."""
    name, g = _first_look(games)
    monkeypatch.setattr(view_mod, "looked_at", lambda e, viewer, before: None)
    with pytest.raises(AssertionError, match="looked_at"):
        check_views(g, name)


def test_a_look_folded_as_a_reveal_is_caught(games, monkeypatch):
    """A look is not a reveal (R-LAST-3 alone reveals in a round): a view that goes on
    showing the swimmers' player the chosen hand fails the check."""
    name, g = _first_look(games)
    e = g[-1]
    real = view_mod.table_view

    def table_view(state, viewer=None, **kw):
        view = real(state, viewer, **kw)
        if viewer != e.player or state.seq < len(g):
            return view
        seats = list(view.seats)
        seats[e.victim] = real(state).seats[e.victim]
        return replace(view, seats=tuple(seats))

    monkeypatch.setattr(view_mod, "table_view", table_view)
    with pytest.raises(AssertionError, match="RULES.md §7 allows"):
        check_views(g, name)


def test_the_face_down_shell_stays_hidden_after_the_round_is_scored(games):
    """R-X-VIEW (Ruling): the face-down shell's colour stays hidden for the whole round,
    even when every hand is shown at the scoring; its owner sees it."""
    for _name, g in games:
        placed = [i for i, e in enumerate(g) if type(e) is ev.ShellFaceDown]
        scored = [i for i, e in enumerate(g) if type(e) is ev.RoundScored and e.ending != "deck_out"
                  and placed and i > placed[0]]
        if scored and not any(type(e) is ev.RoundStarted for e in g[placed[0]:scored[0]]):
            break
    else:
        raise AssertionError("no game scores a round with a face-down shell")
    shell = g[placed[0]]
    s = replay_mod.replay(g[:scored[0] + 1])          # every hand is shown (R-STOP, R-LAST-4)
    owner, other = shell.player, (shell.player + 1) % s.n
    seen = view_mod.table_view(s, other)
    assert all(seat.hand is not None for seat in seen.seats)
    assert seen.extra.face_down[owner] is True and seen.extra.face_down_cards[owner] is None
    assert view_mod.table_view(s, owner).extra.face_down_cards[owner] == shell.card
    text = render.render_state(seen)
    assert "face down: a shell (hidden)" in text


def _cards_in(value) -> list[str]:
    """Every card code in a redacted event's JSON (or a part of it)."""
    if isinstance(value, str):
        return [value] if value in ev_codes() else []
    if isinstance(value, (list, tuple)):
        return [c for v in value for c in _cards_in(v)]
    if isinstance(value, dict):
        return [c for k, v in value.items() if k != "type" for c in _cards_in(v)]
    return []


def ev_codes() -> frozenset[str]:
    from seasalt_log.cards import ALL_CODES
    return frozenset(ALL_CODES)


#: R-X-VIEW: the expansions' events whose every card is public
PUBLIC = (ev.JellyfishPlayed, ev.StarfishPlayed, ev.AngelfishTaken, ev.SharksPlayed,
          ev.EventKept, ev.EventAwarded)


def expected_for(e, seat: int | None, before) -> dict:
    """The event's JSON as the reader ``seat`` (None: a spectator) may see it, from
    R-X-VIEW's text alone: public events whole; the lobster's laid pair public, the cards
    seen and kept its player's only, the new deck order nobody's; a swimmers' swap the
    player's and the chosen player's, the chosen player's whole hand the player's alone
    (``looked_at``, the hand in ``before``, the state before the event); a forced take and
    a face-down shell their player's; the cards the Dolphins, the Sunfish and the Hermit
    Crab add to base events the player's."""
    want = json.loads(ev.encode(e))
    looked = oracle.looks_at(e, seat)
    if looked is not None:
        want["looked_at"] = {"seat": looked, "hand": sorted(before.table.hands[looked])}
    mine = seat == getattr(e, "player", None)
    if type(e) in PUBLIC:
        return want
    if type(e) is ev.LobsterPlayed:
        if e.deck:
            want["deck"] = [None] * len(e.deck)
        if not mine:
            want["kept"] = None
            if e.seen is not None:
                want["seen"] = [None] * len(e.seen)
        return want
    if type(e) is ev.SwimmersPlayed:
        if not mine and seat != e.victim:       # who was chosen and whether they swapped
            want["gave"] = want["got"] = None
            want["swapped"] = e.gave is not None
        return want
    if mine:
        return want
    if type(e) not in ev.BASE_TYPES:
        return {k: v if k == "type" or not _cards_in(v) else
                (None if isinstance(v, str) else [None] * len(v)) for k, v in want.items()}
    for f in ("dolphins_drew", "also_drew", "takes"):
        if want.get(f) is not None:
            want[f] = _hide(want[f])
    return want


def _hide(value):
    if isinstance(value, str):
        return None if value in ev_codes() else value
    if isinstance(value, list):
        return [_hide(v) for v in value]
    if isinstance(value, dict):
        return {k: _hide(v) if k != "type" else v for k, v in value.items()}
    return value


def test_redacted_expansion_events_show_what_r_x_view_allows(games):
    """R-X-VIEW over the HTTP stream: each reader (the acting player, another seat, the
    chosen player of a swap, a spectator) gets exactly what the rule lets it see of the
    expansions' own events and of the cards they add to base events; the table gets the
    whole event."""
    checked = 0
    kinds = set()
    swaps: set[bool] = set()
    looks = 0
    for _, g in games:
        for i, e in enumerate(g):
            player = getattr(e, "player", None)
            private = type(e) not in ev.BASE_TYPES or any(
                getattr(e, f, None) for f in ("dolphins_drew", "also_drew", "takes"))
            if not private or (player is None and type(e) not in PUBLIC):
                continue
            after = replay_mod.replay(g[:i + 1])
            before = replay_mod.replay(g[:i]) if i else after
            n = len(g[0].players)
            readers = [(None, view_mod.SPECTATOR)] + [(s, view_mod.seat_viewer(s)) for s in range(n)]
            for seat, viewer in readers:
                got = view_mod.redact(e, viewer, before, after)
                want = expected_for(e, seat, before)
                got = {k: v for k, v in json.loads(json.dumps(got)).items() if k != "shown"}
                if type(e) in ev.BASE_TYPES:        # only the expansions' fields asked here
                    got = {f: got.get(f) for f in ("dolphins_drew", "also_drew", "takes")}
                    want = {f: want.get(f) for f in ("dolphins_drew", "also_drew", "takes")}
                assert got == want, (type(e).__name__, seat, got, want)
            assert view_mod.redact(e, view_mod.TABLE, before, after) is e
            kinds.add(type(e))
            if type(e) is ev.SwimmersPlayed:
                swaps.add(e.gave is not None)
                looks += e.victim is not None
            checked += 1
    assert checked > 50
    assert {ev.LobsterPlayed, ev.SwimmersPlayed, ev.ForcedDrawn, ev.ShellFaceDown,
            *PUBLIC} <= kinds, kinds
    assert swaps == {True, False}, swaps        # a swap and a pass both met
    assert looks > 0
