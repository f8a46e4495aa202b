"""Fuzzing the import: valid logs broken in every way a file can be broken.

A seeded mutator takes valid games (simulated through the engine) and drops, duplicates,
swaps and truncates lines; changes types, numbers, seats and card codes; adds unknown
fields; inserts invalid UTF-8, huge numbers, very long strings and deep nesting. Every case
goes through :func:`seasalt_log.service.import_logs`, in batches of files (as a user
imports a directory); every fifth batch also through ``seasalt import`` with Typer's
runner. For every case:

- nothing but a :class:`~seasalt_log.errors.SeasaltError` leaves the library, and every
  error is one clear line (no traceback, no line break, not the whole input echoed back);
- the store never holds part of a game: every game the import stored is whole (seq 1..n,
  the games row says n; every event legal and the read models equal a recomputation for a
  sample at once, for all when the segment closes), every other game is as it was, and the
  events table grew by exactly the events the summary says were stored;
- a game stored before the fuzzing started is untouched (its export is byte-identical).

``SEASALT_FUZZ_CASES`` sets the number of cases (default 2000; the long run in
docs/RELIABILITY.md uses 100000), ``SEASALT_FUZZ_SEED`` the seed. A failure names the case
and its mutations; ``SEASALT_FUZZ_KEEP=DIR`` keeps the failing batch's logs there.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import Struct
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.cards import CODES
from seasalt_log.engine import ENDED, with_derived
from seasalt_log.errors import SeasaltError
from seasalt_log.service import export_lines, import_logs
from seasalt_log.store import Store
from seasalt_log.verify import verify_store

from .reliability_helpers import assert_games_whole, valid_games

CASES = int(os.environ.get("SEASALT_FUZZ_CASES", "2000"))
SEED = int(os.environ.get("SEASALT_FUZZ_SEED", "1"))
CLI_EVERY = int(os.environ.get("SEASALT_FUZZ_CLI_EVERY", "5"))   # every Nth batch also via the CLI
BATCH = 40                # case files per import call (as a user imports a directory)
SEGMENT = 2000            # cases per store (a fresh store then, so a long run stays fast)
VERIFY_PER_BATCH = 6      # stored games verified right after their batch (all at segment end)
MAX_MESSAGE = 4000        # a clear message quotes the input, it does not echo all of it

CODE_LIST = list(CODES)
KEEP = os.environ.get("SEASALT_FUZZ_KEEP")


# ---------------------------------------------------------------- values to break things with

def _nested(depth: int, kind: str = "list") -> object:
    v: object = 0
    for _ in range(depth):
        v = [v] if kind == "list" else {"a": v}
    return v


def weird_value(rng: random.Random) -> object:
    """A value of the wrong type, out of range, huge, deep or strangely encoded."""
    pick = rng.randrange(30)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice((True, False))
    if pick == 2:
        return rng.choice((0, 1, 2, 3, 4, 5, -1, -2, 7, 56, 58))
    if pick == 3:
        return rng.choice((127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
                           2**63 - 1, 2**63, 2**64, -2**63 - 1, 10**30, -10**30, 10**400))
    if pick == 4:
        return rng.choice((0.0, 0.5, 1.0, -0.0, 1e308, -1e308, 5e-324, 2.5))
    if pick == 5:
        return rng.choice(("", " ", "x", "0", "1", "null", "true", "[]", "{}"))
    if pick == 6:
        return "a" * rng.choice((300, 10_000, 1_000_000))
    if pick == 7:
        return rng.choice(CODE_LIST)
    if pick == 8:
        c = rng.choice(CODE_LIST)
        return rng.choice((c.upper(), c + "k", c.replace(":", "-"), c.split(":")[0], ":" + c,
                           c + " ", " " + c, c.replace("-", "_"), c[:-1], c * 2,
                           c.split(":")[0] + ":" + "x" * 5000))
    if pick == 9:
        return rng.choice(("\u0000", "\n", "a\nb", "\r", "\t", "\u2028", "\u202e", "é", "\U0001F980",
                           "\ufeff", "\ud800", "\udfff", "\x7f", "a\u0000b"))
    if pick == 10:
        return []
    if pick == 11:
        return {}
    if pick == 12:
        return _nested(rng.choice((2, 30, 200, 1000, 5000)), rng.choice(("list", "dict")))
    if pick == 13:
        return [rng.choice(CODE_LIST) for _ in range(rng.choice((0, 1, 2, 3, 55, 56, 57, 200)))]
    if pick == 14:
        return [rng.randrange(-2, 6) for _ in range(rng.randrange(0, 6))]
    if pick == 15:
        return {"type": "turn_ended", "player": 0}
    if pick == 16:
        return rng.choice(("Ann", "Ben", "Ann", "sim-1-0", "2024-01-01T00:00:00Z", "2024-13-45T99:99:99Z"))
    if pick == 17:
        return rng.choice([t.__struct_config__.tag for t in ev.EVENT_TYPES] + ["unknown", "Turn_Ended"])
    if pick == 18:
        return [None, None]
    if pick == 19:
        return {"x" * 1000: [1, 2, {"y": None}]}
    return rng.randrange(-3, 8)


def tweak(rng: random.Random, value: object) -> object:
    """A value near the original: a number moved, a card swapped, a list edited."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice((value + 1, value - 1, -value, value * 1000, rng.randrange(6), value + 4))
    if isinstance(value, str):
        if value in CODES:
            return rng.choice(CODE_LIST)
        return rng.choice((value + "x", value[:-1], value.upper(), "", value * 3))
    if isinstance(value, list):
        v = list(value)
        op = rng.randrange(5)
        if op == 0 and v:
            del v[rng.randrange(len(v))]
        elif op == 1 and v:
            v.insert(rng.randrange(len(v) + 1), rng.choice(v))
        elif op == 2:
            rng.shuffle(v)
        elif op == 3 and v:
            v[rng.randrange(len(v))] = weird_value(rng)
        else:
            v.append(rng.choice(CODE_LIST))
        return v
    if isinstance(value, dict):
        v = dict(value)
        v[rng.choice(("x", "seed", "", "type"))] = weird_value(rng)
        return v
    return weird_value(rng)


