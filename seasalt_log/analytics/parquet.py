"""``seasalt export --parquet DIR``: the events table, the commits table (the hash chain's
record) and every read model as Parquet files.

Layout of ``DIR``::

    events/n_players=2/data_<B>.parquet   the events table, Hive-partitioned by n_players,
    events/n_players=3/data_<B>.parquet   then bucketed by game id
    events/n_players=4/data_<B>.parquet
    games.parquet  seats.parquet  rounds.parquet  round_results.parquet
    turns.parquet  duos.parquet   cards.parquet  commits.parquet

Plain DuckDB reads them back, e.g.
``SELECT * FROM read_parquet('DIR/events/*/*.parquet', hive_partitioning = true)``.

**Every game lies whole, in seq order, in one events file**, so a job that folds games (see
``seasalt archive``) can take each file alone, with no shuffle. A game goes to bucket
``B = int(md5(game_id)[:8], 16) % buckets``: the first 8 hex digits of the MD5 of its id
(UTF-8) as an unsigned number, modulo the number of buckets (:func:`game_bucket`; in DuckDB
``('0x' || md5(game_id)[1:8])::UBIGINT % buckets``), which any engine can recompute and no
engine version changes. ``buckets`` is about one per :data:`BUCKET_EVENTS` events. Within a
file the games follow their numbers in the store (``game``: the order they were first
written) and each game's rows their seq, and each file's Parquet metadata says so
(:data:`LAYOUT_KEY` = :data:`LAYOUT_WHOLE_GAMES`, and :data:`BUCKETS_KEY` the number of
buckets); files without it (exports of earlier
versions, whose games could be split across files) need a shuffle by game first. Their
columns are required where the table's statistics record no NULL, as DuckDB's own ``COPY``
marks them (:func:`_file_columns`).

Each read model's file holds its rows by game number too, then by the rest of the table's
key (``turns``: round, turn), the order an import stores them in, so they are read as
stored with no sort (:data:`READ_MODELS`; a store whose rows lie otherwise, after later
writes, is sorted into that order). ``cards`` is by code and ``commits`` by game id and seq.
These files have the column types of DuckDB's own ``COPY ... (FORMAT parquet)`` of the table
and, as the events files, min/max statistics only for their key (:func:`_write_file`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import deque
from contextlib import suppress
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from msgspec import Struct

from ..errors import SeasaltError, UsageError, interrupted
from ..outputs import atomic_dir
from ..store.projections import CARDS, SCHEMA, TABLES
from ..store.literals import sql_identifier, sql_literal
from ..store.stored_order import in_game_order, stored_batches
from ..store.fetch import one_value

#: every name the export writes in DIR
PARQUET_TABLES: tuple[str, ...] = (*TABLES, CARDS.name, "commits")
#: about this many events per events file (the number of buckets follows from it)
BUCKET_EVENTS = 1_000_000
#: rows per row group of an events file
ROW_GROUP_ROWS = 100_000
#: at most this many events files written at once (their rows buffered in memory, up to a
#: row group each); more take another scan of the events. 128: one scan for the three player
#: counts of a store of up to about 42 million events
OPEN_FILES = 128
#: rows the writer encodes at a time (its default, 1,024, costs the events files' writes
#: some 3 % more CPU in per-batch bookkeeping; a data page then holds up to this many rows)
WRITE_BATCH = 65_536
#: threads encoding and writing the events files' row groups (beside the one reading)
WRITERS = 2
#: the events columns whose min/max an events file records: the ones a row group's range can
#: narrow (the others span nearly every value in any row group, and cost the writer a sixth)
STATISTICS = ("game_id", "seq", "game")
#: the Parquet key-value metadata that marks an events file holding whole games in order
LAYOUT_KEY = b"seasalt.layout"
LAYOUT_WHOLE_GAMES = b"whole-games"
#: ... and the number of buckets the export used
BUCKETS_KEY = b"seasalt.buckets"
#: every table but the events -> the key its file holds its rows by (the columns whose min/max
#: the file records: see :func:`_write_file`)
_ORDER: dict[str, tuple[str, ...]] = {**{t.name: t.order for t in (*SCHEMA, CARDS)},
                                      "commits": ("game_id", "seq")}
#: rows per batch read from DuckDB (and per row group) of a read model's file
TABLE_ROWS = 122_880
#: rows per batch of the pass that tells whether a read model is stored in its file's order
ORDER_CHECK_ROWS = 1 << 20
#: read model -> its key (the game id first): its file holds its rows by the game's number
#: in the store (``events.game``, the order the games were first written), then the rest of
#: the key; the rows of a game without a number (none in a sound store) last, by their key
READ_MODELS: dict[str, tuple[str, ...]] = {t.name: t.order for t in SCHEMA}


class ParquetExport(Struct):
    """What an export wrote."""

    directory: str
    rows: dict[str, int]       # table -> rows written (events included)
    files: list[str]           # paths relative to ``directory``
    seconds: float


def _check_replaceable(directory: Path) -> None:
    """Refuse a ``directory`` that holds anything but an earlier export (it is replaced)."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--parquet {directory}: not a directory")
    if not directory.exists():
        return
    ours = {"events", *(f"{t}.parquet" for t in PARQUET_TABLES)}
    other = sorted(p.name for p in directory.iterdir() if p.name not in ours)
    if other:
        raise UsageError(f"--parquet {directory}: the directory holds other files "
                         f"({', '.join(other[:3])}{', ...' if len(other) > 3 else ''}); "
                         "choose an empty or new directory")


