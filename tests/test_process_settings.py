"""Settings of the whole process changed by blocks that may overlap (imports in a library
user's threads, beside the HTTP service's writer): the last block to end puts back what
there was before the first began, whatever order they end in."""

from __future__ import annotations

import asyncio
import gc
import sys

import httpx
import pytest

from seasalt_log import events as ev
from seasalt_log.http.app import create_app
from seasalt_log.http.live import SWITCH_INTERVAL, LiveStore
from seasalt_log.http.server import ServerThread
from seasalt_log.process_settings import SharedSetting
from seasalt_log.workers import no_gc, quick_switches


def test_overlapping_blocks_ending_out_of_order_put_back_the_value_before_the_first():
    box = ["before"]
    setting = SharedSetting(lambda: box[0], lambda v: box.__setitem__(0, v))
    first, second = setting.held(lambda v: v + "+first"), setting.held(lambda v: "second")
    first.__enter__()
    assert box == ["before+first"]
    second.__enter__()
    assert box == ["before+first"]                  # a later block keeps the first's value
    first.__exit__(None, None, None)
    assert box == ["before+first"]                  # the second still runs
    second.__exit__(None, None, None)
    assert box == ["before"]


def test_a_block_that_raises_puts_the_value_back():
    box = [1]
    setting = SharedSetting(lambda: box[0], lambda v: box.__setitem__(0, v))
    with pytest.raises(RuntimeError):
        with setting.held(lambda v: 2):
            assert box == [2]
            raise RuntimeError
    assert box == [1]
    with setting.held(lambda v: 3):                 # and the next block starts afresh
        assert box == [3]
    assert box == [1]


def test_quick_switches_and_no_gc_overlapping_out_of_order():
    interval, enabled = sys.getswitchinterval(), gc.isenabled()
    try:
        sys.setswitchinterval(0.005)
        gc.enable()
        a, b = quick_switches(0.0005), quick_switches(0.0005)
        c, d = no_gc(), no_gc()
        for block in (a, c, b, d):
            block.__enter__()
        a.__exit__(None, None, None)
        c.__exit__(None, None, None)
        assert sys.getswitchinterval() == pytest.approx(0.0005) and not gc.isenabled()
        b.__exit__(None, None, None)
        d.__exit__(None, None, None)
        assert sys.getswitchinterval() == pytest.approx(0.005) and gc.isenabled()
    finally:
        sys.setswitchinterval(interval)
        (gc.enable if enabled else gc.disable)()


def test_switch_interval_shortened_while_services_run(tmp_path):
    """The service lets a thread keep Python's lock for a shorter time (its committer waits
    for the lock after each DuckDB statement) and puts the process's own back when the
    last service of the process stops (here, with no other one running)."""
    start = ev.encode(ev.GameStarted(players=("Ann", "Ben"), target=12))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    try:
        with ServerThread(create_app(tmp_path / "a.duckdb")) as url:
            assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
            assert httpx.post(url + "/games", content=start,
                              headers={"Content-Type": "application/json"}).status_code == 201
            with ServerThread(create_app(tmp_path / "b.duckdb")):
                assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
            assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
        assert sys.getswitchinterval() == pytest.approx(0.005)
    finally:
        sys.setswitchinterval(interval)


def test_collector_threshold_raised_while_services_run(tmp_path):
    """The service raises the garbage collector's first threshold (its appends allocate many
    short-lived objects) and puts the process's own back when the last service of the
    process stops (here, with no other one running)."""
    from seasalt_log.http.live import GC_THRESHOLD
    start = ev.encode(ev.GameStarted(players=("Ann", "Ben"), target=12))
    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    try:
        with ServerThread(create_app(tmp_path / "a.duckdb")) as url:
            assert gc.get_threshold() == (GC_THRESHOLD, *before[1:])
            assert httpx.post(url + "/games", content=start,
                              headers={"Content-Type": "application/json"}).status_code == 201
            with ServerThread(create_app(tmp_path / "b.duckdb")):
                assert gc.get_threshold()[0] == GC_THRESHOLD
            assert gc.get_threshold()[0] == GC_THRESHOLD
        assert gc.get_threshold() == (700, *before[1:])
    finally:
        gc.set_threshold(*before)


def test_a_live_store_started_twice_is_refused_and_still_puts_the_settings_back(tmp_path):
    """A second ``start`` before ``close`` would hold the settings a second time, and the one
    ``close`` would leave them changed for good: it raises instead, and ``close`` puts the
    process's own switch interval back."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.005)

    async def run():
        live = LiveStore(tmp_path / "twice.duckdb")
        await live.start()
        try:
            assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
            with pytest.raises(RuntimeError, match="started already"):
                await live.start()
        finally:
            await live.close()
    try:
        asyncio.run(run())
        assert sys.getswitchinterval() == pytest.approx(0.005)
    finally:
        sys.setswitchinterval(interval)