# ---------------------------------------------------------------- mutations of one log

def _slots(obj, path=()):
    """Every (container, key) inside a decoded JSON value."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield obj, k
            if isinstance(v, (dict, list)) and len(path) < 6:
                yield from _slots(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:60]):
            yield obj, i
            if isinstance(v, (dict, list)) and len(path) < 6:
                yield from _slots(v, path + (i,))


def _dump(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def mutate_json(rng: random.Random, lines: list[bytes]) -> str:
    """Change one field of one line: retype, tweak, delete, rename, add an unknown field."""
    if not lines:
        return "json:empty"
    i = rng.randrange(len(lines))
    try:
        obj = json.loads(lines[i])
    except (ValueError, RecursionError):
        return "json:unparsable"
    if not isinstance(obj, dict):
        return "json:not-object"
    slots = list(_slots(obj))
    op = rng.randrange(8)
    name = "json:"
    if op == 0 or not slots:
        key = rng.choice(("extra", "Player", "players ", "at", "game_id", "type", "index", "seq",
                          "meta", "deck", "discard_pile", "x" * 300))
        obj[key] = weird_value(rng)
        name += "add-field"
    else:
        container, key = rng.choice(slots)
        if op in (1, 2, 3):
            container[key] = weird_value(rng)
            name += "retype"
        elif op in (4, 5):
            container[key] = tweak(rng, container[key])
            name += "tweak"
        elif op == 6:
            if isinstance(container, dict):
                del container[key]
            else:
                del container[key]
            name += "delete"
        else:
            if isinstance(container, dict):
                container[str(key) + rng.choice(("_", "s", "X"))] = container.pop(key)
            name += "rename"
    try:
        lines[i] = _dump(obj)
    except (ValueError, RecursionError):
        return name + ":undumpable"
    return name


def _pos(rng, lines):
    return rng.randrange(len(lines)) if lines else 0


def mutate_lines(rng: random.Random, lines: list[bytes], foreign: list[bytes]) -> str:
    """Line and byte level damage: drop, duplicate, swap, truncate, garbage, bad UTF-8, ..."""
    op = rng.randrange(24)
    if not lines:
        lines.append(b"{}")
    n = len(lines)
    i, j = _pos(rng, lines), _pos(rng, lines)
    if op == 0:
        del lines[i]
        return "drop"
    if op == 1:
        lines.insert(j, lines[i])
        return "duplicate"
    if op == 2:
        lines[i], lines[j] = lines[j], lines[i]
        return "swap"
    if op == 3 and n > 1:
        k = min(i, n - 2)
        lines[k], lines[k + 1] = lines[k + 1], lines[k]
        return "swap-adjacent"
    if op == 4:
        del lines[rng.randrange(1, n + 1):]
        return "truncate-lines"
    if op == 5:
        blob = b"\n".join(lines)
        cut = rng.randrange(len(blob) + 1)
        lines[:] = blob[:cut].split(b"\n")
        return "truncate-bytes"
    if op == 6:
        lines.insert(j, rng.choice(foreign) if foreign else b"{}")
        return "foreign-line"
    if op == 7 and n > 1:
        k = min(i, n - 2)
        lines[k:k + 2] = [lines[k] + lines[k + 1]]
        return "join-lines"
    if op == 8:
        line = lines[i]
        cut = rng.randrange(len(line) + 1)
        lines[i:i + 1] = [line[:cut], line[cut:]]
        return "split-line"
    if op == 9:
        lines.insert(j, rng.choice((b"", b"   ", b"\t", b"\r", b"\x0c", b"\x00", b"#", b"//")))
        return "blank-ish-line"
    if op == 10:
        lines.insert(j, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
        return "garbage-line"
    if op == 11:
        line = lines[i]
        k = rng.randrange(len(line) + 1)
        bad = rng.choice((b"\xff", b"\xfe\xff", b"\xc3", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80",
                          b"\xf0\x9f", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf", b"\x80"))
        lines[i] = line[:k] + bad + line[k:]
        return "invalid-utf8"
    if op == 12:
        line = bytearray(lines[i])
        if line:
            for _ in range(rng.randrange(1, 4)):
                line[rng.randrange(len(line))] = rng.randrange(256)
        lines[i] = bytes(line)
        return "byte-flip"
    if op == 13:
        lines[i] = re.sub(rb"\d+", lambda m: rng.choice(
            (b"9" * 400, b"1e999", b"-0", b"1.0", b"NaN", b"Infinity", b"-1", b"0x10", b"01",
             b"18446744073709551616", b"9223372036854775808", b"-9223372036854775809")),
            lines[i], count=1)
        return "number-text"
    if op == 14:
        depth = rng.choice((100, 1000, 10_000, 200_000))
        nest = rng.choice((b"[", b'{"a":'))
        close = b"]" if nest == b"[" else b"}"
        lines[i] = lines[i].replace(b"{", b'{"meta":' + nest * depth + b"1" + close * depth + b",", 1)
        return "deep-nesting"
    if op == 15:
        lines[i] = lines[i].replace(b'"player":', b'"player":0,"player":', 1)
        return "duplicate-key"
    if op == 16:
        lines[i] = lines[i].replace(b'"', b'"\\ud800', 1) if rng.random() < 0.5 else \
            lines[i].replace(b'":"', b'":"\\u0000', 1)
        return "escape"
    if op == 17:
        lines[0] = b"\xef\xbb\xbf" + lines[0]
        return "bom"
    if op == 18:
        lines[:] = [line + b"\r" for line in lines]
        return "crlf"
    if op == 19:
        lines[i] = lines[i] + b" " + lines[j]
        return "two-objects"
    if op == 20:
        lines[i] = b"[" + lines[i] + b"]"
        return "wrapped"
    if op == 21:
        k = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:k] + b"x" * rng.choice((1000, 100_000, 2_000_000)) + lines[i][k:]
        return "long-junk"
    if op == 22:
        seg = sorted((i, j))
        lines[seg[0]:seg[1] + 1] = reversed(lines[seg[0]:seg[1] + 1])
        return "reverse"
    lines[:] = lines + lines
    return "repeat-game"


# ---------------------------------------------------------------- the base material

class Material:
    """Valid games as lines, with and without derived events. Half of them are replayed
    with a low ``target`` so they end after a round or two: short games make fast cases."""

    def __init__(self, seed: int):
        games = valid_games(8, seed=seed)
        self.games = games[:4] + [shortened(g, 6 + i) for i, g in enumerate(games[4:])]
        self.full = [ev.encode_lines(g).splitlines() for g in self.games]
        self.inputs = [ev.encode_lines(e for e in g if type(e) not in ev.DERIVED_TYPES).splitlines()
                       for g in self.games]
        self.foreign = [line for g in self.full for line in g[::17]]


def shortened(game: list[ev.Event], target: int) -> list[ev.Event]:
    """The same play with ``target`` points to win: the engine's derived events, cut where
    the game now ends."""
    start = msgspec.structs.replace(game[0], target=target)
    inputs = [start] + [e for e in game[1:] if type(e) not in ev.DERIVED_TYPES]
    out = []
    for e, state in with_derived(inputs):
        out.append(e)
        if state.phase == ENDED:
            break
    return out


def with_id(first: bytes, game_id: str | None) -> bytes:
    obj = json.loads(first)
    if game_id is None:
        obj.pop("game_id", None)
    else:
        obj["game_id"] = game_id
    return _dump(obj)


def make_case(rng: random.Random, case: int, mat: Material, preexisting: str) -> tuple[bytes, list[str], list[str]]:
    """One broken log: (bytes, the mutations applied, the game ids it was meant to hold)."""
    out: list[bytes] = []
    names: list[str] = []
    ids: list[str] = []
    for k in range(rng.choice((1, 1, 1, 1, 2, 3))):
        g = rng.randrange(len(mat.games))
        lines = list((mat.inputs if rng.random() < 0.3 else mat.full)[g])
        if rng.random() < 0.6:
            lines = lines[:rng.randrange(1, len(lines) + 1)]     # a game in progress
        r = rng.random()
        if r < 0.75:
            gid = f"fz-{case}-{k}"
            lines[0] = with_id(lines[0], gid)
            ids.append(gid)
        elif r < 0.83:
            lines[0] = with_id(lines[0], None)
            names.append("no-id")
        elif r < 0.9:
            lines[0] = with_id(lines[0], preexisting)
            ids.append(preexisting)
            names.append("pre-existing-id")
        else:
            ids.append(mat.games[g][0].game_id)
            names.append("base-id")
        out.extend(lines)
    n_mut = rng.choice((0, 1, 1, 1, 2, 2, 3, 5))
    for _ in range(n_mut):
        if rng.random() < 0.55:
            names.append(mutate_json(rng, out))
        else:
            names.append(mutate_lines(rng, out, mat.foreign))
    data = b"\n".join(out) + (b"\n" if rng.random() < 0.9 else b"")
    return data, names, ids


# ---------------------------------------------------------------- the checks

def assert_clear(message: str, where: str) -> None:
    """A message a user can read: one line, not empty, no traceback, not the input echoed."""
    assert message and message.strip(), f"{where}: empty error message"
    assert len(message.splitlines()) == 1, f"{where}: multi-line error {message[:300]!r}"
    assert "Traceback" not in message, f"{where}: traceback in {message[:300]!r}"
    assert len(message) <= MAX_MESSAGE, f"{where}: {len(message)}-character error {message[:300]!r}..."


def event_count(store: Store) -> int:
    return store.con.execute("SELECT count(*) FROM events").fetchone()[0]


class Case(Struct):
    """One fuzz case written to a file."""

    number: int
    path: Path
    mutations: list[str]
    ids: list[str]

    def where(self, seed: int) -> str:
        return f"fuzz case {self.number} (seed {seed}; {', '.join(self.mutations) or 'no mutation'})"


def _heads(store: Store) -> dict[str, tuple]:
    """Every stored game's (event count, last seq)."""
    rows = store.con.execute("SELECT game_id, count(*), max(seq) FROM events GROUP BY game_id").fetchall()
    return {g: (n, m) for g, n, m in rows}


