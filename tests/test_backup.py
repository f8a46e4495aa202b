"""Backups that hold every acknowledged event: ``seasalt backup`` after a writer was killed
(SIGKILL) in the middle of an import and in the middle of the live service, and through the
service while it runs; opening a store folds its write-ahead log into the file; a backup
never lands on the store, its WAL or a link to either."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.service import import_logs
from seasalt_log.store import Store
from seasalt_log.verify import verify_store

from .reliability_helpers import seasalt_argv, valid_games, write_log

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
runner = CliRunner()
TOKEN = "backup-token"


def wal(db: Path) -> Path:
    return Path(str(db) + ".wal")


def stored_events(db: Path) -> dict[str, list[str]]:
    """Every game's stored event JSON in seq order, read by plain DuckDB from a copy of the
    store (with its WAL, if any: DuckDB replays it in memory)."""
    with Store.open(db, read_only=True) as store:
        rows = store.con.execute("SELECT game_id, event FROM events ORDER BY game_id, seq").fetchall()
    out: dict[str, list[str]] = {}
    for gid, text in rows:
        out.setdefault(gid, []).append(text)
    return out


def file_only_events(db: Path, where: Path) -> int:
    """The events of the store file alone, copied without its WAL (the old advice)."""
    naive = where / "file-only.duckdb"
    shutil.copy(db, naive)
    con = duckdb.connect(str(naive), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM events").fetchone()[0]
    except duckdb.CatalogException:
        return 0
    finally:
        con.close()


def backup(db: Path, dest: Path, *extra: str) -> subprocess.CompletedProcess:
    r = subprocess.run([*seasalt_argv(), "backup", str(dest), "--db", str(db), *extra],
                       capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def assert_clean_copy(dest: Path) -> None:
    assert dest.exists() and not wal(dest).exists()
    with Store.open(dest, read_only=True) as store:
        report = verify_store(store)
    assert report.ok, report.differences[:10]
    r = subprocess.run([*seasalt_argv(), "verify", "--db", str(dest), "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "no differences" in r.stderr, r.stderr
    # no temporary file left beside the copy
    assert not [p for p in dest.parent.iterdir() if p.name.startswith(f".{dest.name}.")]


# ---------------------------------------------------------------- an import killed

def _import_argv(log: Path, db: Path, hold_after: int) -> list[str]:
    """``seasalt import`` with small batches that prints the store's event count after
    each commit: what the import has acknowledged as stored. Its commits stay in the WAL,
    as a live append's do (an import's own commits are checkpoints into the file: these
    tests are about committed events that sit in the WAL). After its ``hold_after``-th
    commit it waits to be killed (else, on a loaded machine, it could finish and fold its
    WAL into the file before the test's signal arrives)."""
    code = ("import contextlib, sys, time\n"
            "import seasalt_log.service as service\n"
            "service._checkpoint_at_commits = lambda store: contextlib.nullcontext()\n"
            "from seasalt_log.store.store import Store\n"
            "service.BATCH_EVENTS = 600\n"
            "from seasalt_log.importers.writer import ImportRun\n"
            "ImportRun.COMMIT_LOADS = 1\n"
            "_commit = Store.commit\n"
            "commits = 0\n"
            "def commit(self):\n"
            "    global commits\n"
            "    _commit(self)\n"
            "    commits += 1\n"
            "    n = self.con.execute('SELECT count(*) FROM events').fetchone()[0]\n"
            "    sys.stdout.write(f'committed {n}\\n')\n"
            "    sys.stdout.flush()\n"
            f"    if commits == {hold_after}:\n"
            "        time.sleep(600)\n"
            "Store.commit = commit\n"
            "from seasalt_cli.main import app\n"
            "app(prog_name='seasalt')")
    return [sys.executable, "-c", code, "import", str(log), "--db", str(db), "--no-progress",
            "--jobs", "1"]


def test_backup_after_an_import_is_killed_holds_every_committed_event(tmp_path):
    games = valid_games(60, seed=21)
    log = write_log(tmp_path / "games.jsonl", games)
    by_id = {g[0].game_id: [ev.encode(e).decode() for e in g] for g in games}
    db = tmp_path / "store.duckdb"
    proc = subprocess.Popen(_import_argv(log, db, hold_after=2), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    acknowledged = 0
    for _ in range(2):          # kill right after the second commit is acknowledged
        line = proc.stdout.readline()
        assert line.startswith(b"committed"), (line, proc.stderr.read())
        acknowledged = int(line.split()[1])
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    assert acknowledged > 0
    # the committed events sit in the WAL: the file alone (the old advice) lacks them
    assert wal(db).exists()
    assert file_only_events(db, tmp_path) < acknowledged

    dest = tmp_path / "backups" / "copy.duckdb"
    dest.parent.mkdir()
    r = backup(db, dest)
    assert r.returncode == 0, r.stderr
    assert_clean_copy(dest)
    copied = stored_events(dest)
    assert sum(map(len, copied.values())) >= acknowledged
    for gid, texts in copied.items():
        assert texts == by_id[gid], f"game {gid} differs from the log"
    # the store itself now holds them in its file: the WAL was folded in
    assert not wal(db).exists()
    assert stored_events(db) == copied
    # and the killed import completes when run again
    r = subprocess.run([*seasalt_argv(), "import", str(log), "--db", str(db), "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert stored_events(db) == by_id


# ---------------------------------------------------------------- the service killed

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """``seasalt serve`` in a child process, with a token."""

    def __init__(self, db: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([*seasalt_argv(), "serve", "--db", str(db), "--port",
                                      str(self.port), "--token", TOKEN],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.proc.stderr.read()
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.1)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)
        self.proc.stderr.close()

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)
        self.proc.stderr.close()


class Recorder(threading.Thread):
    """Records games over HTTP event by event, keeping what the service acknowledged:
    game id -> the events it answered 200/201 for (derived ones included)."""

    def __init__(self, url: str, games):
        super().__init__(daemon=True)
        self.url, self.games = url, games
        self.acked: dict[str, list[str]] = {}
        self.count = 0
        self.stop = threading.Event()

    def run(self) -> None:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        try:
            with httpx.Client(base_url=self.url, timeout=30, headers=auth) as c:
                for game in self.games:
                    gid = game[0].game_id
                    r = c.post("/games", content=ev.encode(game[0]))
                    if r.status_code != 201:
                        self.error = r.text
                        return
                    seq = self._ack(gid, r.json())
                    for e in game[1:]:
                        if type(e) in ev.DERIVED_TYPES:
                            continue
                        if self.stop.is_set():
                            return
                        r = c.post(f"/games/{gid}/events", content=ev.encode(e),
                                   headers={"If-Match": f'"{seq}"'})
                        if r.status_code != 200:
                            self.error = r.text
                            return
                        seq = self._ack(gid, r.json())
        except httpx.HTTPError:
            return              # the service was killed under us

    error: str | None = None

    def _ack(self, gid: str, answer: dict) -> int:
        texts = [ev.encode(ev.decode(msgspec_json(a))).decode() for a in answer["appended"]]
        self.acked.setdefault(gid, []).extend(texts)
        self.count += len(texts)
        return answer["seq"]


def msgspec_json(obj) -> bytes:
    import msgspec
    return msgspec.json.encode(obj)


def assert_holds(copied: dict[str, list[str]], acked: dict[str, list[str]], games) -> None:
    """Every acknowledged event is in the copy, in order; nothing else is but the games'
    own events (the one in flight when the service died may be there too)."""
    full = {g[0].game_id: [ev.encode(e).decode() for e in g] for g in games}
    for gid, texts in acked.items():
        assert copied.get(gid, [])[:len(texts)] == texts, f"game {gid}: an acknowledged event is missing"
    for gid, texts in copied.items():
        assert texts == full[gid][:len(texts)], f"game {gid} is not the recorded game"


def test_backup_after_the_service_is_killed_holds_every_acknowledged_event(tmp_path):
    games = valid_games(6, seed=31)
    db = tmp_path / "live.duckdb"
    service = Service(db)
    rec = Recorder(service.url, games)
    rec.start()
    deadline = time.monotonic() + 120
    while rec.count < 400 and rec.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    service.kill()              # mid-append: the recorder is still sending
    rec.join(timeout=60)
    assert rec.error is None and rec.count >= 400, rec.error
    assert wal(db).exists()     # the service's commits sit in the WAL
    assert file_only_events(db, tmp_path) < rec.count

    dest = tmp_path / "copy.duckdb"
    r = backup(db, dest)
    assert r.returncode == 0, r.stderr
    assert_clean_copy(dest)
    assert_holds(stored_events(dest), rec.acked, games)


def test_backup_through_the_running_service(tmp_path):
    games = valid_games(6, seed=41)
    db = tmp_path / "live.duckdb"
    service = Service(db)
    try:
        rec = Recorder(service.url, games)
        rec.start()
        while rec.count < 200 and rec.is_alive():
            time.sleep(0.02)
        # the store is the service's: a direct backup is refused as busy, pointing the way
        dest = tmp_path / "copy.duckdb"
        r = backup(db, dest)
        assert r.returncode == 1 and "busy" in r.stderr and "--url" in r.stderr, r.stderr
        assert not dest.exists()
        # without the token: refused, nothing written
        r = subprocess.run([*seasalt_argv(), "backup", str(dest), "--url", service.url],
                           capture_output=True, text=True, timeout=300, env=_no_token_env())
        assert r.returncode == 1 and "token" in r.stderr and not dest.exists(), r.stderr
        # onto the store or its WAL through the service: refused before anything is written
        for target in (db, wal(db)):
            r = backup(db, target, "--url", service.url, "--token", TOKEN)
            assert r.returncode == 1 and "refusing" in r.stderr, r.stderr
        before = {g: list(t) for g, t in rec.acked.items()}     # acknowledged before the backup
        r = backup(db, dest, "--url", service.url, "--token", TOKEN)
        assert r.returncode == 0, r.stderr
        rec.stop.set()
        rec.join(timeout=60)
        assert rec.error is None, rec.error
        assert_clean_copy(dest)
        assert_holds(stored_events(dest), before, games)
        assert sum(map(len, before.values())) >= 200
    finally:
        service.stop()
    # the service stopped cleanly: the store holds every acknowledged event
    assert_holds(stored_events(db), rec.acked, games)


def _no_token_env() -> dict:
    env = dict(os.environ)
    env.pop("SEASALT_TOKEN", None)
    return env


# ---------------------------------------------------------------- opening folds the WAL

def _store_with_wal(tmp_path) -> tuple[Path, int]:
    """A store whose last import's commit is only in its WAL (the importer killed after
    it), and the number of events committed."""
    games = valid_games(8, seed=51)
    db = tmp_path / "store.duckdb"
    with Store.open(db) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", games[:4])])
    argv = _import_argv(write_log(tmp_path / "b.jsonl", games[4:]), db, hold_after=1)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    assert line.startswith(b"committed"), line
    assert wal(db).exists()
    return db, int(line.split()[1])


def test_a_reading_command_folds_the_wal_into_the_file(tmp_path):
    db, committed = _store_with_wal(tmp_path)
    assert file_only_events(db, tmp_path) < committed
    result = runner.invoke(app, ["games", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert not wal(db).exists()
    assert file_only_events(db, tmp_path) >= committed


def test_a_reading_command_beside_another_reader_reads_the_wal_in_memory(tmp_path):
    """Another process reads the store: the command cannot fold the WAL (that needs the
    write lock), so it reads it in memory, sees every committed event, and leaves it."""
    db, committed = _store_with_wal(tmp_path)
    code = (f"import duckdb, sys; c = duckdb.connect({str(db)!r}, read_only=True); "
            "print('open', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"open"
        result = runner.invoke(app, ["query", "SELECT count(*) AS n FROM events", "--db", str(db),
                                     "--format", "csv"])
        assert result.exit_code == 0, result.output
        assert int(result.stdout.split()[-1]) >= committed
        assert wal(db).exists()
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
        holder.stdout.close()


# ---------------------------------------------------------------- refused destinations

def _digest(p: Path) -> str | None:
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


def test_backup_refuses_the_store_its_wal_and_links_to_them(tmp_path):
    db, _ = _store_with_wal(tmp_path)
    other = tmp_path / "sub"
    other.mkdir()
    (other / "link-to-store.duckdb").symlink_to(db)
    (other / "link-to-wal.duckdb").symlink_to(wal(db))
    os.link(db, other / "hard-link.duckdb")
    (other / "dir.duckdb").mkdir()
    (other / "stale.duckdb.wal").write_bytes(b"a log of some other file")
    cases = {
        str(db): "the store itself",
        str(tmp_path / "sub" / ".." / "store.duckdb"): "the store itself",
        str(wal(db)): "write-ahead log",
        str(other / "link-to-store.duckdb"): "a link to the store itself",
        str(other / "link-to-wal.duckdb"): "a link to the store's write-ahead log",
        str(other / "hard-link.duckdb"): "a link to the store",
        str(other / "dir.duckdb"): "is a directory",
        str(other / "stale.duckdb"): "would be replayed",
        str(tmp_path / "missing" / "x.duckdb"): "does not exist",
    }
    before = {p: _digest(p) for p in (db, wal(db))}
    listing = sorted(p.name for p in other.iterdir())
    for dest, says in cases.items():
        result = runner.invoke(app, ["backup", dest, "--db", str(db)])
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1 and says in lines[0], (dest, result.stderr)
        assert {p: _digest(p) for p in (db, wal(db))} == before, f"{dest}: the store changed"
        assert sorted(p.name for p in other.iterdir()) == listing
    # a good destination works, and leaves nothing beside it
    result = runner.invoke(app, ["backup", str(other / "good.duckdb"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert_clean_copy(other / "good.duckdb")


def test_a_failed_copy_in_the_service_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    """The service cannot copy (a full disk beside the store, simulated): the client says
    so in one line, exit 1, and DEST is not created; the service goes on."""
    from seasalt_log.http.app import create_app
    from seasalt_log.http.server import ServerThread
    import seasalt_log.http.live as live

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    db = tmp_path / "live.duckdb"
    dest = tmp_path / "copy.duckdb"
    with ServerThread(create_app(db)) as url:
        monkeypatch.setattr(live, "copy_while_quiet", full)
        result = runner.invoke(app, ["backup", str(dest), "--url", url])
        assert result.exit_code == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
        assert not dest.exists() and list(tmp_path.glob(".copy.duckdb.*")) == []
        monkeypatch.undo()
        result = runner.invoke(app, ["backup", str(dest), "--url", url])
        assert result.exit_code == 0, result.output
    assert_clean_copy(dest)


def test_the_service_still_holds_the_store_after_a_backup(tmp_path):
    """Copying the store must not drop the service's lock on it (a POSIX lock goes with the
    first close of any descriptor of the file in the process): after `POST /backup` another
    process still cannot open the store, so no second writer can start beside the service."""
    from seasalt_log.http.app import create_app
    from seasalt_log.http.server import ServerThread
    db = tmp_path / "live.duckdb"
    probe = [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}, read_only=True)"]
    with ServerThread(create_app(db)) as url:
        assert subprocess.run(probe, capture_output=True).returncode != 0     # held
        for n in range(2):
            result = runner.invoke(app, ["backup", str(tmp_path / f"copy{n}.duckdb"), "--url", url])
            assert result.exit_code == 0, result.output
            r = subprocess.run(probe, capture_output=True, text=True)
            assert r.returncode != 0 and "lock" in r.stderr, "the store was left unlocked"
        assert httpx.post(url + "/games", json={"type": "game_started", "game_id": "after",
                                                "players": ["A", "B"]}).status_code == 201
    assert_clean_copy(tmp_path / "copy1.duckdb")


def test_a_direct_backup_holds_the_store_until_it_closes_it(tmp_path, monkeypatch):
    """`seasalt backup` on the store itself keeps its lock while it checks the copy (it
    still has the store open for writing, which it closes last)."""
    import seasalt_log.store.backup as backup_mod
    db = tmp_path / "store.duckdb"
    with Store.open(db) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", valid_games(2, seed=53))])
    probe = [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}, read_only=True)"]
    seen = []
    real = backup_mod.write_copy

    def write_copy(dest, fill, events):
        result = real(dest, fill, events)          # the copy is written and checked
        seen.append(subprocess.run(probe, capture_output=True).returncode)
        return result
    monkeypatch.setattr(backup_mod, "write_copy", write_copy)
    result = runner.invoke(app, ["backup", str(tmp_path / "copy.duckdb"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert seen and seen[0] != 0, "the store was unlocked while the backup still held it open"
    assert_clean_copy(tmp_path / "copy.duckdb")


def test_backup_replaces_an_earlier_copy_but_not_a_file_that_is_no_database(tmp_path):
    """`seasalt backup games.jsonl` (the log given by mistake) is refused and the log kept;
    an earlier backup, or an empty file, is replaced."""
    db = tmp_path / "store.duckdb"
    with Store.open(db) as store:
        import_logs(store, [write_log(tmp_path / "a.jsonl", valid_games(2, seed=52))])
    log = tmp_path / "a.jsonl"
    before = _digest(log)
    result = runner.invoke(app, ["backup", str(log), "--db", str(db)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "not a DuckDB database" in lines[0] and str(log) in lines[0]
    assert _digest(log) == before
    for dest in (tmp_path / "nightly.duckdb", tmp_path / "empty.duckdb"):
        if dest.name == "empty.duckdb":
            dest.write_bytes(b"")
        for _ in range(2):          # the second run replaces the first copy
            result = runner.invoke(app, ["backup", str(dest), "--db", str(db)])
            assert result.exit_code == 0, result.output
        assert_clean_copy(dest)
