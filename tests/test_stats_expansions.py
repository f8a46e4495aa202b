"""The expansions' read models and ``stats`` reports on small games crafted with the scenario
helper; every expected row is worked by hand from RULES.md §4 and RULES.md §12, §14."""

from __future__ import annotations

import pytest

from seasalt_log import events as ev
from seasalt_log.analytics import run_report
from seasalt_log.service import import_logs
from seasalt_log.store import Store

from .scenario import Game, draw, end, stop

O = ("octopus:light-blue", "octopus:yellow", "octopus:green", "octopus:purple")
P = ("penguin:purple", "penguin:pink", "penguin:light-orange")
SG, SB, SY = "shell:grey", "shell:black", "shell:yellow"
LIGHTHOUSE, CAPTAIN, SHOAL = "lighthouse:purple", "captain:light-orange", "shoal:grey"
FB, BB = "fish:black", "boat:black"


def kraken_game() -> Game:
    """Two rounds of a base game with events, target 10.

    Round 1, table event the Kraken (octopuses 1 point each, R-EV-KRAKEN). Ann holds four
    octopuses (Kraken 4; RULES.md table 9), Ben three penguins and two shells (5 + 2 = 7)
    and calls STOP: Ann 4, Ben 7, Ben wins the round; without the Kraken Ann's 9 beat
    Ben's 7. The Kraken is a first-place event: it goes to Ben (7 against 4, R-EV-AWARD).
    Round 2, table event the Tornado (mermaids 0; nobody holds one). Ann: two octopuses (3),
    a fish, a boat, a shell (0 each, no pair, no multiplier) and a captain (no sailor):
    3. Ben: the same 7 and a shoal (no fish) and calls STOP: totals Ann 7, Ben 14, the game
    ends (target 10) and Ben wins it. Neither event changes round 2's winner.
    """
    g = Game(players=2, target=10, events="pepper", game_id="kraken")
    g.start_round(hands={1: [*P, SG, SB], 0: list(O)}, first=1, event="kraken",
                  then=[LIGHTHOUSE, SY, CAPTAIN, "shell:green"])
    g.play(draw(0, LIGHTHOUSE, SY), end(0), draw(1, CAPTAIN, "shell:green"), stop(1))
    g.derived()
    g.start_round(hands={0: [O[0], O[1], FB, BB, SY], 1: [*P, SG, SB]}, event="tornado",
                  then=[CAPTAIN, "shell:green", SHOAL, "shell:dark-blue"])
    g.play(draw(0, CAPTAIN, "shell:green"), end(0), draw(1, SHOAL, "shell:dark-blue"), stop(1))
    g.derived()
    return g


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    g = kraken_game()
    scored = [e for e in g.events if type(e) is ev.RoundScored]
    assert [list(e.points) for e in scored] == [[4, 7], [3, 7]]       # the worked points
    assert type(g.events[-1]) is ev.GameEnded and g.events[-1].winners == (1,)
    path = tmp_path_factory.mktemp("xstats")
    log = path / "kraken.jsonl"
    log.write_bytes(ev.encode_lines(g.events))
    db = path / "store.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [log]).ok
    return db


def rows(db, sql: str) -> list[tuple]:
    with Store.open(db, read_only=True) as store:
        return store.con.execute(sql).fetchall()


def test_games_say_ruleset_and_events(db):
    assert rows(db, "SELECT ruleset, event_setting FROM games") == [("base", "pepper")]


def test_round_events_and_awards(db):
    """R-EV-APPLY: the table event for both, Ben's Kraken for him only in round 2;
    R-EV-AWARD: the Kraken to Ben after round 1; no award after the last round."""
    assert rows(db, "SELECT round, seat, table_event, held, effects, held_after FROM round_events "
                    "ORDER BY round, seat") == [
        (1, 0, "kraken", [], ["kraken"], []),
        (1, 1, "kraken", [], ["kraken"], ["kraken"]),
        (2, 0, "tornado", [], ["tornado"], None),
        (2, 1, "tornado", ["kraken"], ["kraken", "tornado"], None),
    ]
    assert rows(db, "SELECT round, event, to_seat, discarded_by, discarded, kept, dropped "
                    "FROM event_awards") == [(1, "kraken", 1, [], [], None, None)]