def game_bucket(game_id: str, buckets: int) -> int:
    """The events bucket of a game: the first 8 hex digits of the MD5 of its id, modulo
    ``buckets`` (stable across versions and engines)."""
    return int(hashlib.md5(game_id.encode("utf-8")).hexdigest()[:8], 16) % buckets


def bucket_sql(buckets: int, column: str = "game_id") -> str:
    """:func:`game_bucket` as a DuckDB expression."""
    return f"(('0x' || md5({column})[1:8])::UBIGINT % {int(buckets)})"


def _events_schema(fields, buckets: int, nullable: dict[str, bool]) -> pa.Schema:
    """The events files' schema: the events table's columns (required where ``nullable``
    says no NULL is stored, as DuckDB's own ``COPY`` marks them) and the layout metadata."""
    return pa.schema([f.with_nullable(nullable[f.name]) for f in fields
                      if f.name not in ("_players", "_bucket")],
                     metadata={LAYOUT_KEY: LAYOUT_WHOLE_GAMES, BUCKETS_KEY: str(buckets).encode()})


class _Files:
    """The events files being written: one Parquet writer per (player count, bucket) key
    (``players << 32 | bucket``), rows buffered per file into row groups of
    :data:`ROW_GROUP_ROWS`. The row groups are encoded and written by :data:`WRITERS`
    threads beside the one reading (each file always by the same thread, so in order);
    use as a context manager: leaving it waits for them and closes every file."""

    def __init__(self, events_dir: Path, schema: pa.Schema):
        self.dir, self.schema = events_dir, schema
        self.writers: dict[int, pq.ParquetWriter] = {}
        self.buffered: dict[int, list[pa.RecordBatch]] = {}
        self.rows: dict[int, int] = {}          # rows buffered per key
        # the event text is nearly always unique: no dictionary tried for it
        self.dictionary = [n for n in schema.names if n != "event"]
        self.statistics = [n for n in schema.names if n in STATISTICS]
        self.threads = [ThreadPoolExecutor(1) for _ in range(WRITERS)]
        self.pending: deque[Future] = deque()   # bounds the row groups waiting in memory

    def __enter__(self) -> "_Files":
        return self

    def __exit__(self, kind, *exc) -> None:
        for t in self.threads:
            t.shutdown(wait=True)
        for w in self.writers.values():
            try:
                w.close()
            except Exception:
                if kind is None:            # else the first failure is the one to report
                    raise

    def add(self, key: int, rows: pa.RecordBatch) -> None:
        """Append ``rows`` (in order) to the file of ``key``."""
        self.buffered.setdefault(key, []).append(rows)
        self.rows[key] = self.rows.get(key, 0) + rows.num_rows
        if self.rows[key] >= ROW_GROUP_ROWS:
            self._flush(key, final=False)

    def close(self, key: int) -> None:
        """Write what ``key`` still has and close its file."""
        self._flush(key, final=True)
        self._submit(key, self.writers.pop(key).close)

    def close_all(self) -> None:
        """Write what every key still has, close every file and wait for the writes."""
        for key in sorted({*self.writers, *self.buffered}):
            self.close(key)
        while self.pending:
            self.pending.popleft().result()

    def _submit(self, key: int, work, *args) -> None:
        self.pending.append(self.threads[key % len(self.threads)].submit(work, *args))
        while len(self.pending) > 2 * len(self.threads):
            self.pending.popleft().result()     # raises what the write raised

    def _flush(self, key: int, final: bool) -> None:
        table = pa.Table.from_batches(self.buffered.pop(key, []), schema=self.schema)
        self.rows.pop(key, None)
        whole = table.num_rows if final else table.num_rows - table.num_rows % ROW_GROUP_ROWS
        if key not in self.writers:
            path = self.dir / f"n_players={key >> 32}" / f"data_{key & 0xFFFFFFFF}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[key] = pq.ParquetWriter(path, self.schema, use_dictionary=self.dictionary,
                                                 write_statistics=self.statistics,
                                                 write_batch_size=WRITE_BATCH)
        if whole:
            self._submit(key, _write_rows, self.writers[key], table.slice(0, whole))
        if whole < table.num_rows:
            self.buffered[key] = table.slice(whole).to_batches()
            self.rows[key] = table.num_rows - whole


