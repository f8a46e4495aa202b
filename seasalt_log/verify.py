"""Tamper evidence: re-check every stored game against today's engine and the hash chain.

:func:`verify_store` reads a store (read-only is enough) and, for each game:

- checks that its events are numbered ``1..n`` with no gap;
- recomputes the hash chain write by write (each write's link over the events since the
  game's previous write, from :func:`~seasalt_log.store.store.genesis_hash`: see
  :mod:`seasalt_log.store.event_table`) and compares it with the value each write recorded
  in the ``commits`` table, so an edited, added or deleted event, or an edited, added or
  removed commit row, shows up in the write (the range of seqs) where it happened;
- checks the game's number: the same in every row of the game, and no other game's;
- decodes every event and folds the stream through the engine: every event must be legal,
  every derived event (``round_scored``, ``game_ended``) must be exactly what the engine
  computes, and none may be missing, at the end included;
- checks the row's own columns (round, turn, player, type, canonical JSON) and the game id;
- recomputes every read model of :data:`seasalt_log.store.projections.TABLES` from the
  folded states with :func:`~seasalt_log.store.projections.project` and compares it with the
  stored rows, reporting rows that are missing, extra or changed (column by column);
- (a whole store) compares the ``cards`` table with the engine's card catalog.

Where nothing differs it takes quick paths: a whole store is first checked the import's
way (the stored events of a chunk of games read as the lines of a log, checked by the
engine, and the rows the import would store compared with the stored ones, one Arrow
comparison per table), a chunk's events otherwise decoded in one call and folded by the
engine alone, the chain taken from the import's own computation of the events table's
columns, the read models compared in one DuckDB query per table. Where something differs
it checks again the exhaustive way, which words the differences (the same records either
way: tests/test_verify_paths.py). ``quick=True`` (``verify --quick``) makes only the
checks that need no engine.

Every finding is a :class:`Difference` naming the game and, where there is one, the event
seq. The chain detects accidental and partial edits; it cannot detect a consistent rewrite of
a whole game (chain, read models and all) or the removal of a whole game: see
docs/RELIABILITY.md.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import os
import struct
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

import duckdb
from msgspec import Struct

import pyarrow as pa
import pyarrow.compute as pc

from . import events as ev
from .engine import State
from .engine.state import named
from .arrow_text import string_bytes
from .errors import SeasaltError
from .importers.chunks import add_events, reader_type_codes
from .importers.jsonl import CheckedGame, check_game, derive_game_id, read_games_data
from .log_lines import Lines
from .store.arrow_rows import RowSink, record_batch
from .store.checked import game_sums, record_sums, unvouched_ranges
from .store.batch import (Folded, decode_column, fold_decoded, fold_game, game_starts,
                          numbered_games, whole_games)
from .store.event_table import (event_columns, genesis_hash, lines_link, link_bytes, link_value,
                                write_links)
from .store.fetch import one_value
from .store.layout import schema_differences
from .store.projections import CARDS, TABLES, cards_rows, project
from .store.store import Store
from .workers import no_gc

#: games checked per round trip to the store (bounds memory on a large store)
CHUNK_GAMES = 500
#: ``jobs=None`` uses worker processes from this many chunks on
PARALLEL_FROM = 8

#: at most this many differences are reported per game and table (the rest are counted)
MAX_PER_TABLE = 20

_EVENT_COLUMNS = ("game", "round", "turn", "player", "type", "event")

Progress = Callable[[int, int], None]   # (games checked, games in all)


class Difference(Struct, omit_defaults=True):
    """One thing in the store that is not what the events and the engine say.

    ``kind`` is one of ``seq`` (a gap or a stray number, or a game's ``heads`` row not at
    the seq its last write ended at), ``hash`` (the chain is broken, or
    a write's record of it missing), ``number`` (a game number shared or inconsistent),
    ``format`` (an event that does not decode), ``rule`` (an illegal event), ``derived`` (a
    derived event that differs from the engine's, or is missing), ``event_row`` (a column
    of the events table that does not match its event), ``game_id``, ``projection`` (a read
    model row missing, extra or changed), ``schema`` (a table, column, constraint, view,
    trigger or index not as the store format defines it) and ``damage`` (a part of the
    store that could not be read: the file is damaged there). ``seq`` is the event the difference is about, when there is one.
    """

    kind: str
    message: str
    game_id: str | None = None
    seq: int | None = None
    table: str | None = None

    def __str__(self) -> str:
        where = []
        if self.game_id is not None:
            where.append(f"game {self.game_id}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        if self.table is not None:
            where.append(f"table {self.table}")
        return (", ".join(where) + ": " if where else "") + f"{self.kind}: {self.message}"


class VerifyReport(Struct):
    """The outcome of :func:`verify_store`: what was checked and every difference found
    (``quick``: the quick check, see :func:`verify_store`)."""

    games: int = 0
    events: int = 0
    differences: list[Difference] = []
    quick: bool = False
    #: of ``games``, those not folded again: their import's record vouches for their rows
    #: (see :mod:`seasalt_log.store.checked`)
    vouched: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not self.differences


def verify_store(store: Store, game_ids: Sequence[str] | None = None, *,
                 progress: Progress | None = None, jobs: int | None = 1,
                 quick: bool = False, refold: bool = False) -> VerifyReport:
    """Check every stored game (or only ``game_ids``) as the module docstring describes.

    Reads in chunks of :data:`CHUNK_GAMES` games, so memory stays bounded on a large store.
    Works on a read-only store: it only reads. ``jobs`` > 1 checks the chunks in that many
    worker processes, each with its own read-only connection (None: one per CPU from
    :data:`PARALLEL_FROM` chunks on); the report is the same, in the same order. A whole
    store is first read in chunks of game numbers, as it is stored (:class:`_Scan`); then
    only the chunks of ids (in id order) that hold a game where something may differ are
    checked again, and they alone make the report, which is the one the chunks of ids give.

    ``quick`` checks what needs no engine: the schema, the cards, the seq numbering, the hash
    chain against the writes, the heads, the game numbers, and the read models' rows per game
    (one ``games`` row per game, no row of a game without events). It skips the fold of the
    events (their legality, the derived events, the game id), the events' row columns and
    the contents of the read models' rows.

    A whole store (unless ``refold``) folds again only the games that need it: a game whose
    import (or ``verify --record``) recorded the sums of its rows, under the same code, and
    whose stored rows still give them (:func:`~seasalt_log.store.checked.unvouched_ranges`)
    gets the quick check alone, as folding it could find nothing the sums do not;
    ``vouched`` counts them. A game where something differs is folded and reported as ever.
    """
    spare: list = []            # worker processes started early (see _start_workers)
    try:
        # the collector off, as in the workers and an import's check: the fold makes many
        # small acyclic objects, which it would only walk again and again
        with no_gc():
            return _verify_store(store, game_ids, progress, jobs, quick, spare, refold)
    finally:
        for pool in spare:      # started but not needed: stopped without waiting for it
            pool.close(kill=True)


def _verify_store(store: Store, game_ids: Sequence[str] | None, progress: Progress | None,
                  jobs: int | None, quick: bool, spare: list, refold: bool = False
                  ) -> VerifyReport:
    """:func:`verify_store`; ``spare`` takes the worker processes :func:`_start_workers`
    starts, until the check takes them (those left are the caller's to stop)."""
    report = VerifyReport(quick=quick)
    if game_ids is None:
        _check_schema(store, report)
    tables = _readable(report, "the schema", lambda: _table_columns(store), {})
    shared = _readable(report, "the commits table (game numbers)", lambda: store.con.execute(
        "SELECT game, list(DISTINCT game_id ORDER BY game_id) FROM commits GROUP BY game "
        "HAVING count(DISTINCT game_id) > 1 ORDER BY game").fetchall(), [], table="commits")
    for number, ids in shared:
        if game_ids is None or set(ids) & set(game_ids):
            report.differences.append(Difference(
                "number", f"games {', '.join(ids)} share the number {number}"))
    heads = _readable(report, "the heads table", lambda: store.con.execute(
        "SELECT game_id, c.seq, h.seq FROM (SELECT game_id, max(seq) AS seq FROM commits "
        "GROUP BY game_id) c FULL JOIN heads h USING (game_id) WHERE c.seq IS DISTINCT FROM "
        "h.seq ORDER BY game_id").fetchall(), [], table="heads")
    for gid, last, head in heads:
        if game_ids is None or gid in game_ids:
            said = "the game has no heads row" if head is None else f"the heads row says seq {head}"
            ended = "it has no write" if last is None else f"its last write ended at seq {last}"
            report.differences.append(Difference("seq", f"{said}, {ended}", game_id=gid))
    if game_ids is None:
        if not report.differences:
            spare.extend(_start_workers(store, jobs))
        _check_cards(store, report)
        ids = _all_game_ids(store, tables, report)
    else:
        ids = list(dict.fromkeys(game_ids))
    total = len(ids)
    chunks = [ids[start:start + CHUNK_GAMES] for start in range(0, total, CHUNK_GAMES)]
    if jobs is None:
        jobs = (os.cpu_count() or 1) if len(chunks) >= PARALLEL_FROM else 1
    with contextlib.ExitStack() as stack:
        pools: list = []

        def run(fn, args: tuple, items: list) -> Iterator[tuple]:
            """``(item, fn(*args, item))`` for each item, in order: in worker processes (one
            pool, made when first needed) when ``jobs`` > 1 and there is more than one."""
            if jobs > 1 and len(items) > 1:
                if not pools:
                    from .workers import Pool
                    pool = spare.pop() if spare else Pool(min(jobs, len(chunks)),
                                                          local=_here(store))
                    pools.append(stack.enter_context(pool))
                from functools import partial
                return pools[0].map(partial(_in_worker, fn, str(store.path), *args), items)
            return ((item, fn(store, *args, item)) for item in items)

        # the whole store is read in the order of the games' numbers (the order it is stored
        # in) to find the games where something may differ; only the chunks of those are
        # checked again in id order, so the report is the one the chunks in id order give
        scan = None
        if game_ids is None and not any(d.kind == "damage" for d in report.differences):
            unvouched = None if quick or refold else _unvouched(store)
            scan = _scan_store(store, ids, tables, quick, run, progress, unvouched)
        if scan is None:
            results = run(_check_chunk_here, (tables, quick), chunks)
        else:
            again = run(_check_chunk_here, (tables, quick),
                        [c for c in chunks if not scan.clear(c)])
            results = (next(again) if not scan.clear(c) else (c, (True, scan.part(c, quick)))
                       for c in chunks)
            report.vouched = sum(len(scan.skipped.intersection(c)) for c in chunks
                                 if scan.clear(c))
        done = 0
        for chunk, (readable, part) in results:
            report.games += part.games
            report.events += part.events
            report.differences.extend(part.differences)
            if not readable:
                left = total - done
                report.differences.append(Difference(
                    "damage", f"the store can no longer be read: {left} game(s) not checked"))
                break
            done += len(chunk)
            if progress is not None and scan is None:
                progress(done, total)
    return report


def verify_and_record(path: str | Path, game_ids: Sequence[str] | None = None, *,
                      progress: Progress | None = None, jobs: int | None = 1,
                      refold: bool = False) -> tuple[VerifyReport, int | None]:
    """:func:`verify_store` of the store at ``path`` (opened for writing first, so that a
    store of an older format is migrated), then record in ``checked_games``, under this
    code's fingerprint, every checked game in which nothing differs and whose rows are
    still those it checked (each game's count and hash sum, taken right after the check, the
    same when the record is written): a later check takes them on that record (``verify --record``; see
    :mod:`seasalt_log.store.checked`). Returns the report and the games recorded; None when
    nothing was recorded because something differs that is no one game's (the schema, the
    cards, a damaged part of the file, games sharing a number)."""
    Store.open(path, create=False).close()
    with Store.open(path, read_only=True) as store:
        report = verify_store(store, game_ids, progress=progress, jobs=jobs, refold=refold)
        if any(d.game_id is None for d in report.differences):
            return report, None
        try:    # (the store still open: no writer has got in since the check)
            before = game_sums(store.con, game_ids)
        except duckdb.Error:        # (named games: a read model lacks a column, say)
            return report, None
    differ = {d.game_id for d in report.differences}
    with Store.open(path, create=False) as store:
        store.begin()
        try:
            now = game_sums(store.con, game_ids)
            clean = {g: sums for g, sums in before.items()
                     if g not in differ and now.get(g) == sums}
            record_sums(store.con, clean)
            store.commit()
        except BaseException:
            store.abandon()
            raise
    return report, len(clean)


def _check_chunk_here(store: Store, tables: dict[str, tuple[str, ...]], quick: bool,
                      ids: list[str]) -> tuple[bool, VerifyReport]:
    """:func:`_check_readable_chunk` of one chunk into a report of its own."""
    part = VerifyReport(differences=[], quick=quick)
    return _check_readable_chunk(store, ids, tables, part), part


def _start_workers(store: Store, jobs: int | None) -> list:
    """The worker processes a whole-store check of this many games (one per row of the
    heads table) will use, started now, so that their start-up (an interpreter importing
    DuckDB, pyarrow and the package: about 0.6 s each) runs while this process makes its
    own whole-store reads; none when it will use none."""
    if jobs == 1:
        return []
    try:
        chunks = -(-one_value(store.con, "SELECT count(*) FROM heads") // CHUNK_GAMES)
    except duckdb.Error:
        return []
    if jobs is None:
        jobs = (os.cpu_count() or 1) if chunks >= PARALLEL_FROM else 1
    if jobs < 2 or chunks < 2:
        return []
    from .workers import Pool
    return [Pool(min(jobs, chunks), initializer=_loaded, local=_here(store))]


def _loaded() -> None:
    """Nothing: a worker that unpickles it imports this module, and with it what a check
    needs, before its first task comes."""


#: a worker's own read-only connection to the store it checks, opened once
_WORKER_STORES: dict[str, Any] = {}


class _Here(Struct):
    """The store as the pool's slot in this process reads it: a connection of its own."""

    con: duckdb.DuckDBPyConnection
    path: Any


def _here(store: Store) -> Callable[[], contextlib.AbstractContextManager]:
    """The setting of the pool's slot that is a thread of this process (one interpreter
    fewer to start; see :class:`~seasalt_log.workers.Pool`): its chunks are read through a
    cursor of the store's connection (a connection of its own, as a worker has), made here,
    in the thread that owns the connection."""
    return functools.partial(_reading, store.con.cursor(), store.path)


@contextlib.contextmanager
def _reading(cursor: duckdb.DuckDBPyConnection, path) -> Iterator[None]:
    """:func:`_here`'s setting: the chunks of ``path`` read through ``cursor`` (closed at
    the end)."""
    _WORKER_STORES[str(path)] = _Here(cursor, path)
    try:
        yield
    finally:
        _WORKER_STORES.pop(str(path), None)
        cursor.close()


def _in_worker(fn, path: str, *args):
    """``fn(store, *args)`` in a worker process (``verify --jobs``), on its own read-only
    connection to the store at ``path``."""
    store = _WORKER_STORES.get(path)
    if store is None:
        store = _WORKER_STORES[path] = Store.open(path, read_only=True)
    return fn(store, *args)


def _readable(report: VerifyReport, what: str, read, default, table: str | None = None):
    """``read()``, or ``default`` with a ``damage`` difference when the store fails it."""
    try:
        return read()
    except duckdb.Error as exc:
        report.differences.append(Difference("damage", f"{what} could not be read: "
                                                       f"{_first_line(exc)}", table=table))
        return default


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _alive(store: Store) -> bool:
    try:
        store.con.execute("SELECT 1").fetchall()
        return True
    except duckdb.Error:
        return False


def _check_readable_chunk(store: Store, ids: list[str], tables: dict[str, tuple[str, ...]],
                          report: VerifyReport) -> bool:
    """:func:`_check_chunk`; when the store fails to read the chunk (a damaged file), the
    games one by one, each unreadable one a ``damage`` difference. False when the store
    cannot be read at all any more."""
    try:
        _check_chunk(store, ids, tables, report)
        return True
    except duckdb.Error as exc:
        if not _alive(store):
            return False
        if len(ids) == 1:
            return _check_damaged_game(store, ids[0], tables, report, exc)
    for gid in ids:
        if not _check_readable_chunk(store, [gid], tables, report):
            return False
    return True


def _check_damaged_game(store: Store, gid: str, tables: dict[str, tuple[str, ...]],
                        report: VerifyReport, exc: duckdb.Error) -> bool:
    """One game whose rows could not be read with the others': again by its number (its
    events' own row groups only); a ``damage`` difference when that fails too. (A row
    whose number was changed is then not read: the game is checked as damaged anyway.)"""
    try:
        numbers = store.con.execute("SELECT DISTINCT game FROM commits WHERE game_id = ?",
                                    [gid]).fetchall()
        if len(numbers) == 1:
            _check_chunk(store, [gid], tables, report, number=numbers[0][0])
            return True
    except duckdb.Error as again:
        exc = again
        if not _alive(store):
            return False
    report.differences.append(Difference(
        "damage", f"its events could not be read: {_first_line(exc)}", game_id=gid))
    return True


def verify_game(store: Store, game_id: str) -> list[Difference]:
    """The differences of one game (an empty list when it is intact or not stored at all)."""
    return verify_store(store, [game_id]).differences


# ---------------------------------------------------------------- the store's layout

def _check_schema(store: Store, report: VerifyReport) -> None:
    """The store's tables (columns, types, constraints), views, triggers and indexes
    against those its format defines (:mod:`seasalt_log.store.layout`)."""
    found = _readable(report, "the schema", lambda: schema_differences(store.con), [])
    for d in found:
        report.differences.append(Difference("schema", d.message, table=d.table))


def _table_columns(store: Store) -> dict[str, tuple[str, ...]]:
    """The read-model tables to compare: those of TABLES that the store has with all their
    columns (a missing table or column is reported by the schema check)."""
    have: dict[str, set[str]] = {}
    for table, column in store.con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE NOT internal "
            "AND database_name = current_database()").fetchall():
        have.setdefault(table, set()).add(column)
    return {table: cols for table, cols in TABLES.items()
            if table in have and all(c in have[table] for c in cols)}


def _check_cards(store: Store, report: VerifyReport) -> None:
    """The ``cards`` table against the catalog the engine plays with (RULES.md §1)."""
    cols = CARDS.order + tuple(c.name for c in CARDS.columns if c.name not in CARDS.order)
    try:
        rows = store.con.execute(f"SELECT {', '.join(cols)} FROM cards").fetchall()
    except duckdb.CatalogException:
        return                  # the table or a column is missing: the schema check says so
    except duckdb.BinderException:
        return
    except duckdb.Error as exc:
        report.differences.append(Difference("damage", f"the table could not be read: "
                                                       f"{_first_line(exc)}", table="cards"))
        return
    names = [c.name for c in CARDS.columns]
    want = {r[0]: tuple(r[names.index(c)] for c in cols) for r in cards_rows()}
    have: dict[str, list[tuple]] = {}
    for r in rows:
        have.setdefault(r[0], []).append(r)
    for code in sorted(set(want) | set(have), key=str):
        got = have.get(code, [])
        if not got:
            message = f"card {code} is missing"
        elif len(got) > 1:
            message = f"card {code} appears {len(got)} times"
        elif code not in want:
            message = f"card {code} is not in the catalog"
        elif got[0] != want[code]:
            message = f"card {code}: " + "; ".join(
                f"{c} is {_show(a)}, expected {_show(b)}"
                for c, a, b in zip(cols, got[0], want[code]) if a != b)
        else:
            continue
        report.differences.append(Difference("projection", message, table="cards"))


def _all_game_ids(store: Store, tables: dict[str, tuple[str, ...]],
                  report: VerifyReport) -> list[str]:
    """Every game id found in the events table or in any read model, sorted (a table the
    store fails to read is a ``damage`` difference, and its ids are left out)."""
    found: set[str] = set()
    for t in ("events", "commits", *tables):
        found.update(_readable(report, f"the table {t}", lambda t=t: [r[0] for r in store.con.execute(
            f"SELECT DISTINCT game_id FROM {t}").fetchall()], [], table=t))
    return sorted(found)


# ---------------------------------------------------------------- the store in number order

class _Scan:
    """What a pass over the whole store in number order found: each game's event rows
    (``events``, game id -> rows) and the games where something may differ (``suspect``:
    the exact check of the chunk in id order that holds one of them says what)."""

    def __init__(self, ids: list[str]):
        self.events: dict[str, int] = {}
        self.suspect: set[str] = set()
        self.skipped: set[str] = set()      # games of the chunks not folded (vouched for)
        self._seen: set[str] = set()
        self._ids = ids

    def add(self, part: "_ScanPart") -> None:
        """One chunk's findings; a game met in two chunks (a row or a write carrying another
        number) is suspect."""
        met = part.events.keys() | part.writes
        self.suspect.update(met & self._seen)
        self._seen.update(met)
        self.events.update(part.events)
        self.suspect.update(part.suspect)
        if part.vouched:
            self.skipped.update(part.events)

    def finish(self) -> None:
        """Games found in the store but in no events row are suspect (every check of theirs
        reports something: a write of no events, read-model rows of no game)."""
        self.suspect.update(gid for gid in self._ids if gid not in self.events)

    def clear(self, chunk: list[str]) -> bool:
        """Whether the exact check of ``chunk`` finds nothing."""
        return self.suspect.isdisjoint(chunk)

    def part(self, chunk: list[str], quick: bool) -> VerifyReport:
        """The report of a clear chunk: its games and events counted."""
        return VerifyReport(games=len(chunk), events=sum(self.events[gid] for gid in chunk),
                            differences=[], quick=quick)


class _Numbers(NamedTuple):
    """A chunk of the pass in number order: the game numbers from ``first`` up to ``end``
    (None: no bound), per read-model table the rows (rowids from, to) that hold every
    row of its games (a table missing: none of them; see :func:`_row_ranges`), and whether
    every game of it is vouched for (checked quick, not folded)."""

    first: int | None
    end: int | None
    rows: dict[str, tuple[int, int]]
    vouched: bool = False


def _row_ranges(con: duckdb.DuckDBPyConnection, tables: dict[str, tuple[str, ...]],
                chunks: int) -> list[dict[str, tuple[int, int]]]:
    """For each chunk of :data:`CHUNK_GAMES` game numbers (in number order, as
    :func:`_scan_store` cuts them), the range of rowids of each read-model table that holds
    every row of its games, in one query that reads only the tables' game id column. The
    import writes a game's read-model rows together, in number order, so a chunk's rows lie
    in a narrow range, which DuckDB reads without the row groups of the other games (their
    game ids are no guide: their range spans most others' on a large store)."""
    ranges: list[dict[str, tuple[int, int]]] = [{} for _ in range(chunks)]
    if not tables:
        return ranges
    per_table = " UNION ALL ".join(
        f"SELECT '{t}', k, min({t}.rowid), max({t}.rowid) FROM {t} JOIN chunk USING (game_id) "
        "GROUP BY k" for t in tables)
    for table, k, lo, hi in con.execute(
            "WITH chunk AS MATERIALIZED (SELECT DISTINCT game_id, (dense_rank() OVER (ORDER BY "
            f"game) - 1) // {CHUNK_GAMES} AS k FROM commits) {per_table}").fetchall():
        ranges[k][table] = (lo, hi)
    return ranges


class _ScanPart(Struct):
    """One chunk of the pass (see :class:`_Scan`)."""

    events: dict[str, int]
    writes: set[str]
    suspect: list[str]
    vouched: bool = False


def _scan_store(store: Store, ids: list[str], tables: dict[str, tuple[str, ...]], quick: bool,
                run, progress: Progress | None,
                unvouched: list[tuple[int | None, int | None]] | None = None) -> _Scan | None:
    """The pass of :class:`_Scan`, chunk by chunk of :data:`CHUNK_GAMES` game numbers (each
    chunk a range of numbers: its rows are stored together, DuckDB reads only their row
    groups; a chunk that holds no number of the ``unvouched`` ranges checked quick: see
    :func:`_vouched_chunks`); None when the store fails a read (the chunks in id order then
    say where)."""
    scan = _Scan(ids)
    try:
        numbers = [r[0] for r in store.con.execute(
            "SELECT DISTINCT game FROM commits ORDER BY game").fetchall()]
        splits = [None, *numbers[CHUNK_GAMES::CHUNK_GAMES], None]
        clear = _vouched_chunks(splits, unvouched)
        ranges = ([{}] * (len(splits) - 1) if quick or all(clear)
                  else _row_ranges(store.con, tables, len(splits) - 1))
        failed = False
        for _, part in run(_scan_chunk, (tables, quick),
                           [_Numbers(*b, r, v) for b, r, v
                            in zip(zip(splits, splits[1:]), ranges, clear)]):
            failed = failed or part is None     # (the workers' results all taken still)
            if not failed:
                scan.add(part)
            if progress is not None:
                progress(min(len(scan.events), len(ids)), len(ids))
        if failed:
            return None
        if quick and "games" in tables:
            rows = dict(store.con.execute(
                "SELECT game_id, count(*) FROM games GROUP BY game_id").fetchall())
            scan.suspect.update(gid for gid in scan.events if rows.get(gid) != 1)
    except duckdb.Error:
        return None
    scan.finish()
    return scan


def _unvouched(store: Store) -> list[tuple[int | None, int | None]] | None:
    """:func:`~seasalt_log.store.checked.unvouched_ranges`, or None (every game folded) when
    the store fails to give them: a table missing or changed is a ``schema`` difference of
    its own, a damaged one a ``damage`` difference of the reads that follow."""
    try:
        return unvouched_ranges(store.con)
    except duckdb.Error:
        return None


def _vouched_chunks(splits: list[int | None],
                    unvouched: list[tuple[int | None, int | None]] | None) -> list[bool]:
    """For each chunk of the pass (game numbers from ``splits[k]`` up to ``splits[k + 1]``),
    whether it holds no number of a game the store's records do not vouch for (``unvouched``:
    the range of numbers each such game's rows carry; None: none vouched for)."""
    chunks = len(splits) - 1
    if unvouched is None:
        return [False] * chunks
    clear = [True] * chunks
    inner = [s for s in splits[1:-1] if s is not None]  # the chunks' first numbers but the first
    for lo, hi in unvouched:
        if lo is None or hi is None:    # rows in read models alone: checked by their ids
            continue
        for k in range(bisect.bisect_right(inner, lo), bisect.bisect_right(inner, hi) + 1):
            clear[k] = False
    return clear


def _scan_chunk(store: Store, tables: dict[str, tuple[str, ...]], quick: bool,
                bounds: _Numbers) -> _ScanPart | None:
    """The games whose number is in ``bounds`` (from, up to; None: no bound) checked as
    :func:`_check_chunk` does, to find those where something may differ (their reports
    are not kept); None when the store fails a read."""
    try:
        if bounds.vouched and not quick:
            part = _scan_games(store, tables, True, bounds)
            part.vouched = True
            return part
        return _scan_games(store, tables, quick, bounds)
    except duckdb.Error:
        return None


def _scan_games(store: Store, tables: dict[str, tuple[str, ...]], quick: bool,
                bounds: _Numbers) -> _ScanPart:
    """:func:`_scan_chunk` when the store reads."""
    con = store.con
    where = " AND ".join(["TRUE"] + [f"game {op} {int(b)}" for op, b in
                                      zip((">=", "<"), (bounds.first, bounds.end))
                                      if b is not None])
    commits = _commits(con, where=where)
    select = f"{_READ_QUICK_ALL if quick else _READ_ALL} WHERE {where}"
    table = con.sql(select).to_arrow_table()
    # games stored whole and numbered 1..n need no seq list of them
    numbered = numbered_games(table)
    if numbered is not None and not quick:
        part = _scan_as_imported(con, tables, bounds, table, numbered, commits)
        if part is not None:
            return part
    if numbered is None and not whole_games(table):  # sorted only when not stored in order
        table = con.sql(select + " ORDER BY game_id, seq, rowid").to_arrow_table()
    rows = _ChunkRows(table, decode=not quick, starts=numbered)
    suspect = [gid for gid in commits if gid not in rows.spans]
    expected: dict[str, list[tuple]] = {t: [] for t in tables}
    folded: list[str] = []
    links = rows.links(commits) if quick and numbered is not None else {}
    for gid, (a, b) in rows.spans.items():
        game_commits = commits.get(gid, [])
        if quick:
            if _chain_holds(gid, rows, a, b, game_commits, numbered=numbered is not None,
                            through=links.get(gid)):
                continue
        else:
            found: list[Difference] = []
            game = _check_events(gid, rows, a, b, game_commits, found)
            if game is not None and not found:
                folded.append(gid)
                for table, table_rows in project(gid, *game).items():
                    if table in expected:
                        expected[table].extend(table_rows)
                continue
        suspect.append(gid)
    if not quick and folded:
        for table, cols in tables.items():
            differ = _differing_games(con, table, cols, expected[table], folded,
                                      bounds.rows.get(table, _NO_ROWS))
            suspect.extend(folded if differ is None else differ)
    return _ScanPart({gid: b - a for gid, (a, b) in rows.spans.items()}, set(commits), suspect)


def _scan_as_imported(con: duckdb.DuckDBPyConnection, tables: dict[str, tuple[str, ...]],
                      bounds: _Numbers, table: pa.Table, starts: list[int],
                      commits: dict[str, list[tuple]]) -> _ScanPart | None:
    """:func:`_scan_games` (not quick) of a chunk of games stored whole and numbered 1..n
    (``starts``: the row where each begins), checked the import's way
    (:func:`~seasalt_log.importers.chunks.check_chunk`): the stored events read as the
    lines of a log, each game checked by the engine, and the rows the import would store,
    of the events table and of the read models, compared with the stored ones, one Arrow
    comparison per table. None when the stored events are not each its event's canonical
    JSON, do not read as the games their rows say, or an event row differs from the one
    the import would store: the check game by game then finds the games that differ."""
    ids = table.column("game_id").take(starts[:-1]).to_pylist()
    try:
        raws = list(read_games_data(_log_lines(table.column("event")), "the store"))
    except (pa.ArrowException, ValueError):     # (ValueError: a NULL text, string_bytes)
        return None
    if len(raws) != len(ids) or any(type(r.texts) is not Lines or r.lines[0] != a + 1
                                    for r, a in zip(raws, starts)):
        return None
    sink = RowSink(("events", *tables))
    kept: list[tuple[int, int]] = []        # the rows of the games whose events the sink has
    folded: list[str] = []
    suspect: list[str] = []
    for gid, raw, a, b in zip(ids, raws, starts, starts[1:]):
        game_commits = commits.get(gid)
        try:
            game: CheckedGame | None = check_game(raw)
        except SeasaltError:
            game = None
        # more events than stored: the engine added a derived event the rows lack
        if game is None or game.game_id != gid or len(game.events) != b - a \
                or not game_commits:
            suspect.append(gid)
            continue
        texts = raw.texts
        assert texts is not None            # (Lines: see above)
        link = add_events(sink, game_commits[0][1], game, texts)
        kept.append((a, b))
        if not _writes_hold(gid, texts, game_commits, link):
            suspect.append(gid)
            continue
        folded.append(gid)
        rows = project(gid, game.events, game.states, reader_type_codes(texts))
        sink.add({t: rows[t] for t in tables})
    try:
        recomputed = {t: r for t, r in sink.close().items() if isinstance(r, pa.Table)}
    except (pa.ArrowException, TypeError, ValueError, OverflowError, struct.error):
        return None
    stored = table if len(kept) == len(ids) else pa.concat_tables(
        [table.slice(a, b - a) for a, b in kept] or [table.slice(0, 0)])
    if kept and not recomputed["events"].equals(stored):
        return None
    for name, cols in tables.items():
        if folded:
            differ = _differing_games(con, name, cols, recomputed.get(name, []), folded,
                                      bounds.rows.get(name, _NO_ROWS))
            suspect.extend(folded if differ is None else differ)
    return _ScanPart({gid: b - a for gid, a, b in zip(ids, starts, starts[1:])}, set(commits),
                     suspect)


def _log_lines(texts: pa.ChunkedArray) -> bytes:
    """The stored events' JSON as the lines of a log: each followed by a newline (by
    Arrow), in one piece (each chunk's data buffer copied once)."""
    lines = pc.binary_join_element_wise(texts, "", "\n")
    return b"".join(string_bytes(chunk) for chunk in lines.chunks)


def _writes_hold(gid: str, texts: Sequence[bytes], commits: list[tuple], link: int) -> bool:
    """Whether :func:`_check_chain` finds nothing in the writes (``commits``) of a game
    stored as seqs 1..n, whose events' JSON is ``texts`` and chain through its last event
    ``link``."""
    n = len(texts)
    through = {n: link} if all(c[2] == n for c in commits) else _links_at(
        gid, list(texts), range(1, n + 1), [c[2] for c in commits])
    found: list[Difference] = []
    _check_chain(gid, None, 0, n, range(1, n + 1), through, commits, found)
    return not found


# ---------------------------------------------------------------- one chunk of games

def _check_chunk(store: Store, ids: list[str], tables: dict[str, tuple[str, ...]],
                 report: VerifyReport, number: int | None = None) -> None:
    """Check the games ``ids``. With ``number`` (one game, on a damaged store) its events
    are read by its number too, so DuckDB skips the row groups of other games, and reads
    only the blocks of this one."""
    con = store.con
    if report.quick:
        _check_chunk_quick(store, ids, tables, report, number)
        return
    rows = _ChunkRows(_read_events(con, ids, number, _READ))
    commits = _commits(con, ids)
    expected: dict[str, list[tuple]] = {t: [] for t in tables}
    folded: dict[str, list[ev.Event]] = {}
    for gid, a, b in _stored_games(ids, rows, commits, report):
        game = _check_events(gid, rows, a, b, commits.get(gid, []), report.differences)
        if game is None:
            report.differences.append(Difference(
                "projection", "read models not compared: the stored events do not fold",
                game_id=gid))
            continue
        events, states = game
        folded[gid] = events
        for table, table_rows in project(gid, events, states).items():
            if table in expected:
                expected[table].extend(table_rows)
    # compare the rows of games that fold, and flag rows of games with no events at all
    compared = [gid for gid in ids if gid in folded or gid not in rows.spans]
    anchors: dict[str, _Anchors] | None = None
    for table, cols in tables.items():
        same = _readable(report, f"the table {table} (games {ids[0]}..{ids[-1]})",
                         lambda: _same_rows(con, table, cols, expected[table], compared),
                         None, table=table)
        if same is None or same:
            continue
        stored = _readable(report, f"the table {table} (games {ids[0]}..{ids[-1]})",
                           lambda: con.execute(f"SELECT {', '.join(cols)} FROM {table} "
                                               "WHERE game_id IN (SELECT unnest(?))",
                                               [compared]).fetchall(), None, table=table)
        if stored is None:
            continue
        if anchors is None:
            anchors = {gid: _Anchors(events) for gid, events in folded.items()}
        _compare_table(table, cols, expected[table], stored, anchors, report)


def _check_chunk_quick(store: Store, ids: list[str], tables: dict[str, tuple[str, ...]],
                       report: VerifyReport, number: int | None) -> None:
    """The quick check of the games ``ids`` (see :func:`verify_store`): no fold."""
    con = store.con
    rows = _ChunkRows(_read_events(con, ids, number, _READ_QUICK), decode=False)
    commits = _commits(con, ids)
    for gid, a, b in _stored_games(ids, rows, commits, report):
        seqs = rows.seq[a:b]
        report.differences.extend(_seq_differences(gid, seqs))
        _check_chain(gid, rows, a, b, seqs, None, commits.get(gid, []), report.differences)
    for table in tables:
        counts = _readable(report, f"the table {table} (games {ids[0]}..{ids[-1]})",
                           lambda: con.execute(f"SELECT game_id, count(*) FROM {table} WHERE "
                                               "game_id IN (SELECT unnest(?)) GROUP BY game_id "
                                               "ORDER BY game_id", [ids]).fetchall(),
                           None, table=table)
        have = dict(counts or [])
        for gid in ids if counts is not None else ():
            n = have.get(gid, 0)
            if gid not in rows.spans and n:
                message = f"{n} row(s) belong to no stored game (no events)"
            elif table == "games" and gid in rows.spans and n != 1:
                message = f"{n} rows of this game, one expected"
            else:
                continue
            report.differences.append(Difference("projection", message, game_id=gid,
                                                 table=table))


def _stored_games(ids: list[str], rows: _ChunkRows, commits: dict[str, list[tuple]],
                  report: VerifyReport) -> Iterator[tuple[str, int, int]]:
    """Each game of ``ids`` that has events, with where its rows lie, counted in the report
    (a game with writes but no events is a ``hash`` difference)."""
    for gid in ids:
        span = rows.spans.get(gid)
        if span is None:
            if gid in commits:
                report.differences.append(Difference(
                    "hash", "the commits table records writes of this game, which has no "
                            "events", game_id=gid))
            continue
        report.games += 1
        report.events += span[1] - span[0]
        yield gid, *span


def _commits(con: duckdb.DuckDBPyConnection, ids: list[str] | None = None,
             where: str | None = None) -> dict[str, list[tuple]]:
    """The rows of the commits table of the games ``ids`` (or those ``where`` selects: game
    id, number, seq, hash), by game, in seq order."""
    commits: dict[str, list[tuple]] = {}
    for r in con.execute("SELECT game_id, game, seq, hash FROM commits WHERE "
                         f"{where or 'game_id IN (SELECT unnest(?))'} ORDER BY game_id, seq, hash",
                         [] if where else [ids]).fetchall():
        commits.setdefault(r[0], []).append(r)
    return commits


#: the columns of the events table that verify reads, in this order
_READ_ALL = ("SELECT game_id, seq, game, round, turn, player, CAST(type AS VARCHAR) AS type, "
             "CAST(event AS VARCHAR) AS event FROM events")
#: those the quick check reads
_READ_QUICK_ALL = "SELECT game_id, seq, CAST(event AS VARCHAR) AS event FROM events"
#: of the games of a list
_READ, _READ_QUICK = (select + " WHERE game_id IN (SELECT unnest(?))"
                      for select in (_READ_ALL, _READ_QUICK_ALL))


def _read_events(con: duckdb.DuckDBPyConnection, ids: list[str], number: int | None,
                 select: str) -> pa.Table:
    """The event rows of the games ``ids`` (``select``) as Arrow columns, each game's rows
    together and in seq order, rows of one seq in the order stored (bounded by the games'
    numbers when that reads every row of theirs, see :func:`_number_bounds`; by ``number``
    alone for one game of a damaged store)."""
    if number is not None:
        return con.sql(select + " AND game = ? ORDER BY game_id, seq, rowid",
                       params=[ids, number]).to_arrow_table()
    bounds = _number_bounds(con, ids)
    if bounds is None:
        return con.sql(select + " ORDER BY game_id, seq, rowid", params=[ids]).to_arrow_table()
    return con.sql(select + " AND game BETWEEN ? AND ? ORDER BY game_id, seq, rowid",
                   params=[ids, *bounds]).to_arrow_table()


class _ChunkRows:
    """The event rows of a chunk of games as Python lists, one per column (taken from
    Arrow in one call each), the events decoded in one call, and where each game's rows
    lie (``spans``: game id -> (first row, end))."""

    def __init__(self, table: pa.Table, decode: bool = True, starts: list[int] | None = None):
        n = table.num_rows
        if starts is None:          # (else the :func:`game_starts` already known)
            starts = game_starts(table.column("game_id")) if n else [0]
        ids = table.column("game_id").take(starts[:-1]).to_pylist() if n else []
        self.spans = {gid: (starts[k], starts[k + 1]) for k, gid in enumerate(ids)}
        self._seqs = table.column("seq")
        self.game, self.round, self.turn, self.player, self.type = (
            table.column(c).to_pylist() if c in table.column_names else []
            for c in _EVENT_COLUMNS[:5])
        texts = table.column("event")
        self.texts = texts
        self.events = decode_column(texts) if n and decode else None

    @functools.cached_property
    def data(self) -> list[bytes]:
        """Each event's JSON as the UTF-8 bytes it was hashed as (taken when first asked
        for)."""
        return self.texts.cast(pa.binary()).to_pylist()

    def links(self, commits: dict[str, list[tuple]]) -> dict[str, dict[int, int]]:
        """For every game whose rows are its seqs 1..n in order (the caller knows they
        all are), :func:`_links_at` of its writes (``commits``): the events of each write
        joined in Arrow (C++), each write's a slice of one buffer, so that a write costs
        one hash and no Python object per event."""
        bounds, plan = [0], []          # rising row boundaries; per game, its writes' ends
        for gid, (a, b) in self.spans.items():     # (the spans follow each other)
            ends = sorted({c[2] for c in commits.get(gid, ()) if 1 <= c[2] <= b - a})
            plan.append((gid, a, ends))
            bounds.extend(a + e for e in ends)
            if b != bounds[-1]:
                bounds.append(b)
        values = self.texts.combine_chunks() if self.texts.num_chunks != 1 else self.texts.chunk(0)
        joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(bounds, pa.int32()),
                                                         values.cast(pa.binary())), b"\n")
        _, offsets, data = joined.buffers()     # each write's events: a slice of one buffer
        cuts = memoryview(offsets).cast("q" if pa.types.is_large_binary(joined.type) else "i")
        buf = memoryview(data)
        at = {row: k for k, row in enumerate(bounds)}
        found: dict[str, dict[int, int]] = {}
        for gid, a, ends in plan:
            h, start, links = link_bytes(genesis_hash(gid)), a, {}
            for e in ends:
                k = at[start]
                h = lines_link(h, buf[cuts[k]:cuts[k + 1]], b"\n")
                links[e] = link_value(h)
                start = a + e
            found[gid] = links
        return found

    @functools.cached_property
    def seq(self) -> list[int]:
        """Each row's seq (taken when first asked for)."""
        return self._seqs.to_pylist()

    def fold(self, a: int, b: int) -> Folded:
        """:func:`~seasalt_log.store.batch.fold_game` of the rows ``a:b`` (one game)."""
        texts = lambda: self.texts.slice(a, b - a).to_pylist()  # noqa: E731
        if self.events is None:
            return fold_game(texts())
        return fold_decoded(self.events[a:b], texts)

    def row(self, i: int) -> tuple:
        """Row ``i`` in :data:`_EVENT_COLUMNS` order (the event as text)."""
        return (self.game[i], self.round[i], self.turn[i], self.player[i], self.type[i],
                self.data[i].decode("utf-8", "surrogatepass"))