def run_library_batch(store: Store, cases: list[Case], strict: bool, seed: int) -> int:
    """Import the cases' files in one call and check the store; returns games stored.

    Games the import stored (new or extended) must be whole; every other game it touched
    must be as it was before (absent, or the same events)."""
    before = event_count(store)
    games_before = store.con.execute("SELECT count(*) FROM games").fetchone()[0]
    by_source = {str(c.path): c for c in cases}
    where_all = f"fuzz cases {cases[0].number}..{cases[-1].number} (seed {seed})"
    planned = {g for c in cases for g in c.ids}
    heads_before = _heads(store)
    try:
        summary = import_logs(store, [c.path for c in cases], strict=strict)
    except SeasaltError as exc:         # allowed: one clear line, nothing half-written
        assert_clear(str(exc), where_all)
        assert event_count(store) == before, f"{where_all}: {exc}, yet events were written"
        return 0
    except BaseException:
        culprit = _culprit(cases, strict)
        raise AssertionError(f"{culprit.where(seed) if culprit else where_all}: an exception "
                             "other than SeasaltError escaped import_logs") from None
    changed: set[str] = set()
    touched = set(planned)
    for o in summary.games:
        case = by_source.get(o.source)
        where = case.where(seed) if case else where_all
        assert o.status in ("new", "extended", "unchanged", "failed"), where
        if o.status == "failed":
            assert_clear(o.error or "", where)
        if o.game_id is not None:
            touched.add(o.game_id)
            if o.status in ("new", "extended") and summary.written:
                changed.add(o.game_id)
    grew = event_count(store) - before
    assert grew == summary.events_stored, (
        f"{where_all}: the events table grew by {grew}, the summary says {summary.events_stored}")
    if strict and summary.failed:
        assert grew == 0, f"{where_all}: --strict with failures stored {grew} events"
    heads_after = _heads(store)
    for gid in set(heads_after) | set(heads_before):
        if gid in changed:
            continue
        assert heads_after.get(gid) == heads_before.get(gid), (
            f"{where_all}: game {gid!r} was not reported stored, yet it changed "
            f"({heads_before.get(gid)} -> {heads_after.get(gid)})")
    for gid in changed:
        assert gid in heads_after, f"{where_all}: game {gid!r} reported stored but absent"
    # whole or absent: structure of every game the import touched; the engine and the read
    # models of a sample of the stored ones here, and of every game when the segment closes
    check = sorted(touched - (set(heads_before) - changed))
    assert_games_whole(store, check, verify=sorted(changed)[:VERIFY_PER_BATCH])
    return store.con.execute("SELECT count(*) FROM games").fetchone()[0] - games_before


