"""The service's writer as a pipeline: the planner checks the next batch while the committer
stores the last one. A batch planned on top of a commit that then fails must be checked
again on the store as that failure left it, exactly as if it had come after it."""

from __future__ import annotations

import asyncio
import errno
import threading

import pytest

from seasalt_log import events as ev
from seasalt_log.http import live as live_mod
from seasalt_log.http.live import LiveStore
from seasalt_log.store import Store

from .randomplay import play_random_game


def _inputs(game: list[ev.Event]) -> list[ev.Event]:
    return [e for e in game if type(e) not in ev.DERIVED_TYPES]


async def _until(cond, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.002)):
        if cond():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("timed out")


def test_a_batch_planned_on_a_failed_commit_is_checked_again(tmp_path, monkeypatch):
    """Batch A (the first round_started) fails to commit (a full disk) while batch B (the
    same round_started, at the game's end) waits, planned on top of A: on A's cache B would
    be a second round_started (R-FLOW-ROUND, refused); checked again on the store, where A is
    not, B is stored as the game's first round. The store and the cache then agree."""
    game = _inputs(play_random_game(5, 2))
    gid = game[0].game_id
    gate, commits = _second_commit_waits(monkeypatch, fail=True)
    checks = []

    async def run():
        live = LiveStore(tmp_path / "pipe.duckdb")
        await live.start()
        try:
            await live.start_game(game[0])
            check = live._check

            def counted(batch):
                out = check(batch)
                checks.append(len(batch))
                return out
            live._check = counted                    # type: ignore[method-assign]
            a = asyncio.ensure_future(live.append(gid, [game[1]], 1))
            await _until(lambda: len(commits) == 2)  # A is being committed
            b = asyncio.ensure_future(live.append(gid, [game[1]], None))
            await _until(lambda: len(checks) == 2)   # B is planned, on top of A
            gate.set()
            with pytest.raises(OSError):
                await a
            res = await b
            assert len(checks) == 3                  # B was checked again
            assert res.appended[0] == game[1] and res.seq == 1 + len(res.appended)
            # the rest of the game goes on from there
            for e in game[2:8]:
                res = await live.append(gid, [e], res.seq)
            cached = live.cached(gid)
            assert cached is not None
            return list(cached.events)
        finally:
            await live.close()

    events = asyncio.run(run())
    with Store.open(tmp_path / "pipe.duckdb") as store:
        assert store.read_events(gid) == events
        assert store.head(gid)[0] == len(events)
    assert _inputs(events) == game[:8]


def test_appends_of_one_game_in_one_commit_record_one_link_over_them_all(tmp_path, monkeypatch):
    """Appends of one game queued while a commit is held up are planned on one another and
    committed together: one commits row, whose link (hashlib, the chain's definition) is
    over all their events from the game's write before; the next appends chain on from it,
    from the cache, and the store verifies."""
    from seasalt_log.verify import verify_store

    from . import chain_oracle
    game = _inputs(play_random_game(6, 2))
    gid = game[0].game_id
    gate, commits = _second_commit_waits(monkeypatch, fail=False)

    async def run():
        live = LiveStore(tmp_path / "group.duckdb")
        await live.start()
        try:
            await live.start_game(game[0])
            first = asyncio.ensure_future(live.append(gid, [game[1]], 1))
            await _until(lambda: len(commits) == 2)         # held
            rest = [asyncio.ensure_future(live.append(gid, [e], None)) for e in game[2:7]]
            await asyncio.sleep(0.2)                        # all queued behind it
            gate.set()
            await first
            res = [await r for r in rest]
            seq = res[-1].seq
            for e in game[7:10]:
                seq = (await live.append(gid, [e], seq)).seq
            return seq
        finally:
            await live.close()

    seq = asyncio.run(run())
    with Store.open(tmp_path / "group.duckdb", read_only=True) as store:
        rows = store.con.execute("SELECT seq, hash FROM commits WHERE game_id = ? ORDER BY seq",
                                 [gid]).fetchall()
        texts = [t.encode() for t in store.read_texts(gid)]
        assert rows[-1][0] == seq == len(texts)
        assert len(rows) < 10                   # some appends shared a commit
        assert [h for _, h in rows] == chain_oracle.links_at(gid, texts, [s for s, _ in rows])
        assert verify_store(store).ok and verify_store(store, quick=True).ok


def _second_commit_waits(monkeypatch, fail: bool):
    """Make the live store's second commit (the first after the game's start) wait for the
    returned event to be set, then fail with a full disk if ``fail``; the list returned
    gathers every commit's write."""
    real = live_mod.store_prepared
    gate, commits = threading.Event(), []

    def second_commit_waits(store, w):
        commits.append(w)
        if len(commits) == 2:
            assert gate.wait(10)
            if fail:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(store, w)

    monkeypatch.setattr(live_mod, "store_prepared", second_commit_waits)
    return gate, commits