def _number_bounds(con: duckdb.DuckDBPyConnection, ids: list[str]) -> tuple[int, int] | None:
    """The lowest and highest number the commits table gives the games ``ids``, when every
    event row of these games has a number between them (then reading only the row groups
    of those numbers reads every row of theirs, and no more: a store's games are written
    together); None otherwise. The count reads the id and number columns, not the events'
    JSON, and so costs a tenth of reading the whole events table."""
    lo, hi = con.execute("SELECT min(game), max(game) FROM commits "
                         "WHERE game_id IN (SELECT unnest(?))", [ids]).fetchall()[0]
    if lo is None:
        return None
    outside = con.execute("SELECT count(*) FROM events WHERE game_id IN (SELECT unnest(?)) "
                          "AND (game BETWEEN ? AND ?) IS NOT TRUE", [ids, lo, hi]).fetchall()[0][0]
    return None if outside else (lo, hi)


def _check_events(gid: str, rows: _ChunkRows, a: int, b: int, commits: list[tuple],
                  out: list[Difference]) -> tuple[list[ev.Event], list[State]] | None:
    """Check one game's event rows (``a:b`` of the chunk) and its rows of the commits
    table; the decoded events and states when they fold."""
    seqs = rows.seq[a:b]
    found = _seq_differences(gid, seqs)
    number = commits[0][1] if commits else rows.game[a]
    events, states, failure = rows.fold(a, b)
    checked: list[Difference] = []
    if failure is not None:
        at = failure.index
        checked.append(Difference(failure.kind, failure.message, game_id=gid,
                                  seq=seqs[at] if at < len(seqs) else len(seqs) + 1))
    through: dict[int, int] | None = None
    if failure is None or failure.index >= len(seqs):
        # the game id
        start = events[0] if events else None
        if isinstance(start, ev.GameStarted):
            own = start.game_id or derive_game_id(events)
            if own != gid:
                checked.append(Difference("game_id", f"the events say game {own!r}, the rows "
                                                     f"say {gid!r}", game_id=gid, seq=1))
        if start is not None and states[0].game_id is None:
            states = named(states, gid)
        # the columns of each row, as the store writes them (and the chain through the last)
        cols, last_hash = event_columns(gid, number, events, states)
        checked.extend(_row_differences(gid, rows, a, seqs, cols))
        through = _known_links(rows.data[a:b], seqs, commits, cols[7], last_hash)
    _check_chain(gid, rows, a, b, seqs, through, commits, found)
    out.extend(found)
    out.extend(checked)
    return (events, states) if failure is None or failure.index >= len(seqs) else None


