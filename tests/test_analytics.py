"""Read models, rebuild, reports and Parquet export on stores whose answers are known.

The report tests use the four hand-made games of ``analytics_games.py``; every expected
number below is worked out from the comments there (kept as the arithmetic, not as output).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.analytics import docs, list_reports, run_report
from seasalt_log.analytics.parquet import PARQUET_TABLES, export_parquet
from seasalt_log.errors import SeasaltError
from seasalt_log.service import import_logs
from seasalt_log.store import Store
from seasalt_log.store import rebuild as rebuild_mod
from seasalt_log.store.projections import CARDS, PROJECTIONS_VERSION, SCHEMA, TABLES, VIEWS
from seasalt_log.store.rebuild import rebuild
from seasalt_log.store.schema import full_ddl

try:
    from . import analytics_games as fx
    from .parquet_checks import assert_export_keeps_games_whole
    from .randomplay import play_random_game
except ImportError:      # tests/ run as a plain directory
    import analytics_games as fx  # type: ignore[no-redef]
    from parquet_checks import assert_export_keeps_games_whole  # type: ignore[no-redef]
    from randomplay import play_random_game  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def approx(value, digits):
    """A number as shown rounded to ``digits`` places."""
    return pytest.approx(value, abs=0.5 * 10 ** -digits + 1e-9)


@pytest.fixture(scope="module")
def fixture_db(tmp_path_factory) -> Path:
    """The four hand-made games, imported."""
    d = tmp_path_factory.mktemp("analytics")
    log = d / "games.jsonl"
    log.write_bytes(fx.log_bytes())
    db = d / "fx.duckdb"
    with Store.open(db) as store:
        summary = import_logs(store, [log])
    assert (summary.new, summary.failed) == (4, 0), summary.games
    return db


def report(db, name, **filters) -> list[dict]:
    return run_report(db, name, **filters).dicts()


def snapshot(con) -> dict[str, list[tuple]]:
    """Every read-model table, rows in a stable order."""
    return {t.name: con.execute(f"SELECT * FROM {t.name} ORDER BY {', '.join(t.order)}").fetchall()
            for t in (*SCHEMA, CARDS)}


# ---------------------------------------------------------------- read models

def test_turns_rows(fixture_db):
    con = duckdb.connect(str(fixture_db), read_only=True)
    cols = ("take", "drawn", "kept", "discarded", "discard_pile", "pile", "boat_takes",
            "boat_kept", "duos", "ended", "final", "hand_size", "card_points", "deck_left")

    def turn(game, rnd, t):
        row = con.execute(f"SELECT seat, {', '.join(cols)} FROM turns WHERE game_id = ? AND "
                          "round = ? AND turn = ?", [game, rnd, t]).fetchone()
        return dict(zip(("seat",) + cols, row))

    # G1 R4 T4: Ben takes crab:black from pile 1, plays crabs; holds shell:grey + a laid pair
    t = turn("G1", 4, 4)
    assert t["seat"] == 1 and t["take"] == "discard" and t["kept"] == "crab:black"
    assert (t["pile"], t["drawn"], t["duos"], t["boat_takes"]) == (1, None, 1, 0)
    assert (t["hand_size"], t["card_points"], t["ended"]) == (1, 1, "turn_ended")
    # G1 R4 T8: the boat pair's extra take brings fish:yellow
    t = turn("G1", 4, 8)
    assert (t["take"], t["kept"], t["boat_takes"], t["boat_kept"], t["duos"]) == (
        "discard", "boat:yellow", 1, ["fish:yellow"], 1)
    assert (t["hand_size"], t["card_points"]) == (2, 2)
    # G1 R4 T9: Ann draws two, keeps the octopus, discards the mermaid on pile 0, STOP with 11;
    # 56 - 2 cards per deck draw (turns 1, 3, 5, 7, 9) = 46 left
    t = turn("G1", 4, 9)
    assert (t["seat"], t["take"], t["drawn"], t["kept"], t["discarded"], t["discard_pile"]) == (
        0, "deck", ["octopus:grey", "mermaid:white"], "octopus:grey", "mermaid:white", 0)
    assert (t["ended"], t["card_points"], t["deck_left"]) == ("stop", 11, 56 - 2 * 5)
    # G1 R2 T6 is Ann's final turn after Ben's LAST CHANCE on T5
    assert turn("G1", 2, 5)["ended"] == "last_chance" and not turn("G1", 2, 5)["final"]
    assert turn("G1", 2, 6)["final"] and turn("G1", 2, 6)["card_points"] == 4
    # G4: Ann's turn 2 is in play
    t = turn("G4", 1, 2)
    assert (t["ended"], t["take"], t["kept"], t["pile"]) == (None, "discard", "fish:black", 0)
    assert con.execute("SELECT count(*) FROM turns WHERE game_id = 'G1'").fetchone()[0] == 5 + 6 + 28 + 9
    con.close()


def test_duos_rows(fixture_db):
    con = duckdb.connect(str(fixture_db), read_only=True)
    rows = con.execute("SELECT round, turn, seat, kind, cards, effect, card, pile, victim FROM duos "
                       "ORDER BY game_id, seq").fetchall()
    con.close()
    assert rows == [
        (3, 28, 1, "fish", ["fish:dark-blue", "fish:dark-blue"], False, None, None, None),
        (4, 4, 1, "crab", ["crab:dark-blue", "crab:black"], True, "shell:grey", 0, None),
        (4, 8, 1, "boat", ["boat:black", "boat:yellow"], True, None, None, None),
    ]


def test_shark_duo_row():
    """A shark pair's victim and stolen card land in duos (a random game with a steal)."""
    from seasalt_log.engine import fold
    from seasalt_log.importers.jsonl import RawGame, check_game
    from seasalt_log.store.projections import project
    for seed in range(60):
        events = play_random_game(seed, 3)
        sharks = [e for e in events if type(e) is ev.SharkPlayed and e.victim is not None]
        if sharks:
            break
    game = check_game(RawGame(source="-", events=events, lines=list(range(1, len(events) + 1))))
    rows = project(game.game_id, game.events, game.states)["duos"]
    got = [r for r in rows if r[5] == "shark" and r[10] is not None]
    assert [(r[8], r[10]) for r in got] == [(e.stole, e.victim) for e in sharks]
    assert fold(events).phase == "ended"