def _culprit(cases: list[Case], strict: bool) -> Case | None:
    """The first case that makes import_logs raise on its own, in a scratch store."""
    import tempfile
    for c in cases:
        with tempfile.TemporaryDirectory() as d:
            with Store.open(Path(d) / "s.duckdb") as scratch:
                try:
                    import_logs(scratch, [c.path], strict=strict)
                except SeasaltError:
                    pass
                except BaseException:
                    return c
    return None


def run_cli_batch(runner: CliRunner, db: Path, cases: list[Case], seed: int) -> None:
    """``seasalt import`` on the same files: one clear line per failed game, no traceback."""
    where = f"fuzz cases {cases[0].number}..{cases[-1].number} (seed {seed}) through the CLI"
    result = runner.invoke(app, ["import", *(str(c.path) for c in cases), "--db", str(db),
                                 "--no-progress"])
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"{where}: the CLI raised {type(exc).__name__}: {exc}")
    assert result.exit_code in (0, 1), f"{where}: exit code {result.exit_code}"
    lines = result.stderr.splitlines()
    assert lines and lines[-1].startswith("games: "), f"{where}: no summary line"
    for line in lines:
        assert line.startswith(("error: ", "games: ")), f"{where}: unexpected output {line[:300]!r}"
        assert_clear(line, where)
    errors = sum(line.startswith("error: ") for line in lines)
    failed = int(re.search(r"(\d+) failed", lines[-1]).group(1))
    assert errors == failed, f"{where}: {failed} failed games but {errors} error lines"
    assert (failed > 0) == (result.exit_code == 1), f"{where}: exit {result.exit_code}, {failed} failed"
    assert "Traceback" not in result.output