def _chain_holds(gid: str, rows: _ChunkRows, a: int, b: int, commits: list[tuple],
                 numbered: bool = False, through: dict[int, int] | None = None) -> bool:
    """Whether neither :func:`_seq_differences` nor :func:`_check_chain` finds anything in
    the rows ``a:b`` of a game (``numbered``: they are known to be seqs 1..n; ``through``:
    the links of its writes, when known)."""
    n = b - a
    if not commits or not (numbered or rows.seq[a:b] == list(range(1, n + 1))):
        return False
    found: list[Difference] = []
    _check_chain(gid, rows, a, b, range(1, n + 1), through, commits, found)
    return not found


def _seq_differences(gid: str, seqs: list[int]) -> list[Difference]:
    """A game's stored seqs (in order) against 1..n, no gap."""
    found: list[Difference] = []
    want = 1
    for seq in () if seqs == list(range(1, len(seqs) + 1)) else seqs:
        if seq != want:
            if seq > want:
                gap = f"seq {want}" if seq == want + 1 else f"seqs {want}..{seq - 1}"
                found.append(Difference("seq", f"{gap} missing (the next stored event is seq "
                                               f"{seq})", game_id=gid, seq=want))
            else:
                found.append(Difference("seq", f"seq {seq} is out of order", game_id=gid,
                                        seq=seq))
        want = seq + 1
    return found


