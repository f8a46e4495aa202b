"""Golden transcripts (fixtures/golden/): each one must equal a fresh rendering, and every
valid fixture game must have one. Regenerate with ``python -m seasalt_log.golden``."""

from __future__ import annotations

from pathlib import Path

import pytest

from seasalt_log import golden

try:
    from .test_replay import DEMO, LOST, MERMAIDS, load
except ImportError:    # tests/ run as a plain directory
    from test_replay import DEMO, LOST, MERMAIDS, load  # type: ignore[no-redef]

FIXTURES = golden.FIXTURES
LOGS = [p for p in golden.fixture_logs(FIXTURES) if golden.valid_games(p)]


def _rel(p: Path) -> str:
    return p.relative_to(FIXTURES.parent).as_posix()


@pytest.mark.parametrize("log", LOGS, ids=[_rel(p) for p in LOGS])
def test_transcript_is_up_to_date(log):
    path = golden.golden_path(log)
    fresh = golden.render_log(log)
    assert path.exists(), (f"{_rel(log)} has no golden transcript {_rel(path)}; "
                           f"run `{golden.REGENERATE}` and commit the result")
    stored = path.read_text(encoding="utf-8")
    if stored != fresh:
        old, new = stored.splitlines(), fresh.splitlines()
        at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        pytest.fail(f"{_rel(path)} is stale (first difference at line {at + 1}: "
                    f"{old[at] if at < len(old) else '<end>'!r} != "
                    f"{new[at] if at < len(new) else '<end>'!r}); "
                    f"if the change is intended, run `{golden.REGENERATE}` and review the diff",
                    pytrace=False)


def test_every_fixture_game_has_a_transcript():
    missing = []
    for log in LOGS:
        path = golden.golden_path(log)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        for g in golden.valid_games(log):
            if f"\nGame {g.game_id} (line {g.first_line}):" not in text:
                missing.append(f"{_rel(log)}: game {g.game_id} (line {g.first_line})")
    assert not missing, (f"games without a golden transcript: {missing}; "
                         f"run `{golden.REGENERATE}`")


def test_no_stale_transcripts():
    stale = golden.stale_files(FIXTURES)
    assert not stale, (f"golden transcripts with no fixture log: {[_rel(p) for p in stale]}; "
                       f"run `{golden.REGENERATE}` to remove them")


# ---------------------------------------------------------------- the generator itself

def _write(tmp: Path, rel: str, text: str) -> Path:
    path = tmp / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.strip() + "\n")
    return path


BAD = '{"type":"game_started","game_id":"bad","players":["Ann","Ben"]}\n' \
      '{"type":"turn_ended","player":0}\n'


def test_generator_on_a_fixture_tree(tmp_path):
    fx = tmp_path / "fixtures"
    _write(fx, "rules/demo.jsonl", DEMO)
    _write(fx, "rules/two.jsonl", MERMAIDS.strip() + "\n" + BAD + LOST.strip())
    _write(fx, "rules/invalid.jsonl", BAD)
    # a log the manifest expects to fail gets no transcript, even if its first games are good
    _write(fx, "rules/listed-bad.illegal.jsonl", DEMO)
    _write(fx, "MANIFEST.json", '[{"file": "rules/listed-bad.illegal.jsonl", "expect": "error"},'
                                ' {"file": "rules/demo.jsonl", "expect": "ok"}]')
    stale = _write(fx, "golden/old.txt", "left over")
    assert golden.main(["--fixtures", str(fx), "--check"]) == 1
    assert golden.regenerate(fx) == (2, 0, 1)
    assert not stale.exists() and not (fx / "golden/rules/invalid.txt").exists()
    assert not (fx / "golden/rules/listed-bad.illegal.txt").exists()
    assert golden.main(["--fixtures", str(fx), "--check"]) == 0
    assert golden.regenerate(fx) == (0, 2, 0)

    two = (fx / "golden/rules/two.txt").read_text()
    assert "2 game(s)" in two and "Game mer (line 1)" in two and "Game lost (line 19)" in two
    assert "Game bad" not in two                       # refused by the engine: skipped
    assert "Round 1: ended by Ann's four mermaids" in two

    demo = (fx / "golden/rules/demo.txt").read_text()
    assert demo.startswith("# Golden transcript of fixtures/rules/demo.jsonl")
    # the state after every turn: 6 turns in round 1, 9 in round 2, and each round's start
    assert demo.count("  State:") + demo.count("  State (latest):") == 6 + 9 + 2
    assert demo.count("-- Round 1, turn ") == 6 and demo.count("-- Round 2, turn ") == 9
    assert "-- Round 1 result --" in demo and "-- Round 2 result --" in demo
    assert "Round 1: Ann called LAST CHANCE and won (6 turns)" in demo
    assert "  [35] Ann played shark:black + swimmer:dark-blue and stole swimmer:yellow from Ben" in demo

    # a change shows up
    (fx / "golden/rules/demo.txt").write_text(demo.replace("won (6 turns)", "lost (6 turns)"))
    assert golden.main(["--fixtures", str(fx), "--check"]) == 1


def test_transcript_of_a_game_in_progress():
    events = load(DEMO)[:25]
    text = golden.transcript(events)
    assert text.rstrip().endswith("(game in progress after seq 25, round 2)")
    assert "State (latest):" in text