def fuzz(tmp: Path, cases: int, seed: int, *, batch: int = BATCH, cli_every: int = CLI_EVERY,
         log=None) -> dict[str, int]:
    """Run ``cases`` fuzz cases, ``batch`` files per import; returns counts."""
    mat = Material(seed)
    runner = CliRunner()
    stats = {"cases": 0, "stored": 0, "mutations": 0, "cli_cases": 0}
    preexisting = mat.games[0][0].game_id
    pre_log = tmp / "pre.jsonl"
    pre_log.write_bytes(ev.encode_lines(mat.games[0]))
    store = None
    pre_export = b""
    cli_db = tmp / "cli.duckdb"
    cases_dir = tmp / "cases"
    t0 = time.time()
    try:
        for b, first in enumerate(range(0, cases, batch)):
            if first % SEGMENT < batch:
                if store is not None:
                    _close_segment(store, preexisting, pre_export)
                    store.close()
                for p in tmp.glob("lib-*.duckdb*"):
                    p.unlink()
                store = Store.open(tmp / f"lib-{first}.duckdb")
                assert import_logs(store, [pre_log]).new == 1
                pre_export = b"".join(export_lines(store, [preexisting]))
            shutil.rmtree(cases_dir, ignore_errors=True)
            cases_dir.mkdir()
            todo = []
            for number in range(first, min(first + batch, cases)):
                rng = random.Random(f"{seed}:{number}")
                data, names, ids = make_case(rng, number, mat, preexisting)
                path = cases_dir / f"case-{number}.jsonl"
                path.write_bytes(data)
                todo.append(Case(number, path, names, ids))
                stats["mutations"] += len(names)
            try:
                stats["stored"] += run_library_batch(store, todo, b % 10 == 9, seed)
                assert b"".join(export_lines(store, [preexisting])) == pre_export, (
                    f"fuzz cases {first}..: the pre-existing game changed")
                if cli_every and b % cli_every == 0:
                    run_cli_batch(runner, cli_db, todo, seed)
                    stats["cli_cases"] += len(todo)
            except BaseException:
                if KEEP:
                    Path(KEEP).mkdir(parents=True, exist_ok=True)
                    for c in todo:
                        shutil.copy(c.path, Path(KEEP) / f"seed-{seed}-{c.path.name}")
                raise
            stats["cases"] += len(todo)
            if log is not None and (b + 1) % 25 == 0:
                log(f"{stats['cases']} cases, {stats['stored']} games stored, "
                    f"{time.time() - t0:.0f} s")
        if store is not None:
            _close_segment(store, preexisting, pre_export)
    finally:
        if store is not None:
            store.close()
    if cli_db.exists():
        with Store.open(cli_db, read_only=True) as cli_store:
            report = verify_store(cli_store)
            assert report.ok, "\n".join(map(str, report.differences[:20]))
    stats["seconds"] = round(time.time() - t0)
    return stats


def _close_segment(store: Store, preexisting: str, pre_export: bytes) -> None:
    """The whole store verifies, and the pre-existing game is as it was."""
    report = verify_store(store)
    assert report.ok, "\n".join(map(str, report.differences[:20]))
    assert b"".join(export_lines(store, [preexisting])) == pre_export


# ---------------------------------------------------------------- the tests