def _known_links(stored: list[bytes], seqs: list[int], commits: list[tuple],
                 encoded: list[bytes], last_hash: int) -> dict[int, int] | None:
    """The chain through the seqs the game's writes ended at, when the import's own
    computation of it (over ``encoded``, the events as the store writes them, giving
    ``last_hash`` through the last) already chained the stored bytes: the rows are seqs
    1..n, their bytes are those, and every write ended at seq n. None otherwise (the chain
    is then computed over the stored bytes)."""
    n = len(seqs)
    if seqs[-1] == n and all(c[2] == n for c in commits) and encoded == stored \
            and seqs == list(range(1, n + 1)):
        return {n: last_hash}
    return None


def _row_differences(gid: str, rows: _ChunkRows, a: int, seqs: list[int],
                     cols: list[Any]) -> list[Difference]:
    """The rows ``a:`` of a game whose columns differ from ``cols`` (as
    :func:`~seasalt_log.store.event_table.event_columns` gives them: the game and round
    numbers C arrays, compared as the lists of their values)."""
    b = a + len(seqs)
    stored = (rows.game[a:b], rows.round[a:b], rows.turn[a:b], rows.player[a:b],
              rows.type[a:b], rows.data[a:b])
    want = (cols[2].tolist(), cols[3].tolist(), *cols[4:8])
    if all(got == exp for got, exp in zip(stored, want)):
        return []
    found = []
    for k, seq in enumerate(seqs):
        got = rows.row(a + k)
        exp = tuple(c[k] for c in want[:5]) + (want[5][k].decode(),)
        bad = [i for i in range(len(_EVENT_COLUMNS)) if got[i] != exp[i]]
        if bad:
            found.append(Difference(
                "event_row", "; ".join(f"{_EVENT_COLUMNS[i]} is {_show(got[i])}, expected "
                                       f"{_show(exp[i])}" for i in bad), game_id=gid, seq=seq))
    return found


