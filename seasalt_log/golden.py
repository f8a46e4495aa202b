"""Golden transcripts: a readable replay of every fixture game, checked into the repository.

For each log ``fixtures/<path>.jsonl`` that holds at least one game the engine accepts (and
that ``fixtures/MANIFEST.json``, when it lists the file, expects to be valid), the
transcript ``fixtures/golden/<path>.txt`` shows every valid game of it: each event as a
sentence, the whole state (:func:`~seasalt_log.render.render_state`) after every turn, and
each round's result (:func:`~seasalt_log.render.render_report`). A game the engine refuses
is left out (the rules tests cover those). A change of the engine, the scoring or the
rendering shows up as a diff of these files in review.

Regenerate them all with one command, from the repository root::

    python -m seasalt_log.golden            # rewrite fixtures/golden/
    python -m seasalt_log.golden --check    # exit 1 if any transcript is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from . import events as ev
from .errors import SeasaltError
from .importers.jsonl import CheckedGame, check_game, read_games
from .narration import describe
from .render import render_report, render_state
from .replay import steps
from .rescore import rescore
from .view import table_view

REGENERATE = "python -m seasalt_log.golden"
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
GOLDEN_DIR = "golden"
MANIFEST = "MANIFEST.json"


def manifest(fixtures: Path = FIXTURES) -> dict[str, str]:
    """``fixtures/MANIFEST.json`` as {file relative to fixtures/: expect ("ok"/"error")};
    empty when there is none."""
    path = fixtures / MANIFEST
    if not path.exists():
        return {}
    entries = json.loads(path.read_text(encoding="utf-8"))
    return {e["file"]: e.get("expect", "ok") for e in entries if isinstance(e, dict) and "file" in e}


def fixture_logs(fixtures: Path = FIXTURES) -> list[Path]:
    """The fixture logs that get a transcript, sorted: every ``*.jsonl`` under ``fixtures``
    (the golden directory excluded), less those the manifest lists as expected to fail."""
    golden = fixtures / GOLDEN_DIR
    listed = manifest(fixtures)
    return sorted(p for p in fixtures.rglob("*.jsonl")
                  if p.is_file() and golden not in p.parents
                  and listed.get(p.relative_to(fixtures).as_posix(), "ok") == "ok")


def valid_games(path: Path) -> list[CheckedGame]:
    """The games of ``path`` that pass :func:`check_game`; the others are skipped."""
    out = []
    try:
        raws = list(read_games(path))
    except (SeasaltError, OSError):
        return []
    for raw in raws:
        try:
            out.append(check_game(raw))
        except SeasaltError:
            continue
    return out


def golden_path(log: Path, fixtures: Path = FIXTURES) -> Path:
    """Where the transcript of ``log`` lives: ``fixtures/golden/<relative path>.txt``."""
    return fixtures / GOLDEN_DIR / log.relative_to(fixtures).with_suffix(".txt")


def transcript(events: Sequence[ev.Event], *, game_id: str | None = None) -> str:
    """The readable replay of one game (events as stored, derived ones included)."""
    lines: list[str] = []
    current_round = 0
    all_steps = list(steps(events, game_id=game_id))
    gid = all_steps[0].after.game_id if all_steps else game_id
    result_due = 0
    for i, st in enumerate(all_steps):
        prev = all_steps[i - 1] if i else None
        nxt = all_steps[i + 1] if i + 1 < len(all_steps) else None
        e = st.event
        if isinstance(e, ev.RoundStarted):
            current_round = e.round
            lines += ["", f"---- Round {e.round} ----"]
        elif st.turn and (prev is None or (prev.round, prev.turn) != (st.round, st.turn)):
            lines += ["", f"-- Round {st.round}, turn {st.turn} --"]
        lines.append(f"  [{st.seq}] {describe(e, st.before)}")
        if isinstance(e, ev.RoundScored) or (isinstance(e, ev.GameEnded) and e.reason == "mermaids"):
            result_due = st.round
        if isinstance(e, ev.GameStarted):
            continue
        if nxt is None or (nxt.round, nxt.turn) != (st.round, st.turn):
            # after a round's start, or after a turn (the derived events that follow included)
            lines.append("  State:" if nxt is not None else "  State (latest):")
            lines.extend("    " + ln for ln in render_state(table_view(st.after)).splitlines())
            if result_due:
                lines += ["", f"-- Round {result_due} result --"]
                lines.extend("  " + ln for ln in render_report(
                    rescore(events, result_due, game_id=gid)).splitlines())
                result_due = 0
    if all_steps and all_steps[-1].after.phase != "ended":
        lines += ["", f"(game in progress after seq {all_steps[-1].seq}, round {current_round})"]
    return "\n".join(lines)


def render_log(path: Path, fixtures: Path = FIXTURES) -> str | None:
    """The transcript of every valid game of ``path``, or None when it has none."""
    games = valid_games(path)
    if not games:
        return None
    rel = path.relative_to(fixtures).as_posix()
    out = [f"# Golden transcript of fixtures/{rel}: {len(games)} game(s)",
           f"# Generated; regenerate with: {REGENERATE}"]
    for g in games:
        s0 = g.states[0]
        out += ["", "=" * 72,
                f"Game {g.game_id} (line {g.first_line}): {', '.join(s0.players)}; "
                f"target {s0.target}",
                "=" * 72]
        out.append(transcript(g.events, game_id=g.game_id))
    return "\n".join(out) + "\n"


def expected(fixtures: Path = FIXTURES) -> dict[Path, str]:
    """Every transcript as it should read now: golden path -> text."""
    result = {}
    for log in fixture_logs(fixtures):
        text = render_log(log, fixtures)
        if text is not None:
            result[golden_path(log, fixtures)] = text
    return result


def stale_files(fixtures: Path = FIXTURES) -> list[Path]:
    """Transcripts in the golden directory that no fixture log produces any more."""
    want = set(expected(fixtures))
    golden = fixtures / GOLDEN_DIR
    return sorted(p for p in golden.rglob("*.txt") if p not in want) if golden.exists() else []


def regenerate(fixtures: Path = FIXTURES) -> tuple[int, int, int]:
    """Rewrite every transcript and delete stale ones; returns (written, unchanged, removed)."""
    written = unchanged = 0
    want = expected(fixtures)
    for path, text in want.items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            unchanged += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written += 1
    removed = 0
    golden = fixtures / GOLDEN_DIR
    if golden.exists():
        for p in sorted(golden.rglob("*.txt")):
            if p not in want:
                p.unlink()
                removed += 1
    return written, unchanged, removed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m seasalt_log.golden [--check] [--fixtures DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m seasalt_log.golden",
                                     description="Regenerate (or check) the golden transcripts.")
    parser.add_argument("--check", action="store_true",
                        help="Write nothing; exit 1 if any transcript is stale or missing.")
    parser.add_argument("--fixtures", type=Path, default=FIXTURES,
                        help="The fixtures directory (default: the repository's fixtures/).")
    args = parser.parse_args(argv)
    fixtures = args.fixtures.resolve()
    if args.check:
        bad = [p for p, text in expected(fixtures).items()
               if not p.exists() or p.read_text(encoding="utf-8") != text]
        bad += stale_files(fixtures)
        for p in bad:
            print(f"stale: {p.relative_to(fixtures.parent)}", file=sys.stderr)
        if bad:
            print(f"regenerate with: {REGENERATE}", file=sys.stderr)
        return 1 if bad else 0
    written, unchanged, removed = regenerate(fixtures)
    print(f"golden transcripts: {written} written, {unchanged} unchanged, {removed} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