def test_fuzzed_logs_import_whole_or_fail_cleanly(tmp_path):
    stats = fuzz(tmp_path, CASES, SEED)
    assert stats["cases"] == CASES
    assert stats["stored"] > 0           # some cases are valid games
    assert stats["cli_cases"] > 0


def test_mutator_breaks_most_logs(tmp_path):
    """The fuzzer is not toothless: most mutated logs are refused."""
    mat = Material(SEED)
    refused = 0
    for case in range(200):
        rng = random.Random(f"teeth:{case}")
        data, names, _ = make_case(rng, case, mat, "x")
        if not names or all(n in ("no-id", "pre-existing-id", "base-id") for n in names):
            continue
        path = tmp_path / "c.jsonl"
        path.write_bytes(data)
        summary = import_logs(None, [path])
        refused += summary.failed > 0
    assert refused > 80


@pytest.mark.parametrize("line, expect", [
    (b'{"type":"game_started","players":["a","b"],"meta":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
     "LOG-FORMAT"),
    (b'{"type":"game_started","players":["a","b"],"target":100000}', "LOG-FORMAT"),
    (b'{"type":"game_started","players":["a\\nb","c"]}', "LOG-FORMAT"),
    (b'{"type":"game_started","game_id":"x\\ny","players":["a","b"]}', "LOG-FORMAT"),
    (b'{"type":"game_started","game_id":"' + b"g" * 100_000 + b'","players":["a","b"]}', "LOG-FORMAT"),
])
def test_found_by_fuzzing(tmp_path, line, expect):
    """Inputs that once escaped as a Python exception or a multi-line / huge message."""
    path = tmp_path / "c.jsonl"
    path.write_bytes(line + b"\n")
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [path])
        assert summary.failed == 1
        msg = summary.games[0].error
        assert_clear(msg, "case")
        assert expect in msg
        assert event_count(store) == 0


def test_long_card_code_is_quoted_not_echoed():
    bad = b'{"type":"discard_taken","player":0,"pile":0,"card":"crab:' + b"k" * 1_000_000 + b'"}'
    with pytest.raises(SeasaltError) as info:
        ev.decode(bad)
    assert_clear(str(info.value), "decode")


# ---------------------------------------------------------------- the import's own guards

def _log(path: Path, *games) -> Path:
    path.write_bytes(b"".join(ev.encode_lines(g) for g in games))
    return path


def test_a_write_the_store_refuses_fails_only_its_game(tmp_path, monkeypatch):
    """A database error while writing (a value out of a column's range, say) is a failed
    game with a one-line message, not an exception; the other games of the batch are
    stored, the refused one is absent. (The bulk load of a chunk's new games is refused
    too: its games are then written one batch, and if need be one game, at a time.)"""
    import duckdb
    games = valid_games(3, seed=3)
    bad = games[1][0].game_id
    real_write = Store.write

    def refuse(con):
        con.execute("SELECT 1")
        raise duckdb.ConversionException("Conversion Error: value out of range\nLINE 1: ...")

    def load(self, files, games, skip=()):
        refuse(self.con)

    def write(self, batch):
        batch = list(batch)
        if any(w.game_id == bad for w in batch):
            refuse(self.con)
        return real_write(self, batch)

    monkeypatch.setattr(Store, "load", load)
    monkeypatch.setattr(Store, "write", write)
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [_log(tmp_path / "a.jsonl", *games)])
        assert [o.status for o in summary.games] == ["new", "failed", "new"]
        assert_clear(summary.games[1].error, "refused write")
        assert "the store refused the write" in summary.games[1].error
        assert store.head(bad)[0] == 0
        assert_games_whole(store, [g[0].game_id for g in games])
        assert summary.events_stored == len(games[0]) + len(games[2])


