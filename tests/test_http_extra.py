"""The HTTP state and round score of a game with Extra Salt cards and events: the same as
``replay``/``rescore`` give, and a player's view hides what R-X-VIEW hides."""

from __future__ import annotations

import msgspec

from seasalt_log import events as ev
from seasalt_log import replay
from seasalt_log.rescore import rescore
from seasalt_log.view import table_view

from .randomplay import play_random_game
from .test_http import client, live, record, server  # noqa: F401  (fixtures)


def _game_with_a_face_down_shell() -> list[ev.Event]:
    for seed in range(40):
        game = play_random_game(seed, 3, ruleset="extra-salt", events="pepper")
        if any(type(e) is ev.ShellFaceDown for e in game):
            return [msgspec.structs.replace(game[0], game_id="xp")] + game[1:]
    raise AssertionError("no random game places a shell face down")


def test_expansion_states_views_and_scores_over_http(client):  # noqa: F811
    game = _game_with_a_face_down_shell()
    record(client, game)
    dec, enc = msgspec.json.decode, msgspec.json.encode
    placed = next(i for i, e in enumerate(game) if type(e) is ev.ShellFaceDown)
    owner = game[placed].player
    seq = placed + 1
    s = replay.replay(game, seq=seq)
    for seat in range(3):
        view = client.get("/games/xp/state", params={"seq": seq, "as": str(seat)}).json()
        assert view == dec(enc(table_view(s, seat)))
        x = view["extra"]
        assert x["face_down"][owner] is True and owner in x["protected"]   # R-EV-PROTECT
        want = game[placed].card if seat == owner else None                # R-X-VIEW
        assert x["face_down_cards"][owner] == want
        assert x["table_event"] == s.table_event
    for rnd in sorted({e.round for e in game if type(e) is ev.RoundScored}):
        r = client.get(f"/games/xp/rounds/{rnd}/score")
        assert r.status_code == 200, r.text
        assert r.json() == dec(enc(rescore(game, rnd, game_id="xp")))
        assert all(p["effects"] for p in r.json()["players"])              # R-EV-APPLY