def _check_chain(gid: str, rows: _ChunkRows | None, a: int, b: int, seqs: Sequence[int],
                 through: dict[int, int] | None, commits: list[tuple],
                 out: list[Difference]) -> None:
    """Compare the hash chain over the stored events (``seqs``: their seqs in stored order,
    a range when they are 1..n; ``through``: seq -> the link of the write that ended there,
    when already known; else computed here from the stored bytes, ``rows``) with what each write
    recorded (one row of ``commits`` per write: the seq it ended at and its link). A
    difference names the first seq of the write it is in."""
    if through is None:
        assert rows is not None, "the stored events, to chain"
        through = _links_at(gid, rows.data[a:b], seqs, [c[2] for c in commits])
    last = seqs[-1]
    if not commits:
        out.append(Difference("hash", "no write of this game is recorded in the commits table",
                              game_id=gid, seq=1))
        return
    after = 0                   # the seq the previous write ended at
    begun = 1                   # ... and the seq it began at
    broken = False              # the chain differs: later writes differ too, not reported
    first = commits[0][1]
    for _, number, seq, stored in commits:
        computed = through.get(seq)
        if after and seq == after:      # the rows come in seq order: a write ends once
            out.append(Difference("hash", f"the write of seqs {begun}..{seq} is recorded "
                                          "more than once in the commits table",
                                  game_id=gid, seq=begun))
        else:
            begun = after + 1
        if broken or seq == after:
            pass
        elif computed is None:
            out.append(Difference("hash", f"a write is recorded up to seq {seq}, but the "
                                          f"game's stored events end at seq {last}",
                                  game_id=gid, seq=after + 1))
        elif computed != stored:
            out.append(Difference(
                "hash", f"the hash chain through seq {seq} is {_show_hash(computed)}, the write "
                        f"of seqs {after + 1}..{seq} recorded {_show_hash(stored)}: an event of "
                        "the write, or the record, was changed",
                game_id=gid, seq=after + 1))
            broken = True
        if number != first:
            out.append(Difference("number", f"the write up to seq {seq} gives the game the "
                                            f"number {number}, the first gave {first}",
                                  game_id=gid, seq=after + 1))
        if seq > after:
            after = seq
    if after < last:
        out.append(Difference("hash", f"seqs {after + 1}..{last} are stored but no write of "
                                      "them is recorded in the commits table",
                              game_id=gid, seq=after + 1))