def test_round_results_scored_parts(fixture_db):
    con = duckdb.connect(str(fixture_db), read_only=True)
    rows = con.execute("SELECT round, seat, card_points, color_bonus, points, card_points_scored, "
                       "color_bonus_scored FROM round_results WHERE game_id = 'G1' ORDER BY round, seat"
                       ).fetchall()
    con.close()
    assert rows[:4] == [
        (1, 0, 11, rows[0][3], 11, True, False),     # STOP: card points for everyone
        (1, 1, 1, rows[1][3], 1, True, False),
        (2, 0, 4, 1, 1, False, True),                # LAST CHANCE won by Ben: Ann only her bonus
        (2, 1, 7, 1, 7 + 1, True, True),             # Ben: card points + bonus
    ]
    assert [r[4:] for r in rows[4:6]] == [(0, False, False)] * 2     # R3 deck-out


def test_cards_catalog_written_once(tmp_path):
    db = tmp_path / "c.duckdb"
    for _ in range(2):            # opening again does not add the rows twice
        Store.open(db).close()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), sum(copies) FROM cards WHERE ruleset = 'base'").fetchone() == (46, 58)
    # R-X-CARDS-1: 8 more cards (8 codes) in the extra-salt deck
    assert con.execute("SELECT count(*), sum(copies) FROM cards").fetchone() == (54, 66)
    assert con.execute("SELECT pairs_with, family FROM cards WHERE code = 'lobster:black'").fetchone() == ("crab", "duo")
    assert con.execute("SELECT multiplies FROM cards WHERE code = 'castofcrabs:green'").fetchone() == ("crab",)
    assert con.execute("SELECT pairs_with FROM cards WHERE code = 'swimmer:black'").fetchone() == ("shark",)
    assert con.execute("SELECT multiplies FROM cards WHERE code = 'colony:green'").fetchone() == ("penguin",)
    con.close()