def _write_rows(writer: pq.ParquetWriter, table: pa.Table) -> None:
    """Write ``table`` as row groups of :data:`ROW_GROUP_ROWS`, as it is: its chunks are a
    file's part of each batch read (a few dozen per row group; joining them first would copy
    the event text a second time)."""
    writer.write_table(table, ROW_GROUP_ROWS)


def _write_events(con, events_dir: Path, total: int) -> None:
    """The events, one file per (player count, bucket), each game whole and in seq order,
    games by their numbers. Read as stored when the store holds them in that order
    (:func:`~seasalt_log.store.stored_order.in_game_order`), else sorted by DuckDB."""
    buckets = max(1, -(-total // BUCKET_EVENTS))
    if in_game_order(con):
        _write_stored(con, events_dir, buckets)
    else:
        _write_sorted(con, events_dir, buckets)


def _write_stored(con, events_dir: Path, buckets: int) -> None:
    """:func:`_write_events` from one scan of the events as stored (whole games in order):
    each batch's rows put in file order by one stable ``take`` (a counting sort of their
    files' indices, looked up by game number), then one slice per file. At most
    :data:`OPEN_FILES` files are open at once: more keys take one scan per group."""
    keyed = con.execute(
        f"SELECT c.game, (g.n_players::BIGINT << 32) | {bucket_sql(buckets, 'g.game_id')} "
        "FROM games g JOIN (SELECT game_id, min(game) AS game FROM commits GROUP BY game_id) c "
        "USING (game_id)").fetchall()
    keys = sorted({key for _, key in keyed})
    index = {key: i for i, key in enumerate(keys)}
    lookup = [len(keys)] * (max((n for n, _ in keyed), default=0) + 1)    # none: past the end
    for number, key in keyed:
        lookup[number] = index[key]
    by_number = pa.array(lookup, pa.int32())
    nullable = _nullable(con, "events")
    for first in range(0, len(keys), OPEN_FILES):
        reader = stored_batches(con, "*", 131_072)
        try:
            with _Files(events_dir, _events_schema(reader.schema, buckets, nullable)) as files:
                for batch in reader:
                    batch = pa.RecordBatch.from_arrays(batch.columns, schema=files.schema)
                    files_of = pc.take(by_number, batch.column("game"))
                    order = pc.sort_indices(files_of)       # stable: each game keeps its order
                    runs = pc.run_end_encode(pc.take(files_of, order))
                    # (by the system allocator: its rows are freed by the writer threads, and
                    # Arrow's default allocator hands such pages back to the OS, to fault in
                    # again: some 0.3 s of system time per 4.7 million events)
                    rows = pc.take(batch, order, memory_pool=pa.system_memory_pool())
                    start = 0
                    for i, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist()):
                        if first <= i < min(first + OPEN_FILES, len(keys)):
                            files.add(keys[i], rows.slice(start, end - start))
                        start = end
                files.close_all()
        finally:
            reader.close()


def _write_sorted(con, events_dir: Path, buckets: int) -> None:
    """:func:`_write_events` from one query sorted by player count, bucket, game and seq."""
    nullable = _nullable(con, "events")
    reader = con.sql(      # the bucket is worked out once per game, not once per event
        "SELECT e.*, g._players, g._bucket FROM events e JOIN "
        f"(SELECT game_id, n_players AS _players, {bucket_sql(buckets)} AS _bucket FROM games) g "
        "USING (game_id) ORDER BY _players, _bucket, e.game, e.seq").to_arrow_reader(100_000)
    schema, key = _events_schema(reader.schema, buckets, nullable), None
    try:
        with _Files(events_dir, schema) as files:
            for batch in reader:
                keys = pc.add(pc.multiply(pc.cast(batch.column("_players"), pa.int64()), 1 << 32),
                              pc.cast(batch.column("_bucket"), pa.int64()))
                for k in pc.unique(keys).to_pylist():       # in order: the rows are sorted
                    if k != key and key is not None:
                        files.close(key)
                    key = k
                    part = batch.filter(pc.equal(keys, k)).select(schema.names)
                    files.add(k, pa.RecordBatch.from_arrays(part.columns, schema=schema))
            files.close_all()
    finally:
        reader.close()


def _read_model_query(con, table: str, numbers: dict[str, int]) -> str:
    """The query that gives a table's rows in the order its file holds them: a read model's
    by game number (:data:`READ_MODELS`), ``cards`` and ``commits`` by their key. A read
    model stored in that order (as an import writes it) is read as it lies, with no sort."""
    key = READ_MODELS.get(table)
    if key is None:
        return f"SELECT * FROM {table} ORDER BY {', '.join(_ORDER[table])}"
    if _in_number_order(con, table, key[1:], numbers):
        return f"SELECT * FROM {table}"
    return (f"SELECT t.* FROM {table} t LEFT JOIN (SELECT game_id, min(game) AS _number FROM "
            f"commits GROUP BY game_id) n USING (game_id) ORDER BY n._number NULLS LAST, "
            + ", ".join(f"t.{c}" for c in key))


def _in_number_order(con, table: str, rest: tuple[str, ...], numbers: dict[str, int]) -> bool:
    """Whether a plain scan of the read model ``table`` (DuckDB keeps the stored order while
    ``preserve_insertion_order`` is on) gives its rows strictly rising by game number (in
    ``numbers``), then by the rest of its key (``rest``): one pass over the key columns."""
    if not con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]:
        return False
    reader = con.sql(f"SELECT {', '.join(('game_id', *rest))} FROM {table}").to_arrow_reader(
        ORDER_CHECK_ROWS)
    last: tuple | None = None       # the previous batch's last row: (number, game id, *rest)
    try:
        for batch in reader:
            n = batch.num_rows
            if n == 0:
                continue
            ids = batch.column(0)
            runs = pc.run_end_encode(ids)
            games = runs.values.to_pylist()
            if not all(g in numbers for g in games):
                return False        # a game without a number
            order = [numbers[g] for g in games]
            if any(b <= a for a, b in zip(order, order[1:])):
                return False        # games out of order, or one split
            if not rest and len(games) != n:
                return False        # (the key is the game alone: one row each)
            if rest and n > 1:      # within a game, the rest of the key rising
                now, before = ([batch.column(i).slice(s, n - 1) for i in range(1, len(rest) + 1)]
                               for s in (1, 0))
                rising = pc.greater(now[-1], before[-1])
                for a, b in zip(now[-2::-1], before[-2::-1]):
                    rising = pc.or_(pc.greater(a, b), pc.and_(pc.equal(a, b), rising))
                other_game = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
                if not pc.all(pc.fill_null(pc.or_(other_game, rising), False)).as_py():
                    return False
            first, end = ((order[k], games[k], *(batch.column(c)[i].as_py()
                                                 for c in range(1, len(rest) + 1)))
                          for k, i in ((0, 0), (-1, n - 1)))
            if None in first or None in end:
                return False
            if last is not None and (first <= last or first[0] == last[0] and first[1] != last[1]):
                return False        # (across batches: the same game going on, or a later one)
            last = end
    finally:
        reader.close()
    return True


