"""The CLI's scores against hands scored by hand (RULES.md §4 and §12): ``seasalt score``
on four holdings, and ``seasalt rescore`` on the two Extra Salt rounds of
``tests/rules/test_interactions.py`` once imported. Every expected number is worked out in
the comments from the rule text, not taken from the code."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev

from .rules.test_interactions import two_extra_salt_rounds

runner = CliRunner()


def run(*args: str):
    r = runner.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r


@pytest.mark.parametrize("args, expected", [
    # Extra Salt. Hand: crab:yellow, crab:dark-blue + lobster: 1 pair; laid trio: 1 pair.
    # Starfish: the laid one 2, the hand one matched to the hand pair 2. Shells 3: 4, the
    # seahorse as a 4th shell +2. Cast of crabs: 2 crabs. Colours dark-blue 3 (shell, crab,
    # starfish), black 3, yellow 3, white 2: the mermaid 3. 2 + 4 + 6 + 2 + 3 = 17; bonus 3.
    (["--ruleset", "extra-salt", "mermaid:white", "seahorse:white", "shell:dark-blue",
      "shell:light-blue", "shell:black", "crab:yellow", "crab:dark-blue", "lobster:black",
      "castofcrabs:green", "starfish:yellow", "--laid", "boat:black,boat:yellow,starfish:dark-blue"],
     dict(pairs=2, starfish=4, collectors=6, seahorse="shell", cast=2, mermaids=3,
          card_points=17, color_bonus=3)),
    # Base. Shark + swimmer 1, laid fish 1; sailors 5, penguin 1, octopuses 2: 3; captain
    # 3 x 2, colony 2 x 1; green 3 (colony, octopus, shark), then 2: mermaids 5. 24; bonus 3.
    (["mermaid:white", "mermaid:white", "sailor:pink", "sailor:orange", "captain:light-orange",
      "penguin:pink", "colony:green", "octopus:green", "octopus:yellow", "shark:green",
      "swimmer:light-orange", "--laid", "fish:black,fish:yellow"],
     dict(pairs=2, collectors=9, multipliers=8, mermaids=5, card_points=24, color_bonus=3)),
    # Water Rodeo and Kraken. 3 swimmers, a shark, a jellyfish: min(1, 3) + (2 + 1) // 2 = 2
    # pairs (no more than without the Rodeo: min(3, 1 + 1) = 2); the starfish matched 2;
    # octopuses 3 at 1 each, the seahorse a 4th +1. 8; black 2 (swimmer, shark): bonus 2.
    (["--ruleset", "extra-salt", "--event", "water-rodeo", "--event", "kraken",
      "swimmer:black", "swimmer:yellow", "swimmer:dark-blue", "jellyfish:pink", "shark:black",
      "octopus:green", "octopus:yellow", "octopus:grey", "starfish:light-blue", "seahorse:white"],
     dict(pairs=2, rodeo_pairs=0, starfish=2, collectors=4, seahorse="octopus", card_points=8,
          color_bonus=2)),
    # Dance of the Shells, Tornado, Coral Reef: 3 shells and the seahorse as a 4th at 2
    # each: 8; mermaids 0; the face-down shell counts nowhere: white 3 (2 mermaids and the
    # seahorse) is the bonus.
    (["--ruleset", "extra-salt", "--event", "dance-of-the-shells", "--event", "tornado",
      "--event", "coral-reef", "--face-down", "shell:green", "mermaid:white", "mermaid:white",
      "shell:dark-blue", "shell:light-blue", "shell:black", "seahorse:white"],
     dict(collectors=8, mermaids=0, card_points=8, color_bonus=3, face_down=1)),
], ids=["extra-salt", "base", "rodeo-kraken", "shells-tornado-reef"])
def test_score_command_by_hand(args, expected):
    """R-SCORE-*, R-X-SCORE-*, R-EV-KRAKEN, R-EV-TORNADO, R-EV-DANCE-OF-THE-SHELLS,
    R-EV-WATER-RODEO, R-EV-CORAL-REEF through ``seasalt score --json``."""
    got = json.loads(run("score", "--json", *args).stdout)
    assert {k: got[k] for k in expected} == expected


def test_rescore_two_extra_salt_rounds_by_hand(tmp_path):
    """R-X-SCORE, R-LAST-4, R-STOP through ``seasalt import`` and ``seasalt rescore``: the
    breakdowns, points and totals worked by hand in
    test_r_x_score_and_r_last_4_two_extra_salt_rounds_by_hand."""
    log, db = tmp_path / "game.jsonl", tmp_path / "store.duckdb"
    log.write_bytes(ev.encode_lines(two_extra_salt_rounds().events))
    run("import", str(log), "--db", str(db))
    one = json.loads(run("rescore", "audit-extra-salt", "-r", "1", "--format", "json",
                         "--db", str(db)).stdout)
    ann, ben = one["players"]
    assert (one["ending"], one["caller"], one["caller_won"]) == ("last_chance", 0, True)
    # Ann: 1 pair, shells 4 + seahorse 2, cast 2, the mermaid 2: 11; bonus 2; won: 13
    assert ann["breakdown"] == dict(pairs=1, collectors=6, multipliers=2, mermaids=2,
                                    card_points=11, color_bonus=2)
    assert (ann["points"], ann["stored_points"], ann["total"]) == (13, 13, 13)
    # Ben: 2 laid units and the trio's starfish 2 (the pairs column holds both), octopuses
    # 3, penguin 1: 8; yellow 3; he scores his bonus 3
    assert ben["breakdown"] == dict(pairs=4, collectors=4, multipliers=0, mermaids=0,
                                    card_points=8, color_bonus=3)
    assert (ben["points"], ben["total"]) == (3, 3)
    two = json.loads(run("rescore", "audit-extra-salt", "-r", "2", "--format", "json",
                         "--db", str(db)).stdout)
    ann, ben = two["players"]
    # Ann: a crab pair 1 and its starfish 2, penguin 1, cast 2 + colony 2: 8; green 3
    assert ann["breakdown"] == dict(pairs=3, collectors=1, multipliers=4, mermaids=0,
                                    card_points=8, color_bonus=3)
    # Ben: sailors 5, captain 6, mermaids 3 (white: 2 + the seahorse) + 1: 15; white 3
    assert ben["breakdown"] == dict(pairs=0, collectors=5, multipliers=6, mermaids=4,
                                    card_points=15, color_bonus=3)
    assert (ann["points"], ann["total"], ben["points"], ben["total"]) == (8, 21, 15, 18)


def test_rescore_counts_a_held_event(tmp_path):
    """R-EV-APPLY through ``seasalt rescore``: Ann, first after round 1 under the Kraken,
    holds it in round 2 (table event: the Sunfish). Her three octopuses score 1 each: 3,
    not 6, although the Kraken is taken from her right after that round (R-EV-AWARD step 1:
    totals 7 + 3 = 10 against 1 + 10 = 11, Ben is first). Ben's six shells score 10."""
    from .rules.test_pepper import scored_game
    from .scenario import draw, stop
    g = scored_game("kraken")
    assert g.derived()[1].to == 0
    g.start_round(event="sunfish",
                  hands={1: ["shell:dark-blue", "shell:light-blue", "shell:black", "shell:yellow",
                             "shell:green", "shell:grey"],
                         0: ["octopus:light-blue", "octopus:yellow", "octopus:grey",
                             "boat:dark-blue", "fish:dark-blue", "swimmer:dark-blue"]},
                  then=["boat:light-blue", "fish:light-blue"])
    g.play(draw(1, "boat:light-blue", "fish:light-blue", pile=0), stop(1))
    assert [type(e) for e in g.derived()] == [ev.RoundScored, ev.EventAwarded]
    log, db = tmp_path / "game.jsonl", tmp_path / "store.duckdb"
    log.write_bytes(ev.encode_lines(g.events))
    run("import", str(log), "--db", str(db))
    two = json.loads(run("rescore", "scenario", "-r", "2", "--format", "json",
                         "--db", str(db)).stdout)
    ann, ben = two["players"]
    assert (ann["breakdown"]["collectors"], ann["breakdown"]["card_points"]) == (3, 3)
    assert (ben["breakdown"]["collectors"], ben["points"]) == (10, 10)
    assert (ann["total"], ben["total"]) == (10, 11)