def test_event_outcomes_rescore_without_the_event(db):
    """Round 1 without the Kraken: Ann 9 > Ben 7 (R-SCORE-COLLECT), so it changed the winner."""
    assert rows(db, "SELECT round, event, seats, winners, winners_without, changes_winner "
                    "FROM event_outcomes ORDER BY round, event") == [
        (1, "kraken", [0, 1], [1], [0], True),
        (2, "kraken", [1], [1], [1], False),
        (2, "tornado", [0, 1], [1], [1], False),
    ]
    assert rows(db, "SELECT round, seat, tables, card_points FROM round_extra "
                    "ORDER BY round, seat") == [
        (1, 0, ["kraken"], 4), (1, 1, ["kraken"], 7), (2, 0, ["tornado"], 3),
        (2, 1, ["kraken", "tornado"], 7)]


def test_event_winner_changes_report(db):
    got = [(r["event"], r["rounds"], r["changed"], r["change_rate"])
           for r in run_report(db, "event-winner-changes").dicts()]
    assert got == [("kraken", 2, 1, 0.5), ("tornado", 1, 0, 0.0), ("all", 3, 1, 0.333)]
    ann = [(r["event"], r["rounds"], r["changed"])
           for r in run_report(db, "event-winner-changes", player="Ann").dicts()]
    assert ann == [("kraken", 1, 1), ("tornado", 1, 0), ("all", 2, 1)]


def test_event_holders_report(db):
    """Ben held the Kraken in round 2, won that round (7 > 3) and the game."""
    got = run_report(db, "event-holders").dicts()
    assert [(r["event"], r["rounds_held"], r["round_wins"], r["games_held"], r["game_wins"],
             r["game_win_rate"]) for r in got] == [("kraken", 1, 1, 1, 1, 1.0)]
    assert run_report(db, "event-holders", player="Ann").dicts() == []


def test_extra_points_report_on_a_trio_and_the_seahorse(tmp_path):
    """An Extra Salt round: Ann lays crab+crab with a starfish (1 + 2, R-X-SCORE-STARFISH)
    and holds the seahorse with two shells: it joins the shells, 3 shells 4 points against 2
    (R-X-SCORE-SEAHORSE: +2). Ben (penguins, sailors, the captain) calls STOP."""
    CB, CY, STAR, HORSE = "crab:black", "crab:yellow", "starfish:yellow", "seahorse:white"
    g = Game(players=2, ruleset="extra-salt", game_id="trio")
    g.start_round(hands={0: [CB, CY, STAR, HORSE, SG, SB], 1: [*P, "sailor:orange", "sailor:pink", O[0]]},
                  first=1, then=[CAPTAIN, "shell:green", LIGHTHOUSE, SY, SHOAL, "shell:dark-blue"])
    g.play(draw(1, CAPTAIN, "shell:green"), end(1), draw(0, LIGHTHOUSE, SY),
           ev.StarfishPlayed(player=0, cards=(CB, CY), starfish=STAR), end(0))
    g.play(draw(1, SHOAL, "shell:dark-blue"), stop(1))
    g.derived()
    log = tmp_path / "trio.jsonl"
    log.write_bytes(ev.encode_lines(g.events))
    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [log]).ok
    assert rows(db, "SELECT round, turn, seat, cards, starfish FROM trios") == [
        (1, 14, 0, [CB, CY], STAR)]
    assert rows(db, "SELECT seat, trios, starfish, seahorse, seahorse_points FROM round_extra "
                    "ORDER BY seat") == [(0, 1, 2, "shell", 2), (1, 0, 0, None, 0)]
    got = {r["source"]: (r["points"], r["laid_trios"]) for r in run_report(db, "extra-points").dicts()}
    assert got == {"starfish": (2, 1), "seahorse": (2, None), "cast_of_crabs": (0, None)}