def _file_columns(con, table: str) -> dict[str, tuple[bool, bool]]:
    """``table``'s columns -> (nullable, JSON) in its file, as DuckDB's own ``COPY`` writes
    them: a column is required (not null) when DuckDB's statistics of the table record no
    NULL in it (they can record NULLs of deleted rows), and a JSON column keeps its JSON
    logical type (DuckDB hands it to Arrow as plain text). For a table holding rows: an empty
    table has no statistics to read (its file is DuckDB's own ``COPY``)."""
    columns = con.execute("SELECT column_name, data_type FROM duckdb_columns() WHERE "
                          "database_name = current_database() AND schema_name = current_schema() "
                          "AND table_name = ? ORDER BY column_index", [table]).fetchall()
    stats = con.execute(f"SELECT {', '.join(f'stats({sql_identifier(n)})' for n, _ in columns)} "
                        f"FROM {table} LIMIT 1").fetchall()
    return {n: (bool(stats) and stats[0][i]["has_null"], kind == "JSON")
            for i, (n, kind) in enumerate(columns)}


def _nullable(con, table: str) -> dict[str, bool]:
    """``table``'s columns -> whether its file marks them nullable (:func:`_file_columns`)."""
    return {n: nullable for n, (nullable, _) in _file_columns(con, table).items()}