def _links_at(gid: str, data: list[bytes], seqs: Sequence[int], ends: list[int]
              ) -> dict[int, int]:
    """The links of the writes that ended at each of the seqs ``ends`` that is stored, over
    the stored events ``data`` (whose seqs are ``seqs``): seq -> link (a seq stored twice:
    the write ends at its last row). Each write is taken to store the rows after the row
    the write before it (the one of the next lower seq stored) ended at, from the first."""
    n = len(seqs)
    if type(seqs) is range or seqs == list(range(1, n + 1)):     # row k holds seq k
        rows_at = sorted({e for e in ends if 1 <= e <= n})
        return dict(zip(rows_at, write_links(gid, data, rows_at)))
    row = {seq: k + 1 for k, seq in enumerate(seqs)}
    at = {e: row[e] for e in ends if e in row}
    rows_at = sorted(set(at.values()))
    hashes = dict(zip(rows_at, write_links(gid, data, rows_at)))
    return {e: hashes[k] for e, k in at.items()}


def _show_hash(value: int) -> str:
    """A chain link (a signed 64-bit integer) as 16 hex digits."""
    return f"{value & 0xFFFFFFFFFFFFFFFF:016x}"


def _show(value) -> str:
    text = repr(_plain(value))
    return text if len(text) <= 120 else text[:117] + "..."