def test_rows_agree_with_the_logged_events(tmp_path):
    """On random legal games of every setting: round_extra's card points are those of each
    round_scored, and there is one trios / face_down_shells / duos row per such event."""
    from .randomplay import play_random_game
    games = [play_random_game(200 + i, 2 + i % 3, ruleset=r, events=e)
             for i, (r, e) in enumerate((("extra-salt", "pepper"), ("base", "pepper"),
                                         ("extra-salt", None)) * 2)]
    log = tmp_path / "g.jsonl"
    log.write_bytes(b"".join(ev.encode_lines(g) for g in games))
    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [log]).ok
    want_points = sorted((g[0].game_id, e.round, p, x) for g in games for e in g
                         if type(e) is ev.RoundScored for p, x in enumerate(e.card_points))
    assert rows(db, "SELECT game_id, round, seat, card_points FROM round_extra "
                    "ORDER BY ALL") == want_points

    def count(*types):
        return sum(type(e) in types for g in games for e in g)
    assert rows(db, "SELECT count(*) FROM trios") == [(count(ev.StarfishPlayed),)]
    assert rows(db, "SELECT count(*) FROM face_down_shells") == [(count(ev.ShellFaceDown),)]
    assert rows(db, "SELECT count(*) FROM duos") == [(count(
        ev.CrabsPlayed, ev.BoatsPlayed, ev.FishPlayed, ev.SharkPlayed, ev.LobsterPlayed,
        ev.JellyfishPlayed, ev.SwimmersPlayed, ev.SharksPlayed),)]
    assert rows(db, "SELECT count(*) FROM event_awards") == [(count(ev.EventAwarded),)]
    assert rows(db, "SELECT count(*) FROM turns WHERE take = 'forced'") == [(count(ev.ForcedDrawn),)]
    # R-EV-AWARD step 4: each event_kept is on its award's row, and what a seat held after a
    # round is what it held during the next one
    kept = sorted((g[0].game_id, e.event) for g in games for e in g if type(e) is ev.EventKept)
    assert kept and rows(db, "SELECT game_id, kept FROM event_awards WHERE kept IS NOT NULL "
                             "ORDER BY ALL") == kept
    assert rows(db, "SELECT count(*) FROM round_events a JOIN round_events b "
                    "ON a.game_id = b.game_id AND a.seat = b.seat AND b.round = a.round + 1 "
                    "WHERE a.held_after IS DISTINCT FROM b.held") == [(0,)]


def test_event_outcomes_without_the_water_rodeo(tmp_path):
    """Table event the Water Rodeo (swimmer+swimmer is a pair, R-EV-WATER-RODEO). Ann holds
    two swimmers (a pair only the rodeo makes: 1), three octopuses (6, R-SCORE-COLLECT) and
    a lighthouse (no boat: 0): 7. Ben holds three penguins and two shells (5 + 2) and a
    captain (no sailor: 0): 7, and calls STOP. Both win the round (7 = 7); without the
    rodeo Ann scores 6 and Ben alone wins. Ben's holding makes no pair with the rodeo: his
    7 stands without it."""
    W = ("swimmer:black", "swimmer:yellow")
    g = Game(players=2, target=10, events="pepper", game_id="rodeo")
    g.start_round(hands={0: [*W, *O[:3]], 1: [*P, SG, SB]}, first=0, event="water-rodeo",
                  then=[LIGHTHOUSE, SY, CAPTAIN, "shell:green"])
    g.play(draw(0, LIGHTHOUSE, SY), end(0), draw(1, CAPTAIN, "shell:green"), stop(1))
    g.derived()
    scored = [e for e in g.events if type(e) is ev.RoundScored]
    assert [list(e.points) for e in scored] == [[7, 7]]
    log = tmp_path / "rodeo.jsonl"
    log.write_bytes(ev.encode_lines(g.events))
    db = tmp_path / "store.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [log]).ok
    assert rows(db, "SELECT round, event, seats, winners, winners_without, changes_winner "
                    "FROM event_outcomes") == [(1, "water-rodeo", [0, 1], [0, 1], [1], True)]
    assert rows(db, "SELECT seat, rodeo_pairs, card_points FROM round_extra ORDER BY seat") == [
        (0, 1, 7), (1, 0, 7)]
