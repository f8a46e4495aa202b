"""The events table's rows as the importer builds them (seasalt_log.store.event_table): the
columns a worker writes give exactly the rows the code before them wrote, the chain is the
documented BLAKE2b chain of writes, the Arrow batch built from the columns equals the one
built from rows, and a worker process that builds rows starts without DuckDB."""

from __future__ import annotations

import subprocess
import sys

import pytest

from seasalt_log import events as ev
from seasalt_log.store.arrow_rows import column_batch, record_batch
from seasalt_log.store.event_table import event_columns, event_rows

from . import chain_oracle
from .reliability_helpers import valid_games
from .scenario import states_after


def _rows_as_before(game_id, game, events, states, start=0, prev_hash=None):
    """The rows of the code before the columns (one tuple per event), kept as the oracle,
    and the link of the write storing them, written out from the chain's definition
    (:mod:`tests.chain_oracle`, hashlib alone)."""
    rows, texts = [], []
    for i in range(start, len(events)):
        e = events[i]
        data = ev.encode(e)
        texts.append(data)
        if i == 0:
            rnd = turn = 0
        elif type(e) is ev.RoundStarted:
            rnd, turn = e.round, 0
        else:
            f = states[i - 1].flow
            rnd, turn = f.round, f.turn
        rows.append((game_id, i + 1, game, rnd, turn, getattr(e, "player", None),
                     ev.TAGS[type(e)], data.decode()))
    prev = chain_oracle.genesis(game_id) if prev_hash is None else prev_hash
    return rows, chain_oracle.link(prev, texts)


def _games(expansion_games):
    return valid_games(6, seed=3) + expansion_games[::40]


def test_the_columns_are_the_rows_written_before(expansion_games):
    for k, events in enumerate(_games(expansion_games)):
        states = states_after(events)
        gid = f"g-{k}"
        want, want_hash = _rows_as_before(gid, k, events, states)
        cols, h = event_columns(gid, k, events, states)
        assert h == want_hash
        assert [tuple(r) for r in zip(*cols[:7], (d.decode() for d in cols[7]))] == want
        assert event_rows(gid, k, events, states) == (want, want_hash)


@pytest.mark.parametrize("start", [1, 7])
def test_an_append_continues_the_rows_and_the_chain(start):
    """Rows of the events after ``start``, chained from the link of the write of the first
    ones, are the whole game's rows from there, with the link of a second write."""
    events = valid_games(1, seed=4)[0]
    states = states_after(events)
    texts = [ev.encode(e) for e in events]
    first, second = chain_oracle.links_at("g", texts, [start, len(events)])
    rows, whole = _rows_as_before("g", 3, events, states)
    assert whole == chain_oracle.links_at("g", texts, [len(events)])[0] != second
    assert event_rows("g", 3, events, states, start=start, prev_hash=first) == (rows[start:],
                                                                                second)


def test_a_link_hashes_the_boundaries_of_the_events():
    """The newline after each event is hashed: the same bytes cut into other events give
    another link, and so does an event left out or added at the end."""
    from seasalt_log.store.event_table import chain, genesis_hash
    g = genesis_hash("g")
    assert g == chain_oracle.genesis("g")
    links = {chain(g, texts) for texts in ([b'{"a":1}', b'{"b":2}'], [b'{"a":1}{"b":2}'],
                                           [b'{"a":1}'], [b'{"a":1}', b'{"b":2}', b""])}
    assert len(links) == 4
    assert chain(g, [b'{"a":1}', b'{"b":2}']) == chain_oracle.link(g, [b'{"a":1}', b'{"b":2}'])


def test_a_batch_from_columns_equals_one_from_rows(expansion_games):
    events = expansion_games[0]
    states = states_after(events)
    cols, _ = event_columns("g-é", 2, events, states)       # not only ASCII
    rows, _ = event_rows("g-é", 2, events, states)
    assert column_batch("events", cols).equals(record_batch("events", rows))


def test_a_worker_that_builds_rows_starts_without_duckdb():
    """Loading DuckDB costs each worker process about 0.1 s of CPU it never needs, and
    reading the package's version from its metadata 0.03."""
    code = ("import sys, seasalt_log.workers, seasalt_log.importers.chunks; "
            "print(sorted(m for m in ('duckdb', 'pyarrow.compute', 'importlib.metadata') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("start", [0, 1, 7])
def test_the_number_columns_are_c_arrays(start, expansion_games, monkeypatch):
    """The seqs and the game number are C arrays of 32-bit ints (the columns' SQL type,
    taken by a RowSink with no conversion per value) holding the rows' values, however far
    the seqs were prepared."""
    from array import array

    from seasalt_log.store import event_table
    for prepared in (0, 5, 1000):
        monkeypatch.setattr(event_table, "_SEQS", event_table._seqs(1, prepared))
        for k, events in enumerate(_games(expansion_games)[:4]):
            states = states_after(events)
            cols, h = event_columns(f"g-{k}", k, events, states, start=start)
            want, _ = _rows_as_before(f"g-{k}", k, events, states)
            assert [type(cols[1]), cols[1].typecode, cols[1].itemsize] == [array, "i", 4]
            assert [type(cols[2]), cols[2].typecode, cols[2].itemsize] == [array, "i", 4]
            assert list(cols[2]) == [k] * (len(events) - start)
            assert list(cols[1]) == list(range(start + 1, len(events) + 1))
            assert list(zip(cols[1], cols[2])) == [r[1:3] for r in want[start:]]