def test_views(fixture_db):
    con = duckdb.connect(str(fixture_db), read_only=True)
    calls = con.execute("SELECT game_id, round, turn, name, call, card_points, outcome FROM v_calls "
                        "ORDER BY game_id, round").fetchall()
    assert calls == [("G1", 1, 5, "Ann", "stop", 11, None), ("G1", 2, 5, "Ben", "last_chance", 7, "won"),
                     ("G1", 4, 9, "Ann", "stop", 11, None), ("G3", 1, 6, "Cid", "last_chance", 7, "lost"),
                     ("G3", 2, 7, "Ben", "last_chance", 7, "tied")]
    wins = con.execute("SELECT name, count(*) FILTER (WHERE winner) FROM v_player_games "
                       "GROUP BY name ORDER BY name").fetchall()
    assert wins == [("Ann", 2), ("Ben", 1), ("Cid", 0), ("Dee", 0)]
    assert con.execute("SELECT count(*) FROM v_round_results WHERE is_caller").fetchone()[0] == 5
    assert con.execute("SELECT count(*) FROM v_turns WHERE name = 'Dee'").fetchone()[0] == 1
    con.close()


# ---------------------------------------------------------------- reports

def test_every_report_has_a_description_and_both_filters():
    names = [r.name for r in list_reports()]
    assert names == sorted(["overview", "win-rates", "calls", "last-chance", "round-length",
                            "points-by-source", "duos", "mermaid-wins", "players",
                            "event-holders", "event-winner-changes", "extra-points"])
    for r in list_reports():
        assert r.description and r.sql.startswith("-- ")
        assert "$player" in r.sql.replace("$players", "") and "$players" in r.sql, r.name


def test_overview(fixture_db):
    rows = report(fixture_db, "overview")
    # 2 players: G1 (4 rounds, 5 + 6 + 28 + 9 turns), G3 (2 rounds, 7 + 8), G4 (1 round, 2 turns)
    # events: G1 1 + 12 + 14 + 59 + 23 + 1, G3 1 + 16 + 18 + 1, G4 1 + 1 + 2 + 1
    turns2 = (5 + 6 + 28 + 9) + (7 + 8) + 2
    events2 = (1 + 12 + 14 + 59 + 23 + 1) + (1 + 16 + 18 + 1) + (1 + 1 + 2 + 1)
    assert rows[0] == {"players": 2, "games": 3, "ended": 2, "in_progress": 1, "rounds": 7,
                       "turns": turns2, "events": events2, "rounds_per_game": approx(7 / 3, 2),
                       "turns_per_round": approx(turns2 / 7, 2)}
    # 3 players: G2, one round of 10 turns; 1 + 1 + 10 * 2 + 1 events
    assert rows[1] == {"players": 3, "games": 1, "ended": 1, "in_progress": 0, "rounds": 1,
                       "turns": 10, "events": 23, "rounds_per_game": 1.0, "turns_per_round": 10.0}
    assert rows[2]["players"] == None and rows[2]["games"] == 4 and rows[2]["events"] == events2 + 23
    assert rows[2]["turns_per_round"] == approx((turns2 + 10) / 8, 2)
    assert [r["games"] for r in report(fixture_db, "overview", player="Dee")] == [1, 1]
    assert [r["players"] for r in report(fixture_db, "overview", players=3)] == [3, None]


def test_overview_of_an_empty_store_counts_zero(tmp_path):
    """No games: every count is 0 (the events too), the averages have nothing to divide."""
    with Store.open(tmp_path / "empty.duckdb"):
        pass
    assert report(tmp_path / "empty.duckdb", "overview") == [
        {"players": None, "games": 0, "ended": 0, "in_progress": 0, "rounds": 0, "turns": 0,
         "events": 0, "rounds_per_game": None, "turns_per_round": None}]


def test_win_rates(fixture_db):
    rows = {(r["players"], r["seat"]): (r["games"], r["wins"], r["win_rate"])
            for r in report(fixture_db, "win-rates")}
    # ended games: G1 (Ann seat 0 wins), G3 (Ben seat 0 wins), G2 (Ann seat 0 wins)
    assert rows == {(2, 0): (2, 2, 1.0), (2, 1): (2, 0, 0.0), (2, None): (4, 2, 0.5),
                    (3, 0): (1, 1, 1.0), (3, 1): (1, 0, 0.0), (3, 2): (1, 0, 0.0),
                    (3, None): (3, 1, approx(1 / 3, 3)), (None, None): (7, 3, approx(3 / 7, 3))}
    # Ben: G1 seat 1 (lost), G3 seat 0 (won), G2 seat 1 (lost)
    ben = {(r["players"], r["seat"]): (r["games"], r["wins"]) for r in report(fixture_db, "win-rates", player="Ben")}
    assert ben == {(2, 0): (1, 1), (2, 1): (1, 0), (2, None): (2, 1), (3, 1): (1, 0),
                   (3, None): (1, 0), (None, None): (3, 1)}


