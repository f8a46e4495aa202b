"""A writer thread that ends by an exception (a bug outside the guarded calls) must not hang
the service: the appends waiting and every later one are refused (WriterFailed, 503
``writer_stopped``), the error is logged once with its traceback, reads go on, close returns,
and the store holds nothing of the commit that failed (docs/HTTP.md, "503 writer_stopped")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading

import httpx
import pytest

from seasalt_log import events as ev
from seasalt_log.http import live as live_mod
from seasalt_log.http.app import create_app
from seasalt_log.http.discovery import announce, find
from seasalt_log.http.live import LiveStore, WriterFailed
from seasalt_log.http.problems import PROBLEM_JSON
from seasalt_log.http.server import ServerThread
from seasalt_log.store import Store

from .randomplay import play_random_game

BOUND = 10.0        # seconds within which every waiting append must be answered


class Bug(BaseException):
    """An error no guard of the writer catches (they catch Exception)."""


def _inputs(game: list[ev.Event]) -> list[ev.Event]:
    return [e for e in game if type(e) not in ev.DERIVED_TYPES]


async def _until(cond, seconds: float = BOUND) -> None:
    for _ in range(int(seconds / 0.002)):
        if cond():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("timed out")


@contextlib.asynccontextmanager
async def _running(path):
    """A started LiveStore on ``path``, closed within the bound on the way out."""
    live = LiveStore(path)
    await live.start()
    try:
        yield live
    finally:
        await asyncio.wait_for(live.close(), BOUND)


def _writer_logs(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "writer stopped" in r.getMessage()]


def test_a_committer_that_dies_refuses_what_waits_and_stores_nothing(tmp_path, monkeypatch,
                                                                     caplog):
    """The committer dies inside a commit (after writing every row, at COMMIT): that append,
    the one planned behind it and the one still queued are all answered WriterFailed; a later
    one too, at once; the game reads as the store holds it (the game's start only); close
    returns; the error is logged once, with its traceback."""
    game = _inputs(play_random_game(7, 2))
    gid = game[0].game_id
    real_commit = Store.commit
    gate, armed, reached = threading.Event(), threading.Event(), threading.Event()

    def commit(self):
        if armed.is_set():
            reached.set()
            assert gate.wait(BOUND)
            raise Bug("a bug in the committer")
        return real_commit(self)

    monkeypatch.setattr(Store, "commit", commit)
    caplog.set_level(logging.ERROR)

    async def run():
        async with _running(tmp_path / "dies.duckdb") as live:
            first = await live.start_game(game[0])
            armed.set()
            a = asyncio.ensure_future(live.append(gid, [game[1]], 1))
            await _until(reached.is_set)                     # a's rows are written
            b = asyncio.ensure_future(live.append(gid, [game[1]], None))
            await _until(lambda: len(live._pending) == 2 and live._jobs.empty())  # b planned
            c = asyncio.ensure_future(live.append(gid, [game[1]], None))
            gate.set()
            done, _ = await asyncio.wait((a, b, c), timeout=BOUND)
            assert len(done) == 3
            for f in (a, b, c):
                assert isinstance(f.exception(), WriterFailed)
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(live.append(gid, [game[1]], None), BOUND)
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(live.start_game(ev.GameStarted(
                    game_id="another", players=("Ann", "Ben"))), BOUND)
            # reads go on, from the store: the game's start only
            assert await live.events(gid) == first.appended
            assert await live.read(lambda s: s.head(gid)[0]) == 1

    asyncio.run(run())
    with Store.open(tmp_path / "dies.duckdb") as store:
        assert len(store.read_events(gid)) == 1
        assert store.head(gid)[0] == 1
        assert store.con.execute("SELECT count(*) FROM commits").fetchone()[0] == 1
    logged = _writer_logs(caplog)
    assert len(logged) == 1 and logged[0].exc_info is not None
    assert logged[0].exc_info[0] is Bug


def test_a_planner_that_dies_still_stores_what_it_handed_over(tmp_path, monkeypatch, caplog):
    """The planner dies after handing batch A to the committer, while B waits: A is stored
    and answered as usual; B, and an append made later, are refused; the game reads with A;
    close returns; the error is logged once."""
    game = _inputs(play_random_game(8, 2))
    gid = game[0].game_id
    real_store = live_mod.store_prepared
    gate, holding = threading.Event(), threading.Event()

    def held_commit(store, w):
        if w.heads[0][1] == 1:                   # A's commit: the game's first append
            holding.set()
            assert gate.wait(BOUND)
        return real_store(store, w)

    monkeypatch.setattr(live_mod, "store_prepared", held_commit)
    caplog.set_level(logging.ERROR)

    async def run():
        async with _running(tmp_path / "planner.duckdb") as live:
            await live.start_game(game[0])
            keep = live._keep
            kept: list[int] = []

            def keep_then_fail(caches):
                kept.append(len(caches))
                if len(kept) == 2:               # B's batch (A's was the first)
                    raise RuntimeError("a bug in the planner")
                return keep(caches)
            live._keep = keep_then_fail          # type: ignore[method-assign]
            a = asyncio.ensure_future(live.append(gid, [game[1]], 1))
            await _until(holding.is_set)         # A is being committed
            b = asyncio.ensure_future(live.append(gid, [game[1]], None))
            await _until(lambda: len(live._pending) == 2 and live._jobs.empty())
            gate.set()
            res = await asyncio.wait_for(a, BOUND)
            assert res.appended[0] == game[1]
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(b, BOUND)
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(live.append(gid, [game[2]], res.seq), BOUND)
            assert await live.events(gid) == [game[0], *res.appended]
            return res

    res = asyncio.run(run())
    with Store.open(tmp_path / "planner.duckdb") as store:
        assert store.head(gid)[0] == res.seq
        assert store.read_events(gid)[1:] == res.appended
    logged = _writer_logs(caplog)
    assert len(logged) == 1 and logged[0].exc_info[0] is RuntimeError


def test_a_batch_the_loop_cannot_answer_stops_the_writer(tmp_path, monkeypatch, caplog):
    """Answering a committed batch fails on the event loop (a bug in ``_answer``): the
    append in it is refused rather than left waiting, so is a later one; the commit itself
    landed, and reads take the game from the store; close returns; one log record."""
    game = _inputs(play_random_game(10, 2))
    gid = game[0].game_id
    answer = LiveStore._answer
    calls: list[int] = []

    def answer_then_fail(self, batch, results, caches, forget):
        calls.append(len(batch))
        if len(calls) == 2:                      # the first append's batch (1: the start)
            raise RuntimeError("a bug in answering")
        return answer(self, batch, results, caches, forget)

    monkeypatch.setattr(LiveStore, "_answer", answer_then_fail)
    caplog.set_level(logging.ERROR)

    async def run():
        async with _running(tmp_path / "answer.duckdb") as live:
            await live.start_game(game[0])
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(live.append(gid, [game[1]], 1), BOUND)
            with pytest.raises(WriterFailed):
                await asyncio.wait_for(live.append(gid, [game[2]], None), BOUND)
            return await live.events(gid)

    read = asyncio.run(run())
    with Store.open(tmp_path / "answer.duckdb") as store:
        stored = store.read_events(gid)
    assert stored[:2] == [game[0], game[1]] and read == stored
    logged = _writer_logs(caplog)
    assert len(logged) == 1 and logged[0].exc_info[0] is RuntimeError


def test_a_dead_writer_answers_503_over_http_and_reads_go_on(tmp_path, monkeypatch):
    """Over HTTP: once the writer died, an append is a 503 problem (``writer_stopped``) and
    so is the next one; reads answer 200; the server stops."""
    game = _inputs(play_random_game(9, 2))
    gid = game[0].game_id

    def broken_keep(self, caches):
        raise RuntimeError("a bug in the planner")

    json = {"Content-Type": "application/json"}
    store = tmp_path / "http.duckdb"
    server = ServerThread(create_app(store))
    with server as url:
        assert httpx.get(url + "/health", timeout=BOUND).json()["status"] == "ok"
        r = httpx.post(url + "/games", content=ev.encode(game[0]), headers=json)
        assert r.status_code == 201, r.text
        monkeypatch.setattr(LiveStore, "_keep", broken_keep)
        for _ in range(2):
            r = httpx.post(f"{url}/games/{gid}/events", content=ev.encode(game[1]),
                           headers={**json, "If-Match": '"1"'}, timeout=BOUND)
            assert r.status_code == 503, r.text
            assert r.headers["content-type"] == PROBLEM_JSON
            p = r.json()
            assert (p["status"], p["error"], p["title"]) == (503, "writer_stopped",
                                                             "Writer stopped")
            assert p["type"] == "/docs#writer_stopped"
            assert p["instance"] == f"/games/{gid}/events"
        r = httpx.get(f"{url}/games/{gid}/events", timeout=BOUND)
        assert r.status_code == 200 and len(r.json()) == 1
        assert httpx.get(url + "/games", timeout=BOUND).status_code == 200
        # a health check sees the stopped writer; the CLI's readers still find the service
        r = httpx.get(url + "/health", timeout=BOUND)
        assert r.status_code == 503
        assert (r.json()["status"], r.json()["pid"]) == ("writer_stopped", os.getpid())
        announce(store, url)
        found = find(store)
        assert found is not None and found.url == url
    assert not server.thread.is_alive()