class _Stopped(Exception):
    """A table's write given up: the export failed elsewhere."""


def _write_file(con, table: str, query: str, path: Path, key: tuple[str, ...],
                stop: threading.Event | None = None) -> None:
    """Write the rows of ``query`` (``table``'s, in its file's order) to ``path`` with
    pyarrow's writer (some 40 % less CPU than DuckDB's ``COPY``): row groups of
    :data:`TABLE_ROWS`, min/max statistics only for the columns of ``key``, and no Arrow
    schema stored, so that the types read back (by DuckDB or pyarrow) are those of DuckDB's
    own ``COPY ... (FORMAT parquet)``. Each batch is encoded in a thread while DuckDB reads
    the next. ``stop`` set: :class:`_Stopped` before the next batch."""
    columns = _file_columns(con, table)
    reader = con.sql(query).to_arrow_reader(TABLE_ROWS)
    writer = None
    pending: deque[Future] = deque()
    try:
        schema = pa.schema([f.with_type(pa.json_(pa.string()) if columns[f.name][1] else f.type)
                            .with_nullable(columns[f.name][0]) for f in reader.schema])
        writer = pq.ParquetWriter(path, schema, store_schema=False, write_statistics=list(key))
        with ThreadPoolExecutor(1) as thread:
            for batch in reader:
                if stop is not None and stop.is_set():
                    raise _Stopped(table)
                rows = pa.RecordBatch.from_arrays(
                    [c if f.type == c.type else pa.ExtensionArray.from_storage(f.type, c)
                     for f, c in zip(schema, batch.columns)], schema=schema)
                pending.append(thread.submit(writer.write_batch, rows, TABLE_ROWS))
                if len(pending) > 1:
                    pending.popleft().result()      # raises what the write raised
            while pending:
                pending.popleft().result()
    except BaseException:
        if writer is not None:
            with suppress(Exception):       # the first failure is the one to report
                writer.close()
        raise
    else:
        writer.close()
    finally:
        reader.close()