def test_calls(fixture_db):
    rows = report(fixture_db, "calls")
    # 2 STOPs (G1 R1, R4) and 3 LAST CHANCEs (G1 R2 won, G3 R1 lost, G3 R2 tied = won)
    two = {"players": 2, "calls": 5, "stop": 2, "last_chance": 3, "stop_share": 0.4,
           "last_chance_share": 0.6, "last_chance_won": 2, "last_chance_lost": 1,
           "last_chance_success": approx(2 / 3, 3)}
    assert rows == [two, {**two, "players": None}]       # G2 (3 players) has no call
    ann = report(fixture_db, "calls", player="Ann")
    assert ann[0] == {"players": 2, "calls": 2, "stop": 2, "last_chance": 0, "stop_share": 1.0,
                      "last_chance_share": 0.0, "last_chance_won": 0, "last_chance_lost": 0,
                      "last_chance_success": None}
    assert report(fixture_db, "calls", players=3) == [     # no call: only a zero total row
        {"players": None, "calls": 0, "stop": 0, "last_chance": 0, "stop_share": None,
         "last_chance_share": None, "last_chance_won": 0, "last_chance_lost": 0,
         "last_chance_success": None}]


def test_last_chance(fixture_db):
    rows = report(fixture_db, "last-chance")
    # every caller had 7: Ben won (G1 R2), Cid lost (G3 R1), Ben tied (G3 R2)
    seven = {"card_points": 7, "calls": 3, "won": 1, "tied": 1, "lost": 1,
             "success_rate": approx(2 / 3, 3)}
    assert rows == [seven, {**seven, "card_points": None}]
    ben = report(fixture_db, "last-chance", player="Ben")[0]
    assert (ben["calls"], ben["won"], ben["tied"], ben["lost"], ben["success_rate"]) == (2, 1, 1, 0, 1.0)


def test_round_length(fixture_db):
    rows = report(fixture_db, "round-length")
    two = [5, 6, 28, 9, 7, 8]        # ended 2-player rounds (G4's round is in play)
    assert rows[0] == {"players": 2, "rounds": 6, "avg_turns": approx(sum(two) / 6, 2),
                       "median_turns": (7 + 8) / 2, "min_turns": 5, "max_turns": 28,
                       "deck_outs": 1, "deck_out_rate": approx(1 / 6, 3)}
    assert rows[1] == {"players": 3, "rounds": 1, "avg_turns": 10.0, "median_turns": 10.0,
                       "min_turns": 10, "max_turns": 10, "deck_outs": 0, "deck_out_rate": 0.0}
    assert rows[2]["rounds"] == 7 and rows[2]["median_turns"] == 8.0
    assert rows[2]["deck_out_rate"] == approx(1 / 7, 3)


def test_points_by_source(fixture_db):
    rows = {r["source"]: (r["points"], r["per_seat_round"], r["share"])
            for r in report(fixture_db, "points-by-source")}
    # scored parts (see analytics_games.py): pairs: Ben's 2 laid pairs (G1 R4);
    # collectors: Ann 5 (G1 R1) + Ben 3 (G1 R2) + Ann 5 (G1 R4) + Ben 5 (G3 R1) + Ben 3 (G3 R2);
    # multipliers: 6 + 4 + 6 + 6 + 4; mermaids: Ben's 1 (G1 R1);
    # colour bonus: G1 R2 1 + 1, G3 R1 Cid 1, G3 R2 2 + 1
    parts = {"pairs": 2, "collectors": 5 + 3 + 5 + 5 + 3, "multipliers": 6 + 4 + 6 + 6 + 4,
             "mermaids": 1, "color_bonus": 1 + 1 + 1 + 2 + 1}
    total = (23 + 11) + (20 + 2)            # every point scored: G1 and G3 final totals
    assert sum(parts.values()) == total
    seat_rounds = 4 * 2 + 2 * 2
    for source, pts in {**parts, "all": total}.items():
        assert rows[source] == (pts, approx(pts / seat_rounds, 3), approx(pts / total, 3)), source
    cid = {r["source"]: r["points"] for r in report(fixture_db, "points-by-source", player="Cid")}
    assert cid == {"pairs": 0, "collectors": 0, "multipliers": 0, "mermaids": 0, "color_bonus": 2, "all": 2}


