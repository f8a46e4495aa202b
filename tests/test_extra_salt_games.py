"""Whole Extra Salt games played at random from the engine's legal moves: every event legal,
the 66 cards conserved, encode/decode identity, derived events stripped and recomputed
identically, and the CLI's import / validate / export with the base game's guarantees
(export gives the input back byte for byte; an illegal line is one located message)."""

from __future__ import annotations

from collections import Counter

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.engine import ROUND, with_derived
from seasalt_log.engine.rulings import rules_for

from .randomplay import play_random_game, without_deck_order

FULL = Counter(rules_for("extra-salt").cards)
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _conserved(before, e, after) -> None:
    if after.phase != ROUND:
        return
    t = after.table
    cards = Counter(t.deck) + Counter(t.piles[0]) + Counter(t.piles[1])
    for hand, laid in zip(t.hands, t.laid):
        cards += Counter(hand) + Counter(c for unit in laid for c in unit)
    assert cards == FULL, (ev.TAGS[type(e)], cards - FULL, FULL - cards)


@pytest.fixture(scope="module")
def games() -> list[list[ev.Event]]:
    return [play_random_game(seed, 2 + seed % 3, ruleset="extra-salt", on_event=_conserved)
            for seed in range(24)]


def _conserved_pepper(before, e, after) -> None:
    if after.phase != ROUND:
        return
    t = after.table
    full = Counter(after.ruleset.cards)
    cards = Counter(t.deck) + Counter(t.piles[0]) + Counter(t.piles[1])
    cards += Counter(c for c in t.face_down if c is not None)
    for hand, laid in zip(t.hands, t.laid):
        cards += Counter(hand) + Counter(c for unit in laid for c in unit)
    assert cards == full, (ev.TAGS[type(e)], cards - full, full - cards)
    held = [c for h in after.held for c in h]
    events = held + list(after.event_deck) + list(after.event_discards) + [after.table_event]
    assert sorted(events) == sorted(ev.EVENT_CODES)                    # R-EV-CARDS


@pytest.fixture(scope="module")
def pepper_games() -> list[list[ev.Event]]:
    return [play_random_game(seed, 2 + seed % 3, ruleset=("extra-salt", None)[seed % 2],
                             events="pepper", on_event=_conserved_pepper)
            for seed in range(30)]


def test_pepper_games_legal_conserved_and_recomputed(pepper_games):
    """Base and Extra Salt games with events: every card and event conserved at every
    step, encode/decode identity, derived events (event_awarded too) recomputed."""
    seen = Counter(ev.TAGS[type(e)] for g in pepper_games for e in g)
    for tag in ("event_awarded", "event_kept", "angelfish_taken", "shell_face_down"):
        assert seen[tag] > 0, tag
    for g in pepper_games:
        assert [ev.decode(ev.encode(e)) for e in g] == g
        inputs = [e for e in g if type(e) not in ev.DERIVED_TYPES]
        assert [e for e, _ in with_derived(inputs)] == g


def test_pepper_import_export_byte_for_byte(pepper_games, tmp_path):
    """Import/export of logs with events: the input back byte for byte."""
    log = tmp_path / "p.jsonl"
    data = b"".join(ev.encode_lines(g) for g in pepper_games[:6])
    log.write_bytes(data)
    db = tmp_path / "p.duckdb"
    r = run("import", log, "--db", db)
    assert r.exit_code == 0, r.output
    out = tmp_path / "out.jsonl"
    assert run("export", *[g[0].game_id for g in pepper_games[:6]], "--db", db, "-o",
               out).exit_code == 0
    assert out.read_bytes() == data


def test_every_new_card_is_played(games):
    """R-X-LOBSTER, R-X-JELLYFISH, R-X-JELLYFISH-TURN, R-X-TRIO happen in random play."""
    seen = Counter(ev.TAGS[type(e)] for g in games for e in g)
    for tag in ("lobster_played", "jellyfish_played", "forced_drawn", "starfish_played"):
        assert seen[tag] > 0, tag


def test_round_trip_and_derived_recomputed(games):
    """LOG_FORMAT.md: encode/decode identity; without derived events the engine adds them
    back exactly (R-DERIVED); without the deck order every draw is still legal (R-X-DRAW)."""
    for g in games:
        assert [ev.decode(ev.encode(e)) for e in g] == g
        inputs = [e for e in g if type(e) not in ev.DERIVED_TYPES]
        assert [e for e, _ in with_derived(inputs)] == g
        unordered = without_deck_order(inputs)
        assert len(list(with_derived(unordered))) == len(g)


def test_import_validate_export_byte_for_byte(games, tmp_path):
    """Import and export of Extra Salt logs: the input comes back byte for byte."""
    log = tmp_path / "x.jsonl"
    data = b"".join(ev.encode_lines(g) for g in games[:6])
    log.write_bytes(data)
    db = tmp_path / "x.duckdb"
    assert run("validate", log).exit_code == 0
    r = run("import", log, "--db", db)
    assert r.exit_code == 0, r.output
    ids = [g[0].game_id for g in games[:6]]
    out = tmp_path / "out.jsonl"
    r = run("export", *ids, "--db", db, "-o", out)
    assert r.exit_code == 0, r.output
    assert out.read_bytes() == data