def _write_table(con, table: str, query: str, path: Path, key: tuple[str, ...],
                 stop: threading.Event | None = None) -> int:
    """:func:`_write_file` of ``table``'s rows (by ``query``); an empty table's file is
    DuckDB's own ``COPY`` (no rows to encode, and no statistics to read the types from).
    The rows written."""
    rows: int = one_value(con, f"SELECT count(*) FROM {table}")
    if rows:
        _write_file(con, table, query, path, key, stop)
    else:
        con.execute(f"COPY {table} TO {sql_literal(path)} (FORMAT parquet)")
    return rows


def export_parquet(store, directory: str | Path) -> ParquetExport:
    """Write the store's events (partitioned by player count, then bucketed by game id so
    that every game lies whole in one file: see the module docstring), its commits and every read
    model as Parquet files under ``directory`` (created if missing; an earlier export there is
    replaced). Reads one consistent snapshot of the store.

    The files are written into a temporary directory beside ``directory`` that replaces it
    once complete (:func:`~seasalt_log.outputs.atomic_dir`): a failure leaves ``directory``
    as it was, and a directory that is, or holds, the store is refused."""
    t0 = time.perf_counter()
    directory = Path(directory)
    with atomic_dir(directory, [store.path], what="--parquet", check=_check_replaceable) as tmp:
        rows = _copy_tables(store.con, tmp, directory)
    files = sorted(str(p.relative_to(directory)) for p in directory.rglob("*.parquet"))
    return ParquetExport(directory=str(directory), rows=rows, files=files,
                         seconds=time.perf_counter() - t0)


def _copy_tables(con, directory: Path, target: Path) -> dict[str, int]:
    """Write every exported table into ``directory`` from one snapshot of the store; rows per
    table. The events' files are written here while a thread writes the other tables' on a
    cursor of its own (DuckDB's reads and the Parquet encoding of both then keep the two cores
    busy: 8.1 s against 9.2 s for 100,000 games), its transaction seeing the same snapshot
    (checked: else they are written after the events, as one)."""
    rows: dict[str, int] = {}
    con.execute("SET enable_progress_bar = false")
    cursor = con.cursor()
    stop = threading.Event()
    side: Future | None = None
    con.execute("BEGIN")
    cursor.execute("BEGIN")
    try:
        with ThreadPoolExecutor(1) as thread:
            try:
                if _snapshot(con) == _snapshot(cursor):
                    side = thread.submit(_write_tables, cursor, directory, stop)
                rows["events"] = one_value(con, "SELECT count(*) FROM events")
                if rows["events"]:
                    _write_events(con, directory / "events", rows["events"])
                else:       # still an archive, of no events (``seasalt archive`` says so)
                    (directory / "events").mkdir()
                rows.update(side.result() if side is not None
                            else _write_tables(con, directory, stop))
            finally:
                stop.set()          # (a failure here: the thread stops at its next batch)
        con.execute("COMMIT")
    except Exception as exc:
        con.execute("ROLLBACK")
        if isinstance(exc, SeasaltError):
            raise
        if interrupted(exc):
            raise KeyboardInterrupt from None
        from .output import one_line
        message = one_line(str(exc)).replace(str(directory), str(target))   # not the temporary's name
        raise SeasaltError(f"cannot export to {target}: {message}") from None
    finally:
        cursor.close()
    return rows


def _snapshot(con) -> tuple:
    """What tells two transactions' snapshots of a store apart: its writes and events."""
    return con.execute("SELECT (SELECT count(*) FROM commits), (SELECT count(*) FROM events)"
                       ).fetchall()[0]


def _write_tables(con, directory: Path, stop: threading.Event) -> dict[str, int]:
    """Every exported table but the events, each in its file (:func:`_write_table`); rows
    per table. ``stop`` set: :class:`_Stopped` at the next batch."""
    numbers = dict(con.execute("SELECT game_id, min(game) FROM commits GROUP BY game_id"
                               ).fetchall())
    return {t: _write_table(con, t, _read_model_query(con, t, numbers),
                            directory / f"{t}.parquet", _ORDER[t], stop)
            for t in PARQUET_TABLES}