@pytest.mark.parametrize("store_it", [True, False])
def test_a_game_id_met_again_in_one_import(tmp_path, store_it):
    """The import keeps no game's events in memory: a repeated id is compared with what
    was stored (or, validating, with a digest) — a prefix is unchanged, a longer log
    extends, another history is a conflict."""
    game = valid_games(1, seed=5)[0]
    other = valid_games(2, seed=6)[1]
    other = [msgspec.structs.replace(other[0], game_id=game[0].game_id)] + other[1:]
    half = game[:len(game) // 2]
    log = _log(tmp_path / "a.jsonl", half, game, half, other)
    store = Store.open(tmp_path / "s.duckdb") if store_it else None
    try:
        summary = import_logs(store, [log])
        assert [o.status for o in summary.games] == ["new", "extended", "unchanged", "failed"]
        assert summary.games[3].rule == "CONFLICT"
        assert_clear(summary.games[3].error, "conflict")
        if store is not None:
            assert store.read_events(game[0].game_id) == game
            assert_games_whole(store)
    finally:
        if store is not None:
            store.close()


def test_import_with_progress(tmp_path):
    """The progress callback (what the CLI's bar shows on a terminal) sees the bytes read,
    up to the whole file, and the import is the same as without it."""
    games = valid_games(3, seed=9)
    log = _log(tmp_path / "a.jsonl", *games)
    seen = []
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [log], progress=lambda done, total: seen.append((done, total)))
        assert summary.new == 3 and summary.failed == 0
        assert_games_whole(store)
    size = log.stat().st_size
    assert seen and seen[-1] == (size, size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_cli_import_on_a_terminal_shows_progress_and_succeeds(tmp_path):
    """``seasalt import`` with stderr on a terminal (the progress bar on): exit 0, the
    summary, no traceback."""
    import subprocess

    from .reliability_helpers import seasalt_argv
    log = _log(tmp_path / "a.jsonl", *valid_games(2, seed=10))
    primary, secondary = os.openpty()
    try:
        proc = subprocess.run([*seasalt_argv(), "import", str(log), "--db", str(tmp_path / "s.duckdb")],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=secondary,
                              timeout=120, env={**os.environ, "TERM": "xterm", "COLUMNS": "100"})
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
    text = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    assert "games: 2 new" in text


@pytest.mark.parametrize("name", ["missing.jsonl", "a" * 5000 + ".jsonl"])
def test_a_file_that_cannot_be_read_is_one_line(tmp_path, name):
    """A missing file, or a name the system refuses (too long), is a one-line error, for
    the library and the CLI alike, and nothing is stored."""
    path = str(tmp_path / name)
    with pytest.raises(SeasaltError) as info:
        import_logs(None, [path])
    assert_clear(str(info.value)[-MAX_MESSAGE:], "read")
    result = CliRunner().invoke(app, ["import", path, "--db", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-300:]


# ---------------------------------------------------------------- decoding, property-based

_TAGS = [t.__struct_config__.tag for t in ev.EVENT_TYPES]
_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False) | st.text(max_size=30) | st.sampled_from(CODE_LIST),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20)
_field_names = st.sampled_from(["player", "players", "cards", "kept", "discard_pile", "pile",
                                "card", "took", "index", "drew", "victim", "stole", "round",
                                "first_player", "discards", "deck", "game_id", "target",
                                "ruleset", "meta", "at", "ending", "caller", "caller_won",
                                "card_points", "color_bonus", "points", "totals", "reason",
                                "winners", "extra"])


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=200))
def test_decode_of_any_bytes_is_an_event_or_a_format_error(data):
    try:
        ev.decode(data)
    except SeasaltError as exc:
        assert_clear(str(exc), repr(data[:50]))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(_TAGS + ["nope"]), st.dictionaries(_field_names, _json, max_size=8),
       st.integers(min_value=2, max_value=4))
def test_decode_and_validate_of_any_object_is_an_event_or_a_format_error(tag, fields, n):
    line = json.dumps({"type": tag, **fields}).encode()
    try:
        e = ev.decode(line)
        ev.validate(e, n)
        assert ev.decode(ev.encode(e)) == e         # what decodes, encodes back the same
    except SeasaltError as exc:
        assert_clear(str(exc), line[:100].decode())


@pytest.mark.parametrize("odd", ["\u2028", "\u0085", "\x1c", "\U000e0001", "\u200b"])
def test_a_conflict_quoting_line_separators_stays_on_one_line(tmp_path, odd):
    """Found by the long fuzz run: JSON keeps U+2028, U+0085 ... raw inside strings, and a
    conflict message quoting such an event broke into two lines."""
    game = valid_games(1, seed=15)[0]
    a = [msgspec.structs.replace(game[0], meta={"note": f"x{odd}y"})] + game[1:]
    b = [msgspec.structs.replace(game[0], meta={"note": f"x{odd}z"})] + game[1:]
    with Store.open(tmp_path / "s.duckdb") as store:
        assert import_logs(store, [_log(tmp_path / "a.jsonl", a)]).new == 1
        (o,) = import_logs(store, [_log(tmp_path / "b.jsonl", b)]).games
        assert o.status == "failed"
        assert_clear(o.error, "conflict")
        result = CliRunner().invoke(app, ["import", str(tmp_path / "b.jsonl"), "--db",
                                          str(tmp_path / "s.duckdb")])
    assert result.exit_code == 1
    assert [line[:7] for line in result.stderr.splitlines()] == ["error: ", "games: "]


def test_a_conflict_with_a_huge_event_is_quoted_around_the_difference(tmp_path):
    """Found by the long fuzz run: a conflict message quoted both events whole (with a
    10,000-character meta). It now shows where they differ, cut short."""
    game = valid_games(1, seed=12)[0]
    big = [msgspec.structs.replace(game[0], meta={"note": "a" * 10_000})] + game[1:]
    other = [msgspec.structs.replace(game[0], meta={"note": "a" * 10_000 + "b"})] + game[1:]
    with Store.open(tmp_path / "s.duckdb") as store:
        assert import_logs(store, [_log(tmp_path / "a.jsonl", big)]).new == 1
        summary = import_logs(store, [_log(tmp_path / "b.jsonl", other)])
        (o,) = summary.games
        assert o.status == "failed" and o.rule == "CONFLICT"
        assert_clear(o.error, "conflict")
        assert "event seq 1 differs" in o.error and 'aaab"' in o.error