def test_an_illegal_extra_salt_line_is_located(games, tmp_path):
    """RULES.md §17: file:line: game, round, turn: RULE-ID: reason; exit 1; store unchanged."""
    g = [e for e in games[0] if type(e) not in ev.DERIVED_TYPES]
    i = next(k for k, e in enumerate(g) if type(e) is ev.ForcedDrawn)
    bad = g[:i] + [ev.TurnEnded(player=g[i].player)] + g[i + 1:]
    log = tmp_path / "bad.jsonl"
    log.write_bytes(ev.encode_lines(bad))
    r = run("validate", log)
    assert r.exit_code == 1
    assert f"bad.jsonl:{i + 1}: game {g[0].game_id}, round" in r.output
    assert "R-X-JELLYFISH-TURN" in r.output and "Traceback" not in r.output
    lines = log.read_bytes().splitlines()
    lines[0] = lines[0].replace(b'"ruleset":"extra-salt"', b'"ruleset":"base"')
    log.write_bytes(b"\n".join(lines) + b"\n")
    r = run("validate", log)
    assert r.exit_code == 1 and "LOG-FORMAT" in r.output and "Traceback" not in r.output
    # the round's deck holds Extra Salt cards (R-X-CARDS-4): the error says whose they are
    assert "bad.jsonl:2: " in r.output and ("(not a card of the base ruleset: a card of the "
                                           "extra-salt ruleset, which this game's game_started "
                                           "does not name)") in r.output, r.output


def test_score_command_extra_salt_and_events():
    """R-X-SCORE via ``seasalt score --ruleset --event --laid A,B,S --face-down``: the
    worked checks of RULES.md §12 with their breakdown."""
    import json
    r = run("score", "crab:black", "crab:yellow", "crab:grey", "lobster:black",
            "castofcrabs:green", "--ruleset", "extra-salt", "--json")
    d = json.loads(r.stdout)
    assert (d["pairs"], d["cast"], d["card_points"]) == (2, 3, 5)
    r = run("score", "seahorse:white", "shell:grey", "shell:green", "shell:black", "--ruleset",
            "extra-salt", "--event", "dance-of-the-shells", "--event", "coral-reef", "--laid",
            "fish:black,fish:green,starfish:yellow", "--face-down", "shell:yellow", "--json")
    d = json.loads(r.stdout)
    # 3 shells + the seahorse = 4 shells at 2 each = 8; the laid trio 3; the face-down shell 0
    assert (d["seahorse"], d["collectors"], d["trios"], d["card_points"]) == ("shell", 8, 1, 11)
    assert d["tables"] == ["dance-of-the-shells"] and d["face_down"] == 1
    r = run("score", "swimmer:black", "swimmer:yellow", "--event", "water-rodeo", "--json")
    assert json.loads(r.stdout)["rodeo_pairs"] == 1
    # laid under the Water Rodeo (R-EV-WATER-RODEO): the shark pair scores 1, and so does
    # the crab + lobster pair of Extra Salt (R-X-LOBSTER), each laid pair 1 (R-X-SCORE-DUO)
    r = run("score", "shell:grey", "--ruleset", "extra-salt", "--event", "water-rodeo", "--laid",
            "shark:black,shark:dark-blue", "--laid", "crab:black,lobster:black", "--json")
    assert json.loads(r.stdout)["pairs"] == 2
    r = run("score", "seahorse:white", "sailor:pink", "captain:light-orange", "--ruleset",
            "extra-salt")
    assert r.exit_code == 0 and "sailor" in r.stdout and "8" in r.stdout
    for args, msg, code in ((["lobster:blak"], "unknown card code", 1),
                            (["shell:grey", "--laid", "boat:black,boat:yellow,starfish:yellow",
                              "--ruleset", "extra-salt", "--laid",
                              "boat:black,boat:yellow,shell:black"], "starfish", 1),
                            # not a pair: the base game's four (R-DUO-PAIR), Extra Salt's six
                            # (R-X-PAIRS, also inside a trio), the Water Rodeo's only under it
                            (["shell:grey", "--laid", "fish:black,crab:black"],
                             "crab+fish is not a pair the player may lay down (the pairs: "
                             "boat+boat, crab+crab, fish+fish, shark+swimmer; R-DUO-PAIR)", 1),
                            (["shell:grey", "--ruleset", "extra-salt", "--laid",
                              "fish:black,crab:yellow,starfish:yellow"], "R-X-PAIRS", 1),
                            (["shell:grey", "--ruleset", "extra-salt", "--event", "kraken",
                              "--laid", "shark:black,shark:dark-blue"],
                             "shark+shark is not a pair the player may lay down", 1),
                            (["shell:grey", "--ruleset", "extra-salt", "--event", "kraken",
                              "--laid", "shark:black,shark:dark-blue"], "R-EV-WATER-RODEO", 1),
                            # choices: usage errors (exit code 2) naming the option
                            (["shell:grey", "--event", "nope"], "no event 'nope'", 2),
                            (["shell:grey", "--ruleset", "extra-pepper"], "--ruleset", 2)):
        r = run("score", *args)
        assert r.exit_code == code and msg in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("args,where,rule,fix", [
    # a face-down shell exists only under the Coral Reef (R-EV-CORAL-REEF)
    (["shell:black", "--face-down", "shell:grey"], "--face-down 'shell:grey'",
     "R-EV-CORAL-REEF", "add --event coral-reef"),
    (["shell:black", "--ruleset", "extra-salt", "--event", "kraken", "--face-down",
      "shell:grey"], "--face-down 'shell:grey'", "R-EV-CORAL-REEF", "add --event coral-reef"),
    # a trio exists only in Extra Salt (R-X-TRIO), whose cards a base deck lacks (R-X-CARDS-4)
    (["shell:black", "--laid", "crab:black,crab:grey,starfish:yellow"],
     "--laid 'crab:black,crab:grey,starfish:yellow'", "R-X-TRIO", "needs --ruleset extra-salt"),
    (["shell:black", "--event", "coral-reef", "--laid", "crab:black,lobster:black"],
     "--laid 'crab:black,lobster:black': 'lobster:black'", "R-X-CARDS-4",
     "add --ruleset extra-salt"),
    (["seahorse:white", "shell:black"], "'seahorse:white'", "R-X-CARDS-4",
     "add --ruleset extra-salt"),
    (["shell:black", "--event", "coral-reef", "--face-down", "shell:grey", "--face-down",
      "shell:green"], "--face-down given 2 times", "R-EV-CORAL-REEF", "at most"),
])
def test_score_refuses_an_option_without_the_ruleset_or_event_it_needs(args, where, rule, fix):
    """An option (or card) that only exists under a ruleset or an event is refused without
    it, in one line naming the option, the rule and what to add, exit code 1 as score's
    other refused hands (a trio without Extra Salt, a pair that is none)."""
    r = run("score", *args)
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    assert where in r.stderr and rule in r.stderr and fix in r.stderr