def _plain(value):
    """Tuples back to lists, for display."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# ---------------------------------------------------------------- read models

class _Anchors:
    """Where a read-model row points into a game's events (for the seq of a difference)."""

    __slots__ = ("last", "rounds")

    def __init__(self, events: list[ev.Event]):
        self.last = len(events)
        self.rounds: dict[int, int] = {}
        for i, e in enumerate(events, 1):
            if isinstance(e, (ev.RoundStarted, ev.RoundScored)):
                self.rounds[e.round] = i

    def seq(self, row: dict) -> int | None:
        for col in ("seq", "first_seq"):
            if isinstance(row.get(col), int):
                return row[col]
        rnd = row.get("round")
        if isinstance(rnd, int) and rnd in self.rounds:
            return self.rounds[rnd]
        return self.last


_KEY_CANDIDATES = ("game_id", "round", "turn", "seat", "seq")


def _norm(value):
    """A stored or recomputed value in one comparable, hashable form."""
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _norm(v)) for k, v in value.items()))
    return value


#: the types :func:`_norm` leaves as they are
_SCALARS = frozenset({int, str, bool, float, type(None)})


def _normalized(rows: list[tuple]) -> list[tuple]:
    """``[tuple(_norm(v) for v in row) for row in rows]``, column by column: only the
    columns holding a list, a tuple or a dict go through :func:`_norm`, value by value."""
    if not rows:
        return []
    cols = list(zip(*rows))
    for i, col in enumerate(cols):
        if not set(map(type, col)) <= _SCALARS:
            cols[i] = tuple(map(_norm, col))
    return list(zip(*cols))


