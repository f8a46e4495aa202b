"""Ctrl-C at any step of `seasalt import` (and `validate`, `simulate --db`, `rebuild`):
exit code 130 with one line, ``error: interrupted``, and the store as docs/RELIABILITY.md
promises (a store the import made: removed, having no game; a store there before: its games
and rows as they were, or with whole transactions more)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from seasalt_cli.main import app
from seasalt_log import events as ev
from seasalt_log.errors import SeasaltError
from seasalt_log.store.store import Store

from .randomplay import play_random_game

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> tuple[Path, Path]:
    """A log of six games, and one of its first two (for a store there before)."""
    base = tmp_path_factory.mktemp("logs")
    games = [play_random_game(seed, 2 + seed % 3) for seed in range(6)]
    paths = base / "all.jsonl", base / "first.jsonl"
    for path, some in zip(paths, (games, games[:2])):
        path.write_bytes(b"".join(ev.encode_lines(g) for g in some))
    return paths


def _stopped_mid_statement(store: Store) -> None:
    """What DuckDB does when Ctrl-C lands while it runs a statement: the statement fails,
    which leaves the transaction aborted, and says "Query interrupted"."""
    with contextlib.suppress(duckdb.Error):
        store.con.execute("SELECT CAST('x' AS INTEGER)")
    raise RuntimeError("Query interrupted")


def _stopped_as_duckdb_error(store: Store) -> None:
    """The same, reported as DuckDB's InterruptException (a DuckDB error: no refused write)."""
    with contextlib.suppress(duckdb.Error):
        store.con.execute("SELECT CAST('x' AS INTEGER)")
    raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")


def _stopped_between_statements(store: Store) -> None:
    raise KeyboardInterrupt


STEPS = {   # the step stopped: a Store method, and how
    "insert": ("finish_loads", _stopped_mid_statement),
    "commit": ("commit", _stopped_mid_statement),
    "load": ("load", _stopped_between_statements),
    "commit, as a DuckDB error": ("commit", _stopped_as_duckdb_error),
}


def _interrupt(monkeypatch, step: str) -> None:
    name, stop = STEPS[step]
    monkeypatch.setattr(Store, name, lambda self, *a, **k: stop(self))


def _state(db: Path) -> tuple[str, str]:
    return run("export", "--all", "--db", db).stdout, run("games", "--db", db, "--limit", "0",
                                                          "--format", "csv").stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("step", list(STEPS))
@pytest.mark.parametrize("existing", [False, True], ids=["new store", "existing store"])
def test_ctrl_c_at_each_step_of_an_import(tmp_path, logs, monkeypatch, step, jobs, existing):
    every, first = logs
    db = tmp_path / "s.duckdb"
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    if existing:
        assert run("import", first, "--db", db).exit_code == 0
        before = _state(db)
    _interrupt(monkeypatch, step)
    r = run("import", every, "--db", db, "--jobs", jobs)
    assert (r.exit_code, r.stderr) == (130, "error: interrupted\n")
    assert r.stdout == ""
    monkeypatch.undo()
    assert not list((tmp_path / "tmp").iterdir())     # no scratch directory left
    if not existing:
        assert not db.exists() and not Path(f"{db}.wal").exists()
        return
    assert _state(db) == before
    assert run("verify", "--db", db).exit_code == 0
    r = run("import", every, "--db", db)                   # importing again completes it
    assert r.exit_code == 0 and "4 new, 0 extended, 2 unchanged" in r.stderr


@pytest.mark.parametrize("step", ["insert", "commit"])
def test_ctrl_c_mid_statement_of_a_library_import(tmp_path, logs, monkeypatch, step):
    """The library's import raises what stopped it, and leaves the store usable at once."""
    from seasalt_log.service import import_logs
    every, first = logs
    with Store.open(tmp_path / "s.duckdb") as store:
        import_logs(store, [first], jobs=1)
        with monkeypatch.context() as m:
            _interrupt(m, step)
            with pytest.raises(RuntimeError, match="Query interrupted"):
                import_logs(store, [every], jobs=1)
        assert len(store.heads()) == 2
        assert import_logs(store, [every], jobs=1).new == 4