def test_score_face_down_shell_with_the_coral_reef():
    """With --event coral-reef the face-down shell is left out (R-EV-CORAL-REEF,
    R-X-SCORE-COLOUR): shell:black in hand scores no card points (one shell, R-SCORE-COLLECT)
    and a colour bonus of 1 (R-SCORE-BONUS); the grey shell face down counts nowhere."""
    import json
    for ruleset in ("base", "extra-salt"):
        r = run("score", "shell:black", "--ruleset", ruleset, "--event", "coral-reef",
                "--face-down", "shell:grey", "--json")
        assert r.exit_code == 0, r.output
        d = json.loads(r.stdout)
        assert (d["card_points"], d["color_bonus"], d["face_down"]) == (0, 1, 1)
        assert d["face_down_cards"] == ["shell:grey"]


@pytest.mark.parametrize("args,counts", [
    (["shell:black"], ["1 card"]),
    (["shell:black", "shell:grey"], ["2 cards"]),
    (["shell:black", "--laid", "fish:black,fish:green"], ["3 cards"]),
    # two swimmers make one pair in hand under the Water Rodeo (R-X-SCORE-DUO); the laid
    # trio holds one pair (R-X-TRIO); the Coral Reef's shell is left out (R-EV-CORAL-REEF)
    (["swimmer:black", "swimmer:yellow", "--ruleset", "extra-salt", "--event", "water-rodeo",
      "--event", "coral-reef", "--laid", "fish:black,fish:green,starfish:yellow",
      "--face-down", "shell:grey"],
     ["5 cards", "1 Water Rodeo pair in hand", "1 in a trio",
      "1 face-down shell left out"]),
    (["shell:black", "--ruleset", "extra-salt", "--laid", "fish:black,fish:green,starfish:yellow",
      "--laid", "crab:black,crab:grey,starfish:dark-blue"], ["7 cards", "2 in trios"]),
])
def test_score_counts_are_singular_for_one(args, counts):
    """The table's counts say "1 card", "1 Water Rodeo pair", "1 face-down shell", "1 in a
    trio", and the plural for any other number."""
    import re
    r = run("score", *args, "--format", "table")
    assert r.exit_code == 0, r.output
    for want in counts:
        assert re.search(rf"(^|\s){re.escape(want)}(\s|;|$)", r.stdout, re.M), (want, r.stdout)
    assert not re.search(r"(^|\s)1 (cards|Water Rodeo pairs|face-down shells)\b|1 in trios|\(s\)",
                         r.stdout)
