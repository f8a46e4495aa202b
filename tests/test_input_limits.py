"""Bounded input (docs/LOG_FORMAT.md, "Identifiers, limits and meta"; issue: hardening):
a line over the line limit and a game over the game limit are LOG-FORMAT errors found
without reading the rest, memory and time stay bounded whatever a log holds, and a run of
games the store refuses stops the import with one message."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.identifiers import MAX_LINE_BYTES
from seasalt_log.importers.chunks import Cut, split
from seasalt_log.importers.writer import ImportRun, ImportStopped
from seasalt_log.service import import_logs
from seasalt_log.store import Store

from .reliability_helpers import seasalt_argv, valid_games, write_log

START = b'{"type":"game_started","players":["a","b"]}\n'
TURN = b'{"type":"turn_ended","player":0}\n'
GAMES = valid_games(6, seed=5)


def _chunks(data: bytes, **limits):
    return list(split(io.BytesIO(data), "log", size=1, **limits))


# ---------------------------------------------------------------- the splitter, small limits

def test_a_line_at_the_limit_passes_and_one_byte_more_is_cut_there():
    ok = b"x" * 50 + b"\n"
    assert _chunks(START + ok + TURN, max_line=50, max_game=10_000)[0].cut is None
    chunks = _chunks(START + TURN + b"x" * 51 + b"\n" + TURN, max_line=50, max_game=10_000)
    assert [c.data for c in chunks] == [START + TURN]      # the lines before it, whole
    assert chunks[-1].cut == Cut(line=3, kind="line", limit=50)


class Endless(io.RawIOBase):
    """A stream of zero bytes that never ends (like /dev/zero), counting what is read."""

    def __init__(self):
        self.read_bytes = 0

    def readable(self):
        return True

    def read(self, n=-1):
        n = 1 << 16 if n is None or n < 0 else n
        self.read_bytes += n
        return b"\0" * n


def test_an_endless_line_is_cut_after_reading_a_bounded_amount():
    stream = Endless()
    chunks = list(split(stream, "zero", size=1 << 16, max_line=1000, max_game=10_000))
    assert [(c.data, c.cut) for c in chunks] == [(b"", Cut(line=1, kind="line", limit=1000))]
    assert stream.read_bytes <= 2 * (1 << 16)


def test_a_game_over_the_game_limit_keeps_what_fits_and_skips_its_rest():
    big = START + TURN * 40                   # line 2: its start; lines 3..42: its turns
    data = START + big + START + TURN         # lines 43, 44: the next game
    limit = len(START) + 5 * len(TURN) + 10   # the start and 5 turns fit, not 6
    chunks = _chunks(data, max_line=100, max_game=limit)
    assert [c.data for c in chunks] == [START, START + TURN * 5, START + TURN]
    assert [c.first_line for c in chunks] == [1, 2, 43]
    assert chunks[1].cut == Cut(line=8, kind="game", limit=limit)     # 2 + 1 + 5
    assert chunks[0].cut is None and chunks[2].cut is None


def test_a_long_line_in_the_skipped_rest_of_a_game_still_ends_the_stream():
    data = START + TURN * 10 + b"y" * 300 + b"\n" + START
    chunks = _chunks(data, max_line=100, max_game=len(START) + 2 * len(TURN))
    assert chunks[0].cut == Cut(line=4, kind="game", limit=len(START) + 2 * len(TURN))
    assert (chunks[-1].data, chunks[-1].cut) == (b"", Cut(line=12, kind="line", limit=100))


def test_the_last_line_of_a_skipped_game_may_start_a_game_without_a_newline():
    game_start = START.rstrip(b"\n")
    chunks = _chunks(START + TURN * 10 + game_start, max_line=100,
                     max_game=len(START) + 2 * len(TURN))
    assert chunks[-1].data.rstrip(b"\n") == game_start and chunks[-1].first_line == 12


# ---------------------------------------------------------------- imports, the real limits

def _log(path: Path, *parts) -> Path:
    with open(path, "wb") as fh:
        for p in parts:
            fh.write(p if isinstance(p, bytes) else ev.encode_lines(p))
    return path


def _big_meta_start(game, size: int) -> bytes:
    line = ev.encode(game[0])
    return line[:-1] + b',"meta":{"blob":"' + b"m" * size + b'"}}\n'


def _ids(store: Store) -> list[str]:
    return [r[0] for r in store.con.execute("SELECT game_id FROM games ORDER BY 1").fetchall()]


@pytest.mark.parametrize("validating", [False, True])
def test_a_meta_over_the_line_limit_fails_at_its_line_and_the_file_stops_there(tmp_path,
                                                                             validating):
    g1, g2, g3 = GAMES[:3]
    n1 = len(g1)
    path = _log(tmp_path / "big.jsonl", g1, _big_meta_start(g2, 2 * MAX_LINE_BYTES), g2[1:], g3)
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(None if validating else store, [path], jobs=1)
        assert [(g.game_id, g.status) for g in summary.games] == [
            (g1[0].game_id, "new"), (None, "failed")]
        bad = summary.games[1]
        assert (bad.line, bad.rule) == (n1 + 1, "LOG-FORMAT")
        assert bad.error.startswith(f"{path}:{n1 + 1}: LOG-FORMAT: a line may hold at most")
        assert "Out of Memory" not in bad.error
        assert _ids(store) == ([] if validating else [g1[0].game_id])


def test_a_long_line_in_a_game_in_play_fails_that_game(tmp_path):
    g = GAMES[0]
    path = _log(tmp_path / "cut.jsonl", g[:20], b"[" + b" " * MAX_LINE_BYTES + b"]\n", g[20:])
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [path], jobs=1)
        assert [(g.game_id, g.status, g.line) for g in summary.games] == [
            (GAMES[0][0].game_id, "failed", 21)]
        assert f"{path}:21: game {g[0].game_id}: LOG-FORMAT: a line may" in summary.games[0].error
        assert _ids(store) == []


def test_a_50_mb_meta_is_one_log_format_line_on_the_command_line(tmp_path):
    path = _log(tmp_path / "meta.jsonl", _big_meta_start(GAMES[0], 50_000_000), GAMES[0][1:])
    r = CliRunner().invoke(app, ["import", str(path), "--db", str(tmp_path / "s.duckdb")])
    assert r.exit_code == 1
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {path}:1: LOG-FORMAT: a line may hold at most 1,048,576 bytes; "
                      f"line 1 is longer (the rest of {path} is not read)"]


def test_import_of_dev_zero_ends_quickly_with_one_line_and_the_store_unchanged(tmp_path):
    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        import_logs(store, [write_log(tmp_path / "one.jsonl", GAMES[:1])], jobs=1)
        before = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    done = subprocess.run([*seasalt_argv(), "import", "/dev/zero", "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == ("error: /dev/zero:1: LOG-FORMAT: a line may hold at "
                                           "most 1,048,576 bytes; line 1 is longer (the rest "
                                           "of /dev/zero is not read)")
    assert "Traceback" not in done.stderr
    with Store.open(db, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] == before


_MEMORY = textwrap.dedent("""
    import resource, sys
    from seasalt_log.service import import_logs
    from seasalt_log.store import Store
    with Store.open(sys.argv[2]) as store:
        import_logs(store, [], jobs=1)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        summary = import_logs(store, [sys.argv[1]], jobs=1)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(grown // 1024, summary.games[0].error)
""")


def _memory_mb(path: str, db: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", _MEMORY, path, str(db)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    grown, error = done.stdout.strip().split(" ", 1)
    return int(grown), error


def test_memory_stays_bounded_on_a_200_mb_log_with_no_game_start(tmp_path):
    path = tmp_path / "nostart.jsonl"
    with open(path, "wb") as fh:
        block = TURN * (1 << 20 // len(TURN))
        while fh.tell() < 200_000_000:
            fh.write(block)
    grown, error = _memory_mb(str(path), tmp_path / "s.duckdb")
    assert error == f"{path}:1: LOG-FORMAT: the log must begin with a game_started line at $.type"
    assert grown < 160, f"{grown} MB for a 200 MB log"          # it took 880 MB


def test_memory_stays_bounded_on_dev_zero(tmp_path):
    grown, error = _memory_mb("/dev/zero", tmp_path / "s.duckdb")
    assert error.startswith("/dev/zero:1: LOG-FORMAT: a line may hold at most")
    assert grown < 64, f"{grown} MB for /dev/zero"


# ---------------------------------------------------------------- a store that refuses writes

def _full_disk(monkeypatch, only: str | None = None):
    """Make the store refuse every write (or only the writes holding game ``only``)."""
    real_write, real_load = Store.write, Store.load

    def write(self, batch):
        batch = list(batch)
        if only is None or any(w.game_id == only for w in batch):
            raise duckdb.IOException('Could not write file "s.duckdb.wal": No space left on device')
        return real_write(self, batch)

    def load(self, files, ids, skip):
        if only is None or only in ids:
            raise duckdb.IOException('Could not write file "s.duckdb.wal": No space left on device')
        return real_load(self, files, ids, skip)
    monkeypatch.setattr(Store, "write", write)
    monkeypatch.setattr(Store, "load", load)


def test_a_run_of_refused_writes_stops_the_import_with_one_message(tmp_path, monkeypatch):
    many = valid_games(20, seed=9)
    path = write_log(tmp_path / "many.jsonl", many)
    db = tmp_path / "s.duckdb"
    _full_disk(monkeypatch)
    with Store.open(db) as store:
        with pytest.raises(ImportStopped) as info:
            import_logs(store, [path], jobs=1)
        assert _ids(store) == []
    msg = str(info.value)
    assert msg.startswith(f"the store refused the write of {ImportRun.MAX_REFUSALS} games in a "
                          f"row, so the import stopped at {path}:1 (game {many[0][0].game_id}): ")
    assert msg.endswith("No space left on device; 0 game(s) stored before it")
    r = CliRunner().invoke(app, ["import", str(path), "--db", str(db), "--no-progress"])
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    r = CliRunner().invoke(app, ["import", str(path), "--db", str(db), "--strict"])
    assert r.exit_code == 1
    assert r.output.strip().splitlines() == [r.output.strip()]
    assert r.output.strip().endswith("; nothing stored (--strict)")


def test_a_game_the_store_refuses_alone_fails_alone(tmp_path, monkeypatch):
    many = valid_games(8, seed=9)
    path = write_log(tmp_path / "many.jsonl", many)
    bad = many[3][0].game_id
    _full_disk(monkeypatch, only=bad)
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [path], jobs=1)
        assert [g.game_id for g in summary.games if g.status == "failed"] == [bad]
        assert sorted(_ids(store)) == sorted(g[0].game_id for g in many if g[0].game_id != bad)


def test_the_cut_error_is_a_seasalt_error_naming_file_and_line():
    err = Cut(line=7, kind="game", limit=100).error("x.jsonl")
    assert isinstance(err, SeasaltError)
    assert str(err).startswith("x.jsonl:7: LOG-FORMAT: a game may take at most 100 bytes")


def test_chunks_of_failed_games_do_not_pile_up_waiting_for_a_load(tmp_path, monkeypatch):
    from seasalt_log import service
    bad = [START + TURN * 50 for _ in range(40)]        # each fails at its line 2 (R-FLOW)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(bad))
    monkeypatch.setattr(service, "CHUNK_BYTES", 2 * len(bad[0]))    # chunks of 3 games
    monkeypatch.setattr(ImportRun, "PENDING_BYTES", 7 * len(bad[0]))
    waiting = []
    real = ImportRun.add_chunk

    def add_chunk(self, chunk, result):
        real(self, chunk, result)
        waiting.append((sum(len(c.data) for c, _ in self.chunks) + self.loaded_bytes,
                        len(self.summary.games)))
    monkeypatch.setattr(ImportRun, "add_chunk", add_chunk)
    with Store.open(tmp_path / "s.duckdb") as store:
        summary = import_logs(store, [path], jobs=1)
    assert summary.failed == 40 and len(waiting) >= 10
    # a chunk is loaded as soon as it is checked: nothing waits, and with nothing loaded
    # the chunk's failed games are settled at once, chunk after chunk
    assert max(held for held, _ in waiting) < 7 * len(bad[0])     # not the whole log's worth
    settled = [n for _, n in waiting]
    assert settled == sorted(settled) and settled[0] > 0 and settled[-1] == 40