def test_duos_report(fixture_db):
    rows = report(fixture_db, "duos")
    assert [(r["kind"], r["played"], r["with_effect"], r["without_effect"], r["per_game"]) for r in rows] == [
        ("crab", 1, 1, 0, 0.25), ("boat", 1, 1, 0, 0.25), ("fish", 1, 0, 1, 0.25), ("all", 3, 2, 1, 0.75)]
    assert rows[-1]["effect_rate"] == approx(2 / 3, 3)
    ben = report(fixture_db, "duos", player="Ben")     # all three are Ben's; he played 3 games
    assert [(r["kind"], r["per_game"]) for r in ben][-1] == ("all", 1.0)
    assert [(r["kind"], r["played"], r["effect_rate"]) for r in report(fixture_db, "duos", player="Ann")
            ] == [("all", 0, None)]


def test_mermaid_wins(fixture_db):
    rows = report(fixture_db, "mermaid-wins")
    assert [(r["players"], r["games"], r["mermaid_wins"], r["avg_round"]) for r in rows] == [
        (2, 2, 0, None), (3, 1, 1, 1.0), (None, 3, 1, 1.0)]
    assert rows[-1]["share"] == approx(1 / 3, 4)
    # Ben played G2 but Ann won it
    assert report(fixture_db, "mermaid-wins", player="Ben")[-1]["mermaid_wins"] == 0
    assert report(fixture_db, "mermaid-wins", player="Ann")[-1]["mermaid_wins"] == 1


def test_players_report(fixture_db):
    rows = report(fixture_db, "players")
    # Ann: G1 won (23 points in 4 rounds), G2 won (no scored round), G4 in progress
    # Ben: G1 lost (11 in 4), G2 lost, G3 won (20 in 2); Cid: G2, G3 (2 in 2); Dee: G4
    assert [(r["player"], r["games"], r["ended"], r["wins"], r["rounds"]) for r in rows] == [
        ("Ann", 3, 2, 2, 4), ("Ben", 3, 3, 1, 6), ("Cid", 2, 2, 0, 2), ("Dee", 1, 0, 0, 0)]
    assert [r["win_rate"] for r in rows] == [1.0, approx(1 / 3, 3), 0.0, None]
    assert [r["points_per_round"] for r in rows] == [approx(23 / 4, 2), approx((11 + 20) / 6, 2), 1.0, None]
    only = report(fixture_db, "players", player="Ben", players=2)
    assert [(r["player"], r["games"], r["wins"]) for r in only] == [("Ben", 2, 1)]


def test_report_filter_errors(fixture_db):
    with pytest.raises(SeasaltError, match="no player named 'Zed'"):
        run_report(fixture_db, "overview", player="Zed")
    with pytest.raises(SeasaltError, match="no report named 'nope'"):
        run_report(fixture_db, "nope")


def test_stats_cli(fixture_db, tmp_path):
    r = cli("stats", "--list", "--db", fixture_db, "--format", "csv")
    assert r.exit_code == 0 and "win-rates," in r.stdout and len(r.stdout.splitlines()) == 1 + 12
    r = cli("stats", "last-chance", "--db", fixture_db, "--format", "json", "--player", "Ben")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0] == {"card_points": 7, "calls": 2, "won": 1, "tied": 1, "lost": 0,
                                       "success_rate": 1.0}
    out = tmp_path / "wins.parquet"
    r = cli("stats", "win-rates", "--db", fixture_db, "--players", "3", "--out", out)
    assert r.exit_code == 0, r.output
    assert duckdb.sql(f"SELECT players, seat, wins FROM '{out}' ORDER BY ALL").fetchall() == [
        (3, 0, 1), (3, 1, 0), (3, 2, 0), (3, None, 1), (None, None, 1)]
    r = cli("stats", "nope", "--db", fixture_db)
    assert r.exit_code == 1 and r.stderr.count("\n") == 1 and "no report named" in r.stderr
    r = cli("stats", "overview", "--db", fixture_db, "--player", "Zed")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert cli("stats", "overview", "--db", fixture_db, "--players", "5").exit_code == 2