def test_a_store_failure_after_ctrl_c_is_still_an_interruption(tmp_path, logs, monkeypatch):
    """When a DuckDB error follows Ctrl-C during the cleanup (its cause in the chain), the
    command ends as interrupted, not as a damaged store."""
    import seasalt_cli.store_cmds as store_cmds

    def stopped(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        finally:
            raise duckdb.TransactionException(
                "TransactionContext Error: Current transaction is aborted (please ROLLBACK)")
    monkeypatch.setattr(store_cmds, "import_logs", stopped)
    db = tmp_path / "s.duckdb"
    r = run("import", logs[0], "--db", db)
    assert (r.exit_code, r.stderr) == (130, "error: interrupted\n")
    assert not db.exists()


def test_ctrl_c_while_the_store_opens_is_an_interruption(tmp_path, logs, monkeypatch):
    """Ctrl-C stops a statement of the store's opening once its transaction has ended (as
    an interrupted COMMIT may): the ROLLBACK after it finds no transaction, and the command
    still ends as interrupted (130, one line), not as a store that cannot be opened (a
    sweep of real signals met it)."""
    import seasalt_log.store.store as store_mod
    real = store_mod.migrate_projections

    def stopped(con):
        real(con)
        con.execute("COMMIT")
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")
    monkeypatch.setattr(store_mod, "migrate_projections", stopped)
    r = run("import", logs[0], "--db", tmp_path / "s.duckdb")
    assert (r.exit_code, r.stderr) == (130, "error: interrupted\n")
    # the store's own error says the interrupt, not the ROLLBACK that found no transaction
    with pytest.raises(SeasaltError, match="Interrupted") as opening:
        Store.open(tmp_path / "t.duckdb")
    assert isinstance(opening.value.__context__, duckdb.InterruptException)


# ------------------------------------------------------------ real signals, a short sweep

@pytest.fixture(scope="module")
def big_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "sim.jsonl"
    exe = Path(sys.executable).with_name("seasalt")
    subprocess.run([str(exe), "simulate", "-n", "150", "-p", "3", "-s", "5", "--out", str(path)],
                   check=True)
    return path


def test_sigint_at_a_sweep_of_moments(tmp_path, big_log):
    """SIGINT sent to `seasalt import` at moments spread over the whole import: each run
    ends with the import done (exit 0) or interrupted (130, one line), and a new store is
    either removed or holds whole transactions that verify."""
    exe = Path(sys.executable).with_name("seasalt")
    start = time.perf_counter()
    subprocess.run([str(exe), "import", str(big_log), "--db", str(tmp_path / "t.duckdb")],
                   check=True, capture_output=True)
    took = time.perf_counter() - start
    steps = 8
    for i in range(steps):
        db = tmp_path / f"s{i}.duckdb"
        env = dict(os.environ, TMPDIR=str(tmp_path / f"tmp{i}"))
        os.mkdir(env["TMPDIR"])
        proc = subprocess.Popen([str(exe), "import", str(big_log), "--db", str(db),
                                 "--jobs", str(1 + i % 2)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                # a shell starts a background job with SIGINT ignored
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(0.3 + took * i / steps)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert (proc.returncode, err) == (130, "error: interrupted\n") or (
            proc.returncode == 0 and "150 new" in err), (i, proc.returncode, err)
        assert not os.listdir(env["TMPDIR"]), i
        if db.exists():
            assert run("verify", "--db", db).exit_code == 0, i
        else:
            assert not Path(f"{db}.wal").exists()


def _sigint() -> None:
    """Ctrl-C for real: Python runs its handler right after this call."""
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100):    # the handler raises here, if it does
        time.sleep(0.001)


@pytest.mark.skipif(signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
                    reason="SIGINT is not Python's here (ignored in a background job)")
@pytest.mark.parametrize("existing", [False, True], ids=["new store", "existing store"])
def test_a_second_ctrl_c_during_the_cleanup_is_ignored(tmp_path, logs, monkeypatch, existing):
    """The first Ctrl-C (a real SIGINT, mid-load) stops the import; another during the
    rollback and another while a store the import made is removed change nothing: one
    line, exit 130, the store as after one Ctrl-C. Python's handler is back afterwards."""
    import seasalt_cli.store_cmds as store_cmds
    every, first = logs
    db = tmp_path / "s.duckdb"
    if existing:
        assert run("import", first, "--db", db).exit_code == 0
        before = _state(db)
    real_abandon, real_remove = Store.abandon, store_cmds._remove_if_empty
    calls = []

    def abandon(self):
        calls.append("abandon")
        _sigint()
        real_abandon(self)

    def remove(path):
        calls.append("remove")
        _sigint()
        real_remove(path)
    monkeypatch.setattr(Store, "finish_loads", lambda self, *a, **k: _sigint())
    monkeypatch.setattr(Store, "abandon", abandon)
    monkeypatch.setattr(store_cmds, "_remove_if_empty", remove)
    r = run("import", every, "--db", db, "--jobs", "1")
    assert (r.exit_code, r.stderr) == (130, "error: interrupted\n")
    assert calls == (["abandon"] if existing else ["abandon", "remove"])   # one rollback
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.undo()
    if existing:
        assert _state(db) == before
    else:
        assert not db.exists() and not Path(f"{db}.wal").exists()


def test_a_worker_whose_importer_stopped_before_its_first_task_exits_quietly():
    """Ctrl-C while the workers start: the importer closes their input before sending
    them anything; a worker then exits 0 without a word (it printed EOFError's traceback
    on the terminal, after the importer's `error: interrupted`)."""
    proc = subprocess.run([sys.executable, "-m", "seasalt_log.workers"], input=b"",
                          capture_output=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_workers_are_out_of_reach_of_a_terminal_ctrl_c():
    """Each worker is in a process group of its own: Ctrl-C at a terminal signals the
    importer alone, which stops its workers itself."""
    from seasalt_log.workers import Pool
    with Pool(2) as pool:
        assert [os.getpgid(p.pid) for p in pool.procs] == [p.pid for p in pool.procs]
        assert list(pool.map(abs, [-1, -2])) == [(-1, 1), (-2, 2)]


def test_ctrl_c_is_held_while_duckdb_loads():
    """Ctrl-C while DuckDB's extension module initialises aborted the interpreter (a
    "Critical nanobind error" and SIGABRT); the CLI holds SIGINT until it is loaded."""
    probe = ("import signal, sys\n"
             "class Probe:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             "        if name == 'duckdb':\n"
             "            held = signal.pthread_sigmask(signal.SIG_BLOCK, [])\n"
             "            print(signal.SIGINT in held, flush=True)\n"
             "sys.meta_path.insert(0, Probe())\n"
             "import seasalt_cli.main\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "True\n"), proc.stderr
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