def test_one_duckdb_thread_while_importing_and_as_many_as_before_after(tmp_path, monkeypatch):
    """While the workers use every CPU, the loads run on one DuckDB thread; the store's own
    setting comes back after the import, whatever it was."""
    seen = []
    real_load = Store.load

    def load(self, files, games, skip=()):
        seen.append(self.con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        return real_load(self, files, games, skip)

    monkeypatch.setattr(Store, "load", load)
    with Store.open(tmp_path / "s.duckdb") as store:
        store.con.execute("SET threads = 3")
        import_logs(store, [_log(tmp_path / "a.jsonl", *valid_games(2, seed=13))])
        assert store.con.execute("SELECT current_setting('threads')").fetchall()[0][0] == 3
    assert seen and set(seen) == {1}, seen


def test_duckdb_cache_is_capped_while_importing_and_restored_after(tmp_path, monkeypatch):
    """A large import would fill DuckDB's cache (80 % of the machine by default) with the
    blocks it writes: the import lowers ``memory_limit`` while it writes, then restores it."""
    from seasalt_log import service
    seen = []
    real_load = Store.load

    def load(self, files, games, skip=()):
        seen.append(self.con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return real_load(self, files, games, skip)

    monkeypatch.setattr(Store, "load", load)
    log = _log(tmp_path / "a.jsonl", *valid_games(2, seed=13))

    def setting(store):
        return store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

    with Store.open(tmp_path / "s.duckdb") as store:
        default = setting(store)
        import_logs(store, [log])
        assert setting(store) == default
        store.con.execute("SET memory_limit = '4GB'")
        custom = setting(store)
        import_logs(store, [_log(tmp_path / "b.jsonl", *valid_games(1, seed=14))])
        assert abs(service._bytes(setting(store)) / service._bytes(custom) - 1) < 0.05
    cap = service._bytes(service.IMPORT_MEMORY_LIMIT)
    assert len(seen) >= 2 and all(service._bytes(s) <= cap * 1.01 for s in seen), seen


def test_an_imports_loads_write_each_row_group_they_fill_and_the_setting_comes_back(
        tmp_path, monkeypatch):
    """While an import loads, each row group it fills is written at once (DuckDB's
    ``write_buffer_row_group_count`` at 1), not five at a time by the commit; the setting
    is put back after, as it was (the default, or one of the user's)."""
    seen = []
    real_load = Store.load

    def load(self, files, games, skip=()):
        seen.append(setting(self))
        return real_load(self, files, games, skip)

    def setting(store):
        return store.con.execute(
            "SELECT current_setting('write_buffer_row_group_count')").fetchone()[0]
    monkeypatch.setattr(Store, "load", load)
    with Store.open(tmp_path / "s.duckdb") as store:
        default = setting(store)
        import_logs(store, [_log(tmp_path / "a.jsonl", *valid_games(2, seed=13))])
        assert setting(store) == default != 1
        store.con.execute("SET write_buffer_row_group_count = 3")
        import_logs(store, [_log(tmp_path / "b.jsonl", *valid_games(1, seed=14))])
        assert setting(store) == 3
    assert len(seen) >= 2 and set(seen) == {1}, seen


def test_an_imports_commit_goes_straight_into_the_store_file(tmp_path):
    """An import's commit is written into the store's file (a checkpoint at the commit), not
    first into the write-ahead log that closing the store would copy into the file again;
    the setting that does it is put back after, as it was (the default, or one of the
    user's)."""
    def setting(store):
        return store.con.execute("SELECT current_setting('checkpoint_threshold')").fetchone()[0]

    db = tmp_path / "s.duckdb"
    wal = tmp_path / "s.duckdb.wal"
    with Store.open(db) as store:
        default = setting(store)
        import_logs(store, [_log(tmp_path / "a.jsonl", *valid_games(2, seed=13))])
        assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] > 0
        assert not wal.exists() or wal.stat().st_size == 0
        assert setting(store) == default
        store.con.execute("SET checkpoint_threshold = '64MB'")
        custom = setting(store)
        import_logs(store, [_log(tmp_path / "b.jsonl", *valid_games(1, seed=14))])
        assert setting(store) == custom
        assert not wal.exists() or wal.stat().st_size == 0
    with Store.open(db, read_only=True) as store:       # the games read back from the file
        assert store.con.execute("SELECT count(DISTINCT game_id) FROM events").fetchone()[0] == 3