def _same_rows(con: duckdb.DuckDBPyConnection, table: str, cols: tuple[str, ...],
               expected: list[tuple], ids: list[str]) -> bool:
    """Whether the stored rows of ``table`` of the games ``ids`` are exactly ``expected``
    (the same multiset of rows): see :func:`_differing_games`. False also when the rows do
    not fit the table's types (then :func:`_compare_table` says what differs)."""
    return _differing_games(con, table, cols, expected, ids) == []


#: a range of rowids that holds no row
_NO_ROWS = (0, -1)


def _differing_games(con: duckdb.DuckDBPyConnection, table: str, cols: tuple[str, ...],
                     expected: list[tuple] | pa.Table, ids: list[str],
                     rows: tuple[int, int] | None = None) -> list[str] | None:
    """The games of ``ids`` whose stored rows of ``table`` are not exactly ``expected``
    (the same multiset of rows): the recomputed rows become Arrow columns in the table's
    own types (as the import writes them; or are given so) and one DuckDB query takes each
    side from the other. None when the rows do not fit the table's types.

    ``rows``: the range of rowids (from, to) that holds every stored row of these games.
    When the rows in it are ``expected``, in that order (as the import wrote them), one
    Arrow comparison says so; else the query reads only that range."""
    try:
        want = expected if isinstance(expected, pa.Table) else pa.Table.from_batches(
            [record_batch(table, expected)])
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    names = ", ".join(cols)
    within = "" if rows is None else f"rowid BETWEEN {int(rows[0])} AND {int(rows[1])} AND "
    if rows is not None and con.sql(f"SELECT {names} FROM {table} WHERE {within} TRUE") \
            .to_arrow_table().equals(want.select(list(cols))):
        return []
    # registered by name: a connection sharing the service's database has no replacement
    # scans of Python variables
    con.register("_verify_want", want.select(list(cols)))
    try:
        # each distinct row counted on both sides (+1 stored, -1 recomputed): a sum other
        # than 0 is a row missing or extra (a GROUP BY costs a fifth of two EXCEPT ALL); the
        # range of ids lets DuckDB skip the row groups of other games where the table is
        # stored in that order
        return [r[0] for r in con.execute(
            f"SELECT DISTINCT game_id FROM (SELECT {names}, 1 AS side FROM {table} WHERE {within}"
            f"game_id BETWEEN $lo AND $hi AND game_id IN (SELECT unnest($ids)) UNION ALL "
            f"SELECT {names}, -1 FROM _verify_want) GROUP BY {names} HAVING sum(side) <> 0 "
            "ORDER BY game_id",
            {"ids": ids, "lo": min(ids, default=""), "hi": max(ids, default="")}).fetchall()]
    finally:
        con.unregister("_verify_want")


def _compare_table(table: str, cols: tuple[str, ...], expected: list[tuple], stored: list[tuple],
                   anchors: dict[str, _Anchors], report: VerifyReport) -> None:
    """Stored rows of ``table`` against the recomputed ones, as multisets, both ways."""
    want = Counter(_normalized(expected))
    have = Counter(_normalized(stored))
    if want == have:
        return
    key_cols = [c for c in _KEY_CANDIDATES if c in cols]
    idx = [cols.index(c) for c in key_cols]

    def key(row):
        return tuple(row[i] for i in idx)

    missing = sorted((want - have).elements(), key=lambda r: repr(key(r)))
    extra = sorted((have - want).elements(), key=lambda r: repr(key(r)))

    extra_by_key: dict[tuple, list[tuple]] = {}
    for row in extra:
        extra_by_key.setdefault(key(row), []).append(row)
    counts: dict[str, int] = {}
    found: list[Difference] = []

    def add(gid: str, row: tuple, message: str) -> None:
        counts[gid] = counts.get(gid, 0) + 1
        if counts[gid] > MAX_PER_TABLE:
            return
        a = anchors.get(gid)
        seq = a.seq(dict(zip(cols, row))) if a is not None else None
        found.append(Difference("projection", message, game_id=gid, seq=seq, table=table))

    def describe(row) -> str:
        return ", ".join(f"{c}={_show(row[i])}" for c, i in zip(key_cols, idx) if c != "game_id") \
            or "the game's row"

    for row in missing:
        gid = row[0]
        twins = extra_by_key.get(key(row))
        if twins:
            other = twins.pop(0)
            changed = [f"{c} is {_show(o)}, recomputed {_show(m)}"
                       for c, m, o in zip(cols, row, other) if m != o]
            add(gid, row, f"row {describe(row)} differs: " + "; ".join(changed))
        else:
            add(gid, row, f"row {describe(row)} is missing")
    for rest in extra_by_key.values():
        for row in rest:
            gid = row[0]
            if gid in anchors:
                add(gid, row, f"row {describe(row)} is not what the events give (extra row)")
            else:
                add(gid, row, f"row {describe(row)} belongs to no stored game (no events)")
    for gid, n in counts.items():
        if n > MAX_PER_TABLE:
            found.append(Difference("projection", f"... and {n - MAX_PER_TABLE} more rows differ",
                                    game_id=gid, table=table))
    report.differences.extend(found)


#: what the quick check leaves out, as its summary line says
QUICK_SKIPS = ("quick check: seqs, hash chain, writes, heads, game numbers and one games row "
               "per game; the events were not folded by the engine, their row columns and the "
               "read models' rows not compared")


def summary_line(report: VerifyReport) -> str:
    """One line: what was checked and how many differences were found."""
    head = f"verified {report.games} game(s), {report.events} event(s)"
    if report.quick:
        head += f" ({QUICK_SKIPS})"
    elif report.vouched:
        head += (f" ({report.vouched} of them taken on their record in checked_games: "
                 "checked by this same code, the sums of their rows unchanged since; "
                 "--refold folds them again)")
    n = len(report.differences)
    return head + (": no differences" if not n else f": {n} difference(s)")


def iter_lines(report: VerifyReport) -> Iterable[str]:
    """One line per difference (the CLI's text output)."""
    for d in report.differences:
        yield str(d)
