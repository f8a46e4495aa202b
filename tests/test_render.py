"""The text of a state (seasalt_log.render.render_state) says whose view it is: the
table's, a seat's, or a spectator's (R-VIEW: a spectator sees no hand and no deck order,
which the text must not call "not recorded")."""

from __future__ import annotations

from seasalt_log import events as ev
from seasalt_log.engine import State, apply
from seasalt_log.render import render_state
from seasalt_log.view import SPECTATOR, TABLE, seat_viewer, table_view

from .scenario import Game, draw


def _in_play() -> Game:
    g = Game(players=2)
    g.start_round(then=["fish:black", "boat:black"])
    g.play(draw(0, "fish:black", "boat:black"))
    return g


def test_a_spectator_view_says_so_and_keeps_the_deck_order_hidden():
    text = render_state(table_view(_in_play().state, SPECTATOR))
    assert "As seen by a spectator" in text
    assert "order not recorded" not in text and "next:" not in text
    assert "Deck: " in text


def test_the_table_and_a_seat_are_named_as_before():
    state = _in_play().state
    table = render_state(table_view(state, TABLE))
    assert "As seen by" not in table and "(next: " in table     # the table sees the order
    ann = render_state(table_view(state, seat_viewer(0)))
    assert "As seen by " + state.players[0] + " (seat 0)" in ann
    assert "spectator" not in ann


def test_the_table_of_a_log_without_the_deck_order_says_it_is_not_recorded():
    state = State()
    for e in (ev.GameStarted(players=("Ann", "Ben"), game_id="g"),
              ev.RoundStarted(round=1, first_player=0, discards=("crab:black", "shell:grey"))):
        state = apply(state, e)
    table = render_state(table_view(state, TABLE))
    assert "Deck: 56 cards (order not recorded)"    # 58 cards, two discarded in table
    assert "spectator" not in table
    assert "(order not recorded)" not in render_state(table_view(state, SPECTATOR))


def test_an_empty_hand_is_shown_empty_to_those_who_cannot_see_it():
    """Seat 1 holds no card yet: nothing is hidden from seat 0 or a spectator (the text
    said "hand (0): hidden"), while seat 0's one card stays hidden from seat 1."""
    state = _in_play().state
    for viewer in (seat_viewer(0), SPECTATOR):
        lines = render_state(table_view(state, viewer)).splitlines()
        assert lines[lines.index(next(x for x in lines if "(seat 1)" in x)) + 1] == "    hand (0): -"
    lines = render_state(table_view(state, seat_viewer(1))).splitlines()
    assert lines[lines.index(next(x for x in lines if "(seat 0)" in x)) + 1] == "    hand (1): hidden"