# ---------------------------------------------------------------- rebuild

@pytest.fixture()
def mixed_db(tmp_path) -> Path:
    """Hand-made and random games, one of them stored in two imports (extended), one in progress."""
    games = fx.all_games() + [[e for e in play_random_game(seed, 2 + seed % 3)
                               if type(e) not in ev.DERIVED_TYPES] for seed in range(12)]
    # the expansions (RULES.md §9-§18): every read model has rows, one such game extended
    games += [[e for e in play_random_game(100 + seed, 2 + seed % 3, ruleset=ruleset, events=events)
               if type(e) not in ev.DERIVED_TYPES]
              for seed, (ruleset, events) in enumerate((("extra-salt", "pepper"), ("base", "pepper"),
                                                        ("extra-salt", None)) * 3)]
    full = tmp_path / "all.jsonl"
    full.write_bytes(b"".join(ev.encode_lines(g) for g in games))
    part = tmp_path / "part.jsonl"
    part.write_bytes(ev.encode_lines(games[5][:40]) + ev.encode_lines(games[-9][:120]))
    db = tmp_path / "m.duckdb"
    with Store.open(db) as store:
        assert import_logs(store, [part]).new == 2
        summary = import_logs(store, [full])
    assert (summary.new, summary.extended, summary.failed) == (len(games) - 2, 2, 0)
    return db


@pytest.mark.parametrize("jobs", [1, 2])
def test_rebuild_gives_the_incremental_rows(mixed_db, jobs):
    with Store.open(mixed_db) as store:
        before = snapshot(store.con)
        assert all(before[t] for t in TABLES)
        # wreck the read models: the rebuild must need nothing but the events
        store.con.execute("DELETE FROM turns; DELETE FROM games WHERE game_id = 'G1'; DROP TABLE duos;")
        summary = rebuild(store, jobs=jobs)
        after = snapshot(store.con)
        n_events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    assert summary.jobs == jobs and summary.events == n_events and summary.games == len(before["games"])
    assert summary.rows == {t: len(before[t]) for t in TABLES}
    for t in before:
        assert after[t] == before[t], t


def test_rebuild_failure_changes_nothing(mixed_db, monkeypatch):
    calls = []

    def failing(games, **kw):
        def counted():
            for game in games:
                calls.append(game[0])
                if len(calls) == 5:
                    raise SeasaltError("boom")
                yield game
        return real(counted(), **kw)

    real = rebuild_mod.fold_games
    with Store.open(mixed_db) as store:
        before = snapshot(store.con)
        monkeypatch.setattr(rebuild_mod, "fold_games", failing)
        with pytest.raises(SeasaltError, match="boom"):
            rebuild(store, jobs=1)
        assert snapshot(store.con) == before


def test_stale_read_models_are_rebuilt_on_open(mixed_db):
    with Store.open(mixed_db) as store:
        before = snapshot(store.con)
        store.con.execute("DROP TABLE turns; UPDATE store_meta SET value = '1' "
                          "WHERE key = 'projections_version'")
    r = cli("stats", "overview", "--db", mixed_db)
    assert r.exit_code == 1 and "seasalt rebuild" in r.stderr
    with Store.open(mixed_db) as store:          # opening for writing migrates
        assert snapshot(store.con) == before
        assert store.con.execute("SELECT value FROM store_meta WHERE key = 'projections_version'"
                                 ).fetchone() == (str(PROJECTIONS_VERSION),)


