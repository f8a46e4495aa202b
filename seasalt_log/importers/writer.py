"""The importer's bookkeeping: which games are new, extended, unchanged or failed, and the
writes that store them, in batches and transactions.

:class:`ImportRun` takes games one at a time (:meth:`ImportRun.add`, a checked game) or a
chunk at a time (:meth:`ImportRun.add_chunk`, a chunk checked by a worker process, whose
new games are loaded from the worker's Parquet files in one statement per table).
"""

from __future__ import annotations

import os
from typing import Sequence

import duckdb

from .. import events as ev
from ..errors import SeasaltError, interrupted
from ..store.store import GameWrite, Store, plan_write
from .chunks import Chunk, ChunkGame, ChunkResult
from .jsonl import CheckedGame, check_game, read_games
from .outcomes import (GameOutcome, ImportSummary, compare, compare_digest, conflict,
                       fingerprints)


class ImportRun:
    """One import (``store`` None: a validation) in progress.

    Each game is stored whole or not at all, with its read-model rows; games go in batches
    of about ``batch_events`` events, one transaction each (chunks: each loaded as soon as
    it is checked, the transaction committed once its loads hold :data:`LOAD_BATCHES` times
    :data:`COMMIT_LOADS` batches; with ``strict``, one transaction for everything,
    committed by :meth:`finish` only if no game failed).

    Memory stays bounded whatever the size of the logs: of the games already handled only
    their id and length are kept (a game id met again is compared with the store itself;
    validating, with 8-byte fingerprints of its events).
    """

    #: a transaction of chunk loads holds this many batches times :data:`COMMIT_LOADS`
    LOAD_BATCHES = 5
    #: ... or chunks of this many bytes of log times :data:`COMMIT_LOADS`, however few
    #: events they bring (games that failed, or are stored already, bring none)
    PENDING_BYTES = 64 << 20
    #: games the store refuses in a row (a full disk, a read-only file) before the import
    #: stops, rather than report every game that follows with the same error
    MAX_REFUSALS = 5
    #: see :data:`LOAD_BATCHES`: each commit leaves DuckDB free blocks and partly filled
    #: ones (a store about 4 bytes/event larger with a commit every 500,000 events than
    #: with one), and 2.5 million events are about 15 s of work to redo after a crash
    COMMIT_LOADS = 5
    #: bytes of log of the chunks loaded into the open transaction kept in memory; the
    #: chunks loaded past them wait in files (see ``spill_dir``). A log of a few thousand
    #: games writes none: writing them cost a one-worker import of 1,000 games some 6 % of
    #: its CPU time, and the files are removed unread at the commit
    KEPT_BYTES = 32 << 20

    def __init__(self, store: Store | None, *, strict: bool = False, batch_events: int = 100_000,
                 against: Store | None = None, spill_dir: str | None = None):
        self.store, self.strict, self.batch_events = store, strict, batch_events
        #: where the lines of chunks loaded into the open transaction wait for its end
        #: (past :data:`KEPT_BYTES`; in memory if None): a game is read again if the
        #: transaction fails
        self.spill_dir = spill_dir
        #: validating: a store the games are compared with, as an import into it would
        self.against = against if store is None else None
        self.summary = ImportSummary(written=store is not None)
        known = store if store is not None else self.against
        self.heads: dict[str, int] = known.heads() if known is not None else {}
        self.seen: dict[str, tuple[int, bytes]] = {}   # games of this import: (events, fingerprints)
        self.pending: list[tuple[GameWrite, GameOutcome]] = []
        self.pending_ids: set[str] = set()
        self.pending_events = 0
        self.chunks: list[tuple[Chunk, ChunkResult]] = []    # checked, not loaded yet
        #: chunks loaded in the open transaction (not strict), with the games each skipped
        self.loaded: list[tuple[Chunk, ChunkResult, set[str]]] = []
        self.loaded_ids: set[str] = set()        # the games they loaded
        self.loaded_events = 0                   # ... their events
        self.loaded_bytes = 0                    # ... and the bytes of their chunks' log
        self.refusals = 0                         # games the store refused in a row
        self.first_refused: GameOutcome | None = None     # the first of them
        if store is not None and strict:
            store.begin()

    @property
    def _store(self) -> Store:
        """The store imported into (the methods that write are never called validating)."""
        store = self.store
        assert store is not None, "an import, not a validation"
        return store

    # ------------------------------------------------------------ one game at a time

    def add(self, item: CheckedGame | GameOutcome) -> None:
        """Take one checked game (or the outcome of one that failed)."""
        if isinstance(item, GameOutcome):
            self.summary.games.append(item)
            return
        game, store, seen = item, self.store, self.seen
        gid = game.game_id
        outcome = GameOutcome(game_id=gid, status="new", source=game.source, line=game.first_line)
        self.summary.games.append(outcome)
        if gid in self.pending_ids:
            self.flush()
        if store is None:
            self._validated(outcome, len(game.events), fingerprints(game.events),
                            lambda: ev.encode_each(game.events))
            return
        prev_hash = None
        if gid in seen:
            stored, prev_hash = store.head(gid)     # what this import really stored
        else:
            stored = self.heads.get(gid, 0)
        if stored:
            status, error = compare(ev.encode_each(game.events), store.read_json(gid))
            if self._settled(outcome, status, error):
                return
            if prev_hash is None:
                prev_hash = store.head(gid)[1]
        planned = plan_write(gid, store.assign(gid), game.events, game.states, stored=stored,
                             prev_hash=prev_hash)
        outcome.events = len(planned.event_rows)
        seen[gid] = (len(game.events), b"")
        self.pending.append((planned, outcome))
        self.pending_ids.add(gid)
        self.pending_events += outcome.events
        if self.pending_events >= self.batch_events:
            self.flush()

    @staticmethod
    def _settled(outcome: GameOutcome, status: str, error: str | None) -> bool:
        """Record the comparison's verdict; True when nothing is left to write."""
        outcome.status = status
        if status == "failed":
            assert error is not None, "a conflict says what differs"
            conflict(outcome, error)
        return status in ("failed", "unchanged")

    def _write(self, batch: list[tuple[GameWrite, GameOutcome]]) -> SeasaltError | None:
        """Write ``batch`` (in its own transaction unless strict); the error, rolled back."""
        store = self._store
        if not self.strict:
            store.begin()
        try:
            store.write(w for w, _ in batch)
            if not self.strict:
                store.commit()
            return None
        except (SeasaltError, duckdb.Error) as exc:
            self._abort()
            return _store_error(exc)

    def _abort(self) -> None:
        """Roll back the open transaction (strict: the import's, begun again, empty); a
        COMMIT that failed has ended it already."""
        try:
            self._store.rollback()
        except duckdb.TransactionException:
            pass
        if self.strict:
            self._store.begin()

    def flush(self) -> None:
        """Write the pending games (one at a time if the batch fails: only a bad one fails)."""
        pending = self.pending
        if not pending or self.store is None:
            return
        self.commit_loads()
        error = self._write(pending)
        if error is not None and not self.strict and len(pending) > 1:
            for k, item in enumerate(pending):
                e = self._write([item])
                _, o = item
                if e is None:
                    self.refusals = 0
                    continue
                msg = str(e) if f"game {o.game_id}" in str(e) else f"game {o.game_id}: {e}"
                o.status, o.error, o.events = "failed", msg, 0
                self._refused(e, o, pending[k + 1:])
        elif error is not None:
            for _, o in pending:
                o.status, o.error, o.events = "failed", str(error), 0
            self._refused(error, pending[0][1], pending[1:])
        else:
            self.refusals = 0
        self.pending, self.pending_events = [], 0
        self.pending_ids.clear()

    def _refused(self, error: SeasaltError, outcome: GameOutcome,
                 unwritten: Sequence[tuple[GameWrite, GameOutcome]] = ()) -> None:
        """Count a game the store refused (``outcome``; ``unwritten``: games of its batch
        not written yet); stop the import with one message once :data:`MAX_REFUSALS` were
        refused in a row, or at the first with ``strict`` (nothing can be stored then)."""
        self.refusals += 1
        if self.refusals == 1:
            self.first_refused = outcome
        if not self.strict and self.refusals < self.MAX_REFUSALS:
            return
        first = self.first_refused
        assert first is not None, "set at the first refusal"
        if self.strict:
            times, done = "", "nothing stored (--strict)"
        else:
            stored = (sum(g.status in ("new", "extended") for g in self.summary.games)
                      - sum(o.status in ("new", "extended") for _, o in unwritten))
            times, done = f" of {self.refusals} games in a row", f"{stored} game(s) stored before it"
        reason = str(error)
        for prefix in (f"game {outcome.game_id}: ", _REFUSED):
            if reason.startswith(prefix):
                reason = reason[len(prefix):]
        raise ImportStopped(f"{_REFUSED[:-2]}{times}, so the import stopped at "
                            f"{first.source}:{first.line} (game {first.game_id}): {reason}; {done}")

    # ------------------------------------------------------------ a chunk at a time

    def add_chunk(self, chunk: Chunk, result: ChunkResult) -> None:
        """Take the games of a chunk checked by :func:`~.chunks.check_chunk`. New games are
        loaded from the chunk's files at once (DuckDB inserts them while the next chunks
        are checked), several chunks per transaction (see :data:`LOAD_BATCHES`); a game met
        before in this import, or stored already, goes through :meth:`add` (unless
        unchanged)."""
        if self.store is None:
            self._validated_chunk(chunk, result)
            return
        self.chunks.append((chunk, result))
        self.flush_chunks()

    def _validated_chunk(self, chunk: Chunk, result: ChunkResult) -> None:
        for g in result.games:
            if g.failure is not None:
                self.summary.games.append(g.failure)
                continue
            outcome = GameOutcome(game_id=g.game_id, status="new", source=chunk.source,
                                  line=g.first_line)
            self.summary.games.append(outcome)
            self._validated(outcome, g.events, g.fingerprints, lambda: g.encoded)

    def _validated(self, outcome: GameOutcome, events: int, prints: bytes, encoded) -> None:
        """Settle a validated game against the games met before in this validation, or
        else the store it is validated against (``encoded()``: its events' JSON); the
        events it would store are counted."""
        gid = outcome.game_id
        assert gid is not None, "a game that passed its checks has its id"
        if gid in self.seen:
            status, error = compare_digest(prints, *self.seen[gid])
            stored = self.seen[gid][0]
        elif gid in self.heads:
            assert self.against is not None, "the heads are those of the store validated against"
            status, error = compare(encoded(), self.against.read_json(gid))
            stored = self.heads[gid]
        else:
            status, error, stored = "new", None, 0
        if self._settled(outcome, status, error):
            if status == "unchanged":
                self.seen.setdefault(gid, (events, prints))
            return
        outcome.events = events - stored
        self.seen[gid] = (events, prints)

    def flush_chunks(self) -> None:
        """Load the new games of the chunks taken so far into the open transaction (opened
        here if need be; strict: the import's one transaction), and commit it once it holds
        enough (see :data:`LOAD_BATCHES`). A game is settled once its transaction is done."""
        batch, self.chunks = self.chunks, []
        if not batch:
            return
        store, seen = self._store, self.seen
        skips: list[set[str]] = []      # per chunk: its new games met before (loaded later)
        loads: list[list[str]] = []     # per chunk: its new games (their rows are in its files)
        first: set[str] = set()
        for _, result in batch:
            skip: set[str] = set()
            load = []
            for g in result.games:
                if g.rows:
                    gid = g.game_id
                    assert gid is not None, "a game with rows has its id"
                    load.append(gid)
                    met = gid in seen or gid in first or gid in self.loaded_ids
                    (skip if met else first).add(gid)
            skips.append(skip)
            loads.append(load)
        error = None
        try:
            if first:
                if not self.loaded:
                    self.flush()    # games before these chunks first: theirs may extend them
                    if not self.strict:
                        store.begin()
                try:
                    for (_, r), load, skip in zip(batch, loads, skips):
                        store.load(r.files, load, skip)
                    # the small tables wait for the commit, or (the import near its end) go
                    # in now, while the last piece is checked, rather than after it
                    store.finish_loads(every=any(c.flush_staged for c, _ in batch))
                except (SeasaltError, duckdb.Error) as exc:
                    error = _store_error(exc)
        finally:
            for _, result in batch:
                for f in result.files.values():
                    if isinstance(f, str):      # else rows in memory, let go below
                        os.unlink(f)
                result.files = {}
        if not first and not self.loaded:   # nothing loaded: settle them now, in order
            self._settle(batch, skips, None)
            return
        self.loaded.extend((c, r, skip) for (c, r), skip in zip(batch, skips))
        self.loaded_ids |= first
        self.loaded_events += sum(g.events for _, r in batch for g in r.games
                                  if g.rows and g.game_id in first)
        self.loaded_bytes += sum(len(c.data) for c, _ in batch)
        if error is not None:
            self._end_loads(error)
        elif (self.strict or self.loaded_events >= self.batch_events * self.LOAD_BATCHES
              * self.COMMIT_LOADS or self.loaded_bytes >= self.PENDING_BYTES * self.COMMIT_LOADS):
            self.commit_loads()
        elif self.spill_dir is not None and self.loaded_bytes > self.KEPT_BYTES:
            for chunk, _ in batch:
                chunk.spill(self.spill_dir)

    def commit_loads(self) -> None:
        """Commit the chunks loaded so far (if any) and settle their games."""
        if not self.loaded:
            return
        error = None
        try:
            if self.strict:     # the import's one transaction: committed by finish()
                self._store.finish_loads()
            else:
                self._store.commit()
        except (SeasaltError, duckdb.Error) as exc:
            error = _store_error(exc)
        self._end_loads(error)

    def _end_loads(self, error: SeasaltError | None) -> None:
        """Settle the games of the loaded chunks; after ``error`` (their transaction rolled
        back) a game goes through :meth:`add`, or (strict) fails with the import."""
        loaded = self.loaded
        self.loaded, self.loaded_ids, self.loaded_events, self.loaded_bytes = [], set(), 0, 0
        if error is not None:
            self._abort()
            if self.strict:
                for chunk, _, _ in loaded:
                    chunk.forget()
                first = next((g for _, r, _ in loaded for g in r.games if g.rows), None)
                self._refused(error, GameOutcome(
                    game_id=first.game_id if first else None, status="failed",
                    source=loaded[0][0].source, line=first.first_line if first else 0))
        try:
            self._settle([(c, r) for c, r, _ in loaded], [skip for _, _, skip in loaded], error)
        finally:
            for chunk, _, _ in loaded:
                chunk.forget()

    def _settle(self, batch: list[tuple[Chunk, ChunkResult]], skips: list[set[str]],
                error: SeasaltError | None) -> None:
        """Record the outcome of each game of ``batch`` in order: loaded (unless ``error``),
        failed in the worker, or settled one at a time against what is stored."""
        seen = self.seen
        for (chunk, result), skip in zip(batch, skips):
            for g in result.games:
                if g.failure is not None:
                    self.summary.games.append(g.failure)
                elif g.rows and g.game_id not in skip and (error is None or self.strict):
                    gid = g.game_id
                    assert gid is not None, "a game with rows has its id"
                    outcome = GameOutcome(game_id=gid, status="new", events=g.events,
                                          source=chunk.source, line=g.first_line)
                    if error is not None:       # strict: the import fails as a whole
                        outcome.status, outcome.error, outcome.events = "failed", str(error), 0
                    self.summary.games.append(outcome)
                    seen[gid] = (g.events, b"")
                elif g.encoded is None or not self._settled_by_store(chunk, g):
                    raw = next(read_games(chunk.lines(g.first_line, g.last_line), chunk.source,
                                          g.first_line))
                    self.add(check_game(raw))      # it passed the worker's check: it passes again

    def _settled_by_store(self, chunk: Chunk, g: ChunkGame) -> bool:
        """Compare a game of a chunk with what is stored under its id: unchanged or a
        conflict is its outcome (True); new or extended (False) needs its rows."""
        gid, encoded = g.game_id, g.encoded
        assert gid is not None and encoded is not None, "a game stored or met before"
        if gid in self.pending_ids:
            self.flush()
        if gid not in self.seen and gid not in self.heads:
            return False
        status, error = compare(encoded, self._store.read_json(gid))
        if status == "extended":
            return False
        outcome = GameOutcome(game_id=gid, status=status, source=chunk.source, line=g.first_line)
        self._settled(outcome, status, error)
        self.summary.games.append(outcome)
        if status == "unchanged":
            self.seen[gid] = (g.events, b"")
        return True

    # ------------------------------------------------------------ the end

    def finish(self) -> ImportSummary:
        """Write what is pending, count the outcomes, and (strict) commit or roll back."""
        self.flush_chunks()
        self.commit_loads()
        self.flush()
        summary = self.summary.tally()
        if self.store is not None and self.strict:
            if summary.failed:
                self.store.rollback()
                summary.written = False
                summary.events_stored = 0
            else:
                self.store.commit()
        return summary


_REFUSED = "the store refused the write: "


class ImportStopped(SeasaltError):
    """The store refused the writes of a run of games: the import stopped there."""


def _store_error(exc: Exception) -> SeasaltError:
    """``exc`` as the error of the games a failed write or load was storing; DuckDB's
    report of Ctrl-C (its InterruptException) is raised again: it stops the import, it
    refuses no game."""
    if interrupted(exc):
        raise exc
    if isinstance(exc, SeasaltError):
        return exc
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return SeasaltError(f"{_REFUSED}{first}")
