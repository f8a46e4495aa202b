"""Large imports cut into chunks of whole games and checked by worker processes
(seasalt_log.importers.chunks): the chunks read exactly like the whole log, and an import
through worker processes stores exactly what the one-game-at-a-time path stores, with the
same outcomes, errors and line numbers (R-FLOW and LOG-FORMAT errors included)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec
import pytest

from seasalt_log import events as ev
from seasalt_log import service
from seasalt_log.importers.chunks import split
from seasalt_log.service import import_games, import_logs
from seasalt_log.store import Store

from .reliability_helpers import assert_games_whole, table_rows, valid_games, write_log

GAMES = valid_games(8, seed=21)


def _log_bytes(games) -> bytes:
    return b"".join(ev.encode_lines(g) for g in games)


@pytest.mark.parametrize("size", [1, 500, 5_000, 10**9])
def test_chunks_are_the_log_cut_at_game_starts(size):
    data = _log_bytes(GAMES) + b'{"type":"turn_ended","player":0}'     # no final newline
    chunks = list(split(io.BytesIO(data), "log.jsonl", size=size))
    assert b"".join(c.data for c in chunks) == data
    line = 1
    for i, c in enumerate(chunks):
        assert c.index == i and c.first_line == line and c.source == "log.jsonl"
        line += c.data.count(b"\n")
        if i:
            assert ev.decode(c.data.split(b"\n", 1)[0]).__class__ is ev.GameStarted
    if size == 1:        # every game its own chunk: cut at each of them
        assert len(chunks) == len(GAMES)
    if size == 10**9:
        assert len(chunks) == 1


def test_a_chunk_is_never_cut_at_a_line_that_only_mentions_game_started():
    """A player name, a meta value or a broken line holding the words is no game start."""
    g = GAMES[0]
    named = [msgspec.structs.replace(g[0], players=["game_started", *g[0].players[1:]],
                                     meta=msgspec.Raw(b'{"note":"game_started"}'))] + g[1:]
    data = (_log_bytes([named]) + b'{"type":"game_started",\n'    # broken: not a start
            + _log_bytes(GAMES[1:2]))
    chunks = list(split(io.BytesIO(data), "x", size=1))
    assert len(chunks) == 2
    assert chunks[1].data == _log_bytes(GAMES[1:2])


def _through_workers(monkeypatch, events_per_chunk: int = 400):
    """Small chunks, so that a small log makes several of them and worker processes start."""
    monkeypatch.setattr(service, "BATCH_EVENTS", events_per_chunk)


def test_workers_store_what_the_serial_path_stores(tmp_path, monkeypatch):
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        expected = import_games(s, GAMES, source=str(log))
        rows = table_rows(s)
    _through_workers(monkeypatch)
    with Store.open(tmp_path / "chunks.duckdb") as s:
        got = import_logs(s, [log], jobs=2)
        assert table_rows(s) == rows
        assert_games_whole(s)
    assert msgspec.to_builtins(got) == msgspec.to_builtins(expected)
    assert got.new == len(GAMES) and got.events_stored == sum(len(g) for g in GAMES)



@pytest.mark.parametrize("jobs", [2, 4])
def test_a_small_log_gives_every_worker_several_chunks(jobs, monkeypatch):
    """A 20 MB log on two workers was five 4 MB chunks: the fifth left one worker idle."""
    default = service.chunk_size(None, jobs)
    assert service.chunk_size(20_000_000, jobs) <= 20_000_000 // (4 * jobs)
    assert service.chunk_size(20_000_000, 1) == default          # one worker: no need
    assert service.chunk_size(10 ** 9, jobs) == default          # a large log: a few MB
    assert service.chunk_size(1_000, jobs) == service.MIN_CHUNK_BYTES
    monkeypatch.setattr(service, "BATCH_EVENTS", 600)           # a lowered batch: its size
    assert service.chunk_size(20_000_000, jobs) == 600 * 40


def test_errors_keep_their_file_and_line_in_a_later_chunk(tmp_path, monkeypatch):
    """A bad game deep in the log is reported at its own line (R-TAKE-2: an empty pile),
    and the good games of every chunk are stored."""
    games = [list(g) for g in GAMES]
    bad = games[6]
    i = next(k for k, e in enumerate(bad) if type(e) is ev.DiscardTaken)
    bad[i] = msgspec.structs.replace(bad[i], pile=1 - bad[i].pile)
    log = write_log(tmp_path / "a.jsonl", games)
    line = sum(len(g) for g in games[:6]) + i + 1
    _through_workers(monkeypatch)
    with Store.open(tmp_path / "s.duckdb") as s:
        summary = import_logs(s, [log], jobs=2)
        failed = [o for o in summary.games if o.status == "failed"]
        assert [o.game_id for o in failed] == [bad[0].game_id]
        assert failed[0].line == line
        assert failed[0].error.startswith(f"{log}:{line}: game {bad[0].game_id}")
        assert summary.new == len(games) - 1
        assert s.head(bad[0].game_id)[0] == 0
        assert_games_whole(s)


def test_a_game_met_again_in_a_later_chunk(tmp_path, monkeypatch):
    """The same id in another chunk: a prefix then the whole game extends, the same game
    again is unchanged, another history is a conflict — as in one process."""
    game = GAMES[0]
    other = [msgspec.structs.replace(GAMES[1][0], game_id=game[0].game_id)] + GAMES[1][1:]
    half = game[:len(game) // 2]
    log = write_log(tmp_path / "a.jsonl", [half, *GAMES[2:5], game, GAMES[5], half, game, other])
    _through_workers(monkeypatch)
    with Store.open(tmp_path / "s.duckdb") as s:
        summary = import_logs(s, [log], jobs=2)
        statuses = [o.status for o in summary.games if o.game_id == game[0].game_id]
        assert statuses == ["new", "extended", "unchanged", "unchanged", "failed"]
        assert s.read_events(game[0].game_id) == game
        assert_games_whole(s)
        again = import_logs(s, [log], jobs=2)          # every game stored already
        assert again.new == 0 and again.extended == 0 and again.failed == 1


def test_strict_stores_nothing_when_a_later_chunk_fails(tmp_path, monkeypatch):
    games = [list(g) for g in GAMES]
    games[7][3] = msgspec.structs.replace(games[7][3], player=9)    # LOG-FORMAT: no such seat
    log = write_log(tmp_path / "a.jsonl", games)
    _through_workers(monkeypatch)
    with Store.open(tmp_path / "s.duckdb") as s:
        summary = import_logs(s, [log], jobs=2, strict=True)
        assert not summary.written and summary.failed == 1 and summary.events_stored == 0
        assert s.con.execute("SELECT count(*) FROM events").fetchone()[0] == 0
        assert s.con.execute("SELECT count(*) FROM turns").fetchone()[0] == 0


def test_validating_through_workers_writes_nothing_and_finds_the_same(tmp_path, monkeypatch):
    game = GAMES[0]
    other = [msgspec.structs.replace(GAMES[1][0], game_id=game[0].game_id)] + GAMES[1][1:]
    log = write_log(tmp_path / "a.jsonl", [*GAMES, other])
    serial = import_games(None, [*GAMES, other], source=str(log))
    _through_workers(monkeypatch)
    parallel = import_logs(None, [log], jobs=2)
    assert msgspec.to_builtins(parallel) == msgspec.to_builtins(serial)
    assert parallel.failed == 1 and parallel.games[-1].rule == "CONFLICT"
    assert parallel.events_stored == sum(len(g) for g in GAMES)     # the events it checked


def test_an_import_sweeps_the_files_of_imports_killed_before_it(tmp_path, monkeypatch):
    """A killed import cannot remove its workers' files: the next import removes those
    whose process is gone, keeps those of a live one, and leaves nothing of its own."""
    import os
    import subprocess
    import sys
    import tempfile
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)          # re-read TMPDIR
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    dead = tmp_path / "tmp" / f"seasalt-import-{gone}-abc"
    live = tmp_path / "tmp" / f"seasalt-import-{os.getpid()}-xyz"
    for d in (dead, live):
        d.mkdir()
        (d / "events-0.parquet").write_bytes(b"x")
    log = write_log(tmp_path / "a.jsonl", GAMES[:2])
    with Store.open(tmp_path / "s.duckdb") as s:
        assert import_logs(s, [log]).new == 2
    assert not dead.exists() and live.exists()
    assert sorted(p.name for p in (tmp_path / "tmp").iterdir()) == [live.name]


@pytest.mark.parametrize("workers", [False, True])
def test_validate_against_a_store_finds_what_an_import_would(tmp_path, monkeypatch, workers):
    """validate --db: a game stored already is unchanged, a longer log extends it, another
    history under its id is a conflict — as the import would say — and the store is not
    written (it is opened read-only)."""
    game, other = GAMES[0], GAMES[1]
    half = game[:len(game) // 2]
    clash = [msgspec.structs.replace(other[0], game_id=GAMES[2][0].game_id)] + other[1:]
    with Store.open(tmp_path / "s.duckdb") as s:
        import_games(s, [half, GAMES[2], GAMES[3]])
    before = (tmp_path / "s.duckdb").read_bytes()
    log = write_log(tmp_path / "a.jsonl", [game, GAMES[3], clash, *GAMES[4:]])
    if workers:
        _through_workers(monkeypatch)
    with Store.open(tmp_path / "s.duckdb", read_only=True) as ro:
        summary = import_logs(None, [log], jobs=2, against=ro)
    assert [o.status for o in summary.games] == ["extended", "unchanged", "failed", "new",
                                                 "new", "new", "new"]
    starts = [n for n, text in enumerate(log.read_text().splitlines(), 1)
              if json.loads(text)["type"] == "game_started"]
    assert summary.games[2].rule == "CONFLICT"
    assert summary.games[2].error.startswith(         # located like any import error
        f"{log}:{starts[2]}: game {GAMES[2][0].game_id}: CONFLICT: a different history is "
        "stored under this id; event seq 1 differs")
    assert summary.games[0].events == len(game) - len(half)
    assert (tmp_path / "s.duckdb").read_bytes() == before
    with Store.open(tmp_path / "s2.duckdb") as s:       # the import says the same
        import_games(s, [half, GAMES[2], GAMES[3]])
        imported = import_logs(s, [log], jobs=2)
    assert [o.status for o in imported.games] == [o.status for o in summary.games]
    assert imported.games[2].error == summary.games[2].error


def _several_loads_per_transaction(monkeypatch):
    """Small chunks, one chunk per load, three loads per transaction, the chunks loaded
    waiting in files."""
    from seasalt_log.importers.writer import ImportRun
    _through_workers(monkeypatch, 300)
    monkeypatch.setattr(ImportRun, "LOAD_BATCHES", 1)
    monkeypatch.setattr(ImportRun, "COMMIT_LOADS", 3)
    monkeypatch.setattr(ImportRun, "KEPT_BYTES", 0)


def test_the_chunks_of_the_open_transaction_wait_in_memory_up_to_a_budget_then_in_files(
        tmp_path, monkeypatch):
    """The lines of the chunks loaded into the open transaction (read again only if it
    fails) stay in memory up to ``ImportRun.KEPT_BYTES`` of log: a small log writes no
    file; past the budget each chunk loaded waits in a file, removed at the commit."""
    from seasalt_log.importers.chunks import Chunk
    from seasalt_log.importers.writer import ImportRun
    log = write_log(tmp_path / "a.jsonl", GAMES)
    _through_workers(monkeypatch, 300)
    real_spill, spilled = Chunk.spill, []

    def spill(self, directory):
        spilled.append(self.index)
        real_spill(self, directory)
    monkeypatch.setattr(Chunk, "spill", spill)
    for kept, db in ((ImportRun.KEPT_BYTES, "a.duckdb"), (log.stat().st_size // 2, "b.duckdb")):
        spilled.clear()
        monkeypatch.setattr(ImportRun, "KEPT_BYTES", kept)
        with Store.open(tmp_path / db) as s:
            import_logs(s, [log], jobs=1)
            assert_games_whole(s)
        if kept > log.stat().st_size:
            assert spilled == []
        else:       # the chunks past the first half of the log
            assert 0 < len(spilled) and spilled == sorted(spilled) and spilled[0] > 0


@pytest.mark.parametrize("fail_at", [1, 2, 4])
def test_a_load_refused_mid_transaction_costs_only_the_game_at_fault(tmp_path, monkeypatch,
                                                                    fail_at):
    """The store refuses the n-th load of a transaction holding several: the whole
    transaction is rolled back, the games of its loads (their lines read back from the
    spilled chunks) are written one at a time, and the log is stored as the serial path
    stores it."""
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        expected = import_games(s, GAMES, source=str(log))
        rows = table_rows(s)
    _several_loads_per_transaction(monkeypatch)
    real, calls = Store.load, [0]

    def load(self, files, games, skip=()):
        calls[0] += 1
        real(self, files, games, skip)
        if calls[0] == fail_at:
            self.con.execute("SELECT error('disk full (simulated)')")
    monkeypatch.setattr(Store, "load", load)
    with Store.open(tmp_path / "chunks.duckdb") as s:
        got = import_logs(s, [log], jobs=1)
        assert table_rows(s) == rows
        assert_games_whole(s)
    assert calls[0] > fail_at                       # loads went on after the failure
    assert msgspec.to_builtins(got) == msgspec.to_builtins(expected)


def test_a_commit_refused_costs_only_the_game_at_fault(tmp_path, monkeypatch):
    """Another connection commits a row under a game the open transaction loaded: the
    transaction's COMMIT fails (DuckDB ends it), its games are written one at a time, and
    only that game fails, as a conflict."""
    log = write_log(tmp_path / "a.jsonl", GAMES)
    _several_loads_per_transaction(monkeypatch)
    real, done = Store.load, []

    def load(self, files, games, skip=()):
        real(self, files, games, skip)
        if not done and games:
            done.append(games[0])
            other = self.con.cursor()
            other.execute("INSERT INTO events VALUES (?, 1, 0, 0, 0, NULL, 'game_started', '{}')",
                          [games[0]])
            other.execute("INSERT INTO heads VALUES (?, 1)", [games[0]])  # as a writer does
            other.close()
    monkeypatch.setattr(Store, "load", load)
    with Store.open(tmp_path / "s.duckdb") as s:
        summary = import_logs(s, [log], jobs=1)
        assert [o.game_id for o in summary.games if o.status == "failed"] == done
        assert summary.new == len(GAMES) - 1
        for g in GAMES:
            if g[0].game_id not in done:
                assert s.read_events(g[0].game_id) == g


def test_one_worker_checks_a_files_chunks_in_a_thread_and_standard_inputs_in_the_importer(
        tmp_path, monkeypatch):
    """With one worker the chunks of a file are checked by a thread beside the importer's
    loads, and the store gets what the one-game-at-a-time path gives; chunks of standard
    input are checked by the importer's own thread (a stopped import must not wait for a
    read of a stream that waits for its input)."""
    import threading

    from seasalt_log.importers import chunks as chunks_mod
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        import_games(s, GAMES, source=str(log))
        rows = table_rows(s)
    _through_workers(monkeypatch, 300)
    real, threads = chunks_mod.check_chunk, []

    def check_chunk(chunk):
        threads.append(threading.get_ident())
        return real(chunk)
    monkeypatch.setattr(chunks_mod, "check_chunk", check_chunk)
    with Store.open(tmp_path / "file.duckdb") as s:
        import_logs(s, [log], jobs=1)
        assert table_rows(s) == rows
    assert len(threads) > 2 and set(threads) != {threading.get_ident()}
    threads.clear()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log.read_bytes())))
    with Store.open(tmp_path / "stdin.duckdb") as s:
        import_logs(s, ["-"], jobs=1)
        assert s.con.execute("SELECT count(*) FROM games").fetchone()[0] == len(GAMES)
    assert len(threads) > 2 and set(threads) == {threading.get_ident()}


def test_one_worker_hands_its_rows_over_in_memory_and_workers_write_files(tmp_path, monkeypatch):
    """Checked in the importer's process, a chunk's rows stay Arrow tables (no file written,
    then read back) and are let go once loaded; worker processes write one Arrow file per
    table, removed once loaded. With two jobs and a log of at most 4 chunks per job, one
    worker process and a thread of the importer's process check the chunks in turn, the
    thread the first one; a larger log, two worker processes. All store what the one-game-at-a-time path stores."""
    import pyarrow as pa

    from seasalt_log.importers.writer import ImportRun
    from seasalt_log.store import arrow_rows
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        import_games(s, GAMES, source=str(log))
        rows = table_rows(s)
    _through_workers(monkeypatch, 300)
    real_add, real_file, seen, files = ImportRun.add_chunk, arrow_rows.ipc.new_file, [], []
    indexes: list[int] = []

    def add_chunk(self, chunk, result):
        seen.append(dict(result.files))
        indexes.append(chunk.index)
        real_add(self, chunk, result)
        assert result.files == {}               # loaded: nothing of them kept
    monkeypatch.setattr(ImportRun, "add_chunk", add_chunk)
    monkeypatch.setattr(arrow_rows.ipc, "new_file",
                        lambda path, *a: files.append(path) or real_file(path, *a))
    with Store.open(tmp_path / "one.duckdb") as s:
        import_logs(s, [log], jobs=1)
        assert table_rows(s) == rows
    assert len(seen) > 2 and not files
    assert all(isinstance(v, pa.Table) for f in seen for v in f.values()) and seen[0]["events"]
    for parts, local in ((6, True), (12, False)):   # chunks expected: up to 4 per job or more
        seen.clear()
        indexes.clear()
        monkeypatch.setattr(service, "chunk_size", lambda total, jobs: total // parts)
        with Store.open(tmp_path / f"two-{parts}.duckdb") as s:
            import_logs(s, [log], jobs=2)
            assert table_rows(s) == rows
        assert indexes == list(range(len(seen))) and len(seen) > 3
        # in memory (the thread's) or files (a process's), the first chunk the thread's
        here: list[dict] = []
        there: list[dict] = []
        for f in seen:
            (here if all(isinstance(v, pa.Table) for v in f.values()) else there).append(f)
        assert (here and seen[0] is here[0]) if local else not here
        paths = [v for f in there for v in f.values()]
        assert all(isinstance(v, str) for v in paths) and not files  # (written there)
        assert paths or local
        assert not any(Path(p).exists() for p in paths)


@pytest.mark.parametrize("smallest", [1, 3_000, 10_000, 10**9])
def test_the_last_chunk_tapers_into_pieces_of_whole_games(smallest):
    """Each piece holds about half of what is left of the chunk, down to ``smallest``
    bytes or one game: the same lines, each piece starting at a game start on its own
    line number, numbered on from the chunk, the cut on the last piece."""
    from seasalt_log.importers.chunks import Chunk, Cut, taper
    data = _log_bytes(GAMES)
    starts = [0]
    for g in GAMES[:-1]:
        starts.append(starts[-1] + len(ev.encode_lines(g)))
    cut = Cut(line=99, kind="game", limit=5)
    chunk = Chunk(source="log", index=4, first_line=11, data=data, cut=cut)
    pieces = taper(chunk, smallest)
    assert b"".join(p.data for p in pieces) == data
    line, at = 11, 0
    for k, p in enumerate(pieces):
        assert (p.index, p.first_line, p.source) == (4 + k, line, "log")
        assert at in starts                                     # cut at game starts only
        assert p.cut == (cut if k == len(pieces) - 1 else None)
        rest = len(data) - at
        if k < len(pieces) - 1:     # up to the first game start past half of what was left
            assert rest > smallest
            assert at + len(p.data) == min(s for s in starts if s - at >= rest // 2)
        else:
            assert rest <= smallest or not [s for s in starts if s - at >= rest // 2]
        line += p.data.count(b"\n")
        at += len(p.data)
    if smallest == 10**9:
        assert pieces == [chunk]
    if smallest == 1:                           # halving down to the last game
        assert len(pieces) > 2 and pieces[-1].data == ev.encode_lines(GAMES[-1])
    assert taper(Chunk(source="log", index=0, first_line=1, data=ev.encode_lines(GAMES[0])),
                 1)[0].data == ev.encode_lines(GAMES[0])        # one game: not cut


def test_only_the_last_chunk_tapers():
    from seasalt_log.importers.chunks import Chunk, _tapered
    whole = [Chunk(source="log", index=i, first_line=1, data=_log_bytes(GAMES)) for i in range(3)]
    got = list(_tapered(whole, 1))
    assert got[:2] == whole[:2] and len(got) > 3
    # the small tables go in with the last piece but one
    assert [c.flush_staged for c in got] == [False] * (len(got) - 2) + [True, False]
    assert [c.index for c in got] == list(range(len(got)))
    assert b"".join(c.data for c in got[2:]) == whole[2].data
    assert list(_tapered([], 1)) == []
    spilled = Chunk(source="log", index=0, first_line=1, data=b"", spilled="x")
    assert list(_tapered([spilled], 1)) == [spilled]


def test_one_worker_with_a_tapered_last_chunk_stores_and_reports_the_same(tmp_path, monkeypatch):
    """The last chunk cut into small pieces: the same rows, outcomes and lines as one game
    at a time, with a bad game and a game met again in the pieces."""
    from seasalt_log.importers import chunks as chunks_mod
    games = [list(g) for g in GAMES]
    bad = games[6]
    i = next(k for k, e in enumerate(bad) if type(e) is ev.DiscardTaken)
    bad[i] = msgspec.structs.replace(bad[i], pile=1 - bad[i].pile)
    games = [*games, games[5], games[3][:10]]
    log = write_log(tmp_path / "a.jsonl", games)
    with Store.open(tmp_path / "serial.duckdb") as s:
        expected = import_logs(s, [log], jobs=1)        # one chunk, not tapered
        rows = table_rows(s)
    monkeypatch.setattr(chunks_mod, "TAIL_BYTES", 1)
    real, sizes = chunks_mod.check_chunk, []
    monkeypatch.setattr(chunks_mod, "check_chunk",
                        lambda c: sizes.append(len(c.data)) or real(c))
    with Store.open(tmp_path / "tapered.duckdb") as s:
        got = import_logs(s, [log], jobs=1)
        assert table_rows(s) == rows
        assert_games_whole(s)
    assert len(sizes) > 3
    assert msgspec.to_builtins(got) == msgspec.to_builtins(expected)
    assert [o.status for o in got.games].count("failed") == 1


def test_the_small_tables_go_in_with_the_last_chunks_piece_but_one(tmp_path, monkeypatch):
    """The small tables' rows staged so far go in once, with the load of the last chunk's
    piece before its last one (while the last is checked), rather than at each piece or
    all after the last at the commit: the same rows, in the same transaction."""
    from seasalt_log.importers import chunks as chunks_mod
    from seasalt_log.importers.writer import ImportRun
    from seasalt_log.store import arrow_rows
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        import_games(s, GAMES, source=str(log))
        rows = _rows_in_order(s)
    monkeypatch.setattr(chunks_mod, "TAIL_BYTES", 1)
    seen: list[tuple[str, object]] = []
    real_add, real_insert, real_commit = ImportRun.add_chunk, arrow_rows.insert, Store.commit

    def add_chunk(self, chunk, result):
        seen.append(("flush" if chunk.flush_staged else "chunk", chunk.index))
        real_add(self, chunk, result)

    def commit(self):
        seen.append(("commit", None))
        real_commit(self)
    monkeypatch.setattr(ImportRun, "add_chunk", add_chunk)
    monkeypatch.setattr(arrow_rows, "insert",
                        lambda con, t, got: seen.append(("insert", t)) or real_insert(con, t, got))
    monkeypatch.setattr(Store, "commit", commit)
    with Store.open(tmp_path / "tapered.duckdb") as s:
        import_logs(s, [log], jobs=1)
        assert _rows_in_order(s) == rows
    flush = [k for k, (what, _) in enumerate(seen) if what == "flush"]
    chunks = [k for k, (what, _) in enumerate(seen) if what in ("chunk", "flush")]
    games = [k for k, x in enumerate(seen) if x == ("insert", "games")]
    assert len(flush) == 1 and len(chunks) > 3 and seen.count(("commit", None)) == 1
    commit = seen.index(("commit", None))
    # with its load (the rows staged so far), then the last piece's by the commit
    assert chunks[-2] == flush[0] < games[0] < chunks[-1] < commit < games[1]
    assert len(games) == 2


@pytest.mark.parametrize("expect, count, started_after", [(8, 4, 0), (0, 4, 3), (0, 2, None),
                                                          (3, 1, 0)])
def test_workers_start_before_the_first_chunk_is_cut_when_the_input_is_large(
        monkeypatch, expect, count, started_after):
    """An input expected to make enough chunks starts its workers before cutting any (the
    first chunks are cut while they start); else they start once three chunks are cut, or
    never for fewer. Either way every chunk comes back checked, in order."""
    from seasalt_log import workers
    from seasalt_log.importers import chunks as chunks_mod
    data = [_log_bytes(GAMES[k::count]) for k in range(count)]
    cut: list[int] = []
    pools: list[int] = []
    real_pool = workers.Pool

    def counting_pool(*a, **k):
        pools.append(len(cut))
        return real_pool(*a, **k)
    monkeypatch.setattr(workers, "Pool", counting_pool)

    def log():
        for k, d in enumerate(data):
            cut.append(k)
            yield chunks_mod.Chunk(source="log", index=k, first_line=1, data=d)
    setup = chunks_mod.WorkerSetup(stored=frozenset(), out_dir=None)
    got = list(chunks_mod.check_chunks(log(), setup, 2, expect=expect))
    assert pools == ([] if started_after is None else [started_after])
    assert [c.index for c, _ in got] == list(range(count))
    assert [len(r.games) for _, r in got] == [len(GAMES[k::count]) for k in range(count)]
    assert all(g.failure is None for _, r in got for g in r.games)


def test_an_import_of_a_large_log_starts_its_workers_before_cutting_it(tmp_path, monkeypatch):
    """The log's size says how many chunks it makes: enough, and the workers start first."""
    from seasalt_log import workers
    log = write_log(tmp_path / "a.jsonl", GAMES)
    _through_workers(monkeypatch, 300)
    cut: list[int] = []
    pools: list[int] = []
    real_pool, real_chunks = workers.Pool, service.log_chunks

    def counting_pool(*a, **k):
        pools.append(len(cut))
        return real_pool(*a, **k)

    def counted(*a, **k):
        for c in real_chunks(*a, **k):
            cut.append(c.index)
            yield c
    monkeypatch.setattr(workers, "Pool", counting_pool)
    monkeypatch.setattr(service, "log_chunks", counted)
    monkeypatch.setattr(service, "chunk_size", lambda total, jobs: total // 6)
    with Store.open(tmp_path / "s.duckdb") as s:
        got = import_logs(s, [log], jobs=2)
    assert got.new == len(GAMES) and len(cut) >= 3
    assert pools == [0]


def test_a_byte_order_mark_keeps_a_chunk_on_the_bulk_path(tmp_path):
    """A log starting with a UTF-8 byte-order mark is read like the same log without it,
    its first chunk decoded in bulk still (its games keep their lines as ``texts``)."""
    from seasalt_log.importers.jsonl import read_games_data
    data = ev.encode_lines([e for g in GAMES[:3] for e in g])
    plain = list(read_games_data(data, "a.jsonl"))
    marked = list(read_games_data(b"\xef\xbb\xbf" + data, "a.jsonl"))
    assert all(g.texts is not None for g in plain)
    assert marked == plain


def test_the_small_tables_of_a_transactions_loads_go_in_at_its_commit(tmp_path, monkeypatch):
    """Each load inserts the tables with many rows; a small table's rows of all the loads
    of a transaction go in with one INSERT as it commits (an INSERT costs about the same
    whatever its size), and every table's rows keep the serial path's order (rowid)."""
    from seasalt_log.store import arrow_rows
    from seasalt_log.store.arrow_rows import StagedRows
    log = write_log(tmp_path / "a.jsonl", GAMES)
    with Store.open(tmp_path / "serial.duckdb") as s:
        import_games(s, GAMES, source=str(log))
        rows = _rows_in_order(s)
    _several_loads_per_transaction(monkeypatch)
    monkeypatch.setattr(StagedRows, "EARLY_ROWS", 50)     # a game's events, not its games row
    inserts: dict[str, int] = {}
    real_insert, real_load, real_commit = arrow_rows.insert, Store.load, Store.commit
    loads, commits = [0], [0]

    def insert(con, table, got):
        inserts[table] = inserts.get(table, 0) + 1
        real_insert(con, table, got)

    def load(self, files, games, skip=()):
        loads[0] += bool(games)
        real_load(self, files, games, skip)

    def commit(self):
        commits[0] += 1
        real_commit(self)
    monkeypatch.setattr(arrow_rows, "insert", insert)
    monkeypatch.setattr(Store, "load", load)
    monkeypatch.setattr(Store, "commit", commit)
    with Store.open(tmp_path / "chunks.duckdb") as s:
        import_logs(s, [log], jobs=1)
        assert _rows_in_order(s) == rows
    assert inserts["events"] == loads[0] > commits[0] >= 2
    assert inserts["games"] == inserts["seats"] == inserts["heads"] == commits[0]


def _rows_in_order(store: Store) -> dict[str, list]:
    """Every table's rows but ``checked_games`` (the record of a load of chunks, which a
    store written game by game does not keep)."""
    tables = [r[0] for r in store.con.execute("SELECT table_name FROM duckdb_tables() "
                                              "WHERE table_name <> 'checked_games'").fetchall()]
    return {t: store.con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