def test_rebuild_cli(mixed_db):
    r = cli("rebuild", "--db", mixed_db, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["games"] == 25 and data["rows"]["games"] == 25 and data["jobs"] == 1
    r = cli("rebuild", "--db", mixed_db)
    assert r.exit_code == 0 and re.search(r"rebuilt 25 game\(s\), \d+ events", r.stderr)


# ---------------------------------------------------------------- Parquet export

def test_export_parquet(fixture_db, tmp_path):
    out = tmp_path / "pq"
    r = cli("export", "--parquet", out, "--db", fixture_db)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (out / "events").iterdir()) == ["n_players=2", "n_players=3"]
    con = duckdb.connect(str(fixture_db), read_only=True)
    events = con.execute("SELECT count(*) FROM events").fetchone()[0]
    for t in PARQUET_TABLES:
        n = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        assert duckdb.sql(f"SELECT count(*) FROM '{out / (t + '.parquet')}'").fetchall() == [(n,)], t
    con.close()
    by_players = duckdb.sql(f"SELECT n_players, count(DISTINCT game_id), count(*) FROM read_parquet("
                            f"'{out}/events/*/*.parquet', hive_partitioning = true) GROUP BY ALL "
                            "ORDER BY ALL").fetchall()
    assert by_players == [(2, 3, 151), (3, 1, 23)] and 151 + 23 == events
    assert_export_keeps_games_whole(out, fixture_db)
    # again into the same directory: replaced; a directory with other files: refused
    assert cli("export", "--parquet", out, "--db", fixture_db).exit_code == 0
    assert_export_keeps_games_whole(out, fixture_db)
    (out / "notes.txt").write_text("mine")
    r = cli("export", "--parquet", out, "--db", fixture_db)
    assert r.exit_code == 1 and "holds other files" in r.stderr and (out / "notes.txt").exists()
    r = cli("export", "G1", "--parquet", tmp_path / "other", "--db", fixture_db)
    assert r.exit_code == 2 and "whole store" in r.stderr


def test_export_parquet_library_counts(fixture_db, tmp_path):
    with Store.open(fixture_db, read_only=True) as store:
        done = export_parquet(store, tmp_path / "x")
    assert done.rows["games"] == 4 and done.rows["cards"] == 54
    assert "games.parquet" in done.files and "events/n_players=3/data_0.parquet" in done.files
    assert_export_keeps_games_whole(tmp_path / "x", fixture_db)


def test_export_parquet_keeps_games_whole_across_buckets(mixed_db, tmp_path, monkeypatch):
    """Many buckets (a few hundred events each): still every game whole in one file, in the
    bucket its id's MD5 gives (R-none: the export's own promise, docs/SQL.md)."""
    from seasalt_log.analytics import parquet
    monkeypatch.setattr(parquet, "BUCKET_EVENTS", 300)
    with Store.open(mixed_db, read_only=True) as store:
        done = export_parquet(store, tmp_path / "x")
    assert len([f for f in done.files if f.startswith("events/")]) > 3
    assert_export_keeps_games_whole(tmp_path / "x", mixed_db)


# ---------------------------------------------------------------- generated files

def test_schema_file_is_current():
    text = (ROOT / "schemas" / "store.sql").read_text()
    assert text.split("\n", 1)[1] == full_ddl(), \
        "schemas/store.sql is stale: run `python -m seasalt_log.store.schema`"


def test_sql_doc_is_current_and_complete(tmp_path):
    text = docs.doc_path().read_text()
    assert docs.render(text) == text, "docs/SQL.md is stale: run `python -m seasalt_log.analytics.docs`"
    assert "## SQL tables" in text
    db = tmp_path / "d.duckdb"
    Store.open(db).close()
    con = duckdb.connect(str(db), read_only=True)
    names = [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name NOT IN ('append_only_guard', 'store_meta') "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
    assert sorted(names) == sorted(["events", "commits", "heads", "checked_games", *(t.name for t in (*SCHEMA, CARDS)), *(v.name for v in VIEWS)])
    # the two small tables `SHOW TABLES` lists beside them are described in prose
    for small in ("append_only_guard (refused VARCHAR)", "store_meta (key, value)"):
        assert f"`{small}`" in text, f"docs/SQL.md does not describe {small}"
    for name in names:
        section = text.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        for (col,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ?",
                                  [name]).fetchall():
            assert f"`{col}`" in section, f"docs/SQL.md does not document {name}.{col}"
    # every table and column also carries its comment in the database
    missing = con.execute("SELECT table_name, column_name FROM duckdb_columns() WHERE comment IS NULL "
                          "AND table_name IN (SELECT unnest(?))", [list(TABLES) + ["cards"]]).fetchall()
    assert missing == []
    con.close()


def test_reports_ship_as_package_data():
    from importlib import resources
    folder = resources.files("seasalt_log.analytics").joinpath("reports")
    assert len([p for p in folder.iterdir() if p.name.endswith(".sql")]) == len(list_reports())
