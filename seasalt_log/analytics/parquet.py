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
file the rows are ordered by ``game_id, seq``, and each file's Parquet metadata says so
(:data:`LAYOUT_KEY` = :data:`LAYOUT_WHOLE_GAMES`, and :data:`BUCKETS_KEY` the number of
buckets); files without it (exports of earlier
versions, whose games could be split across files) need a shuffle by game first.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..outputs import atomic_dir
from ..store.projections import CARDS, SCHEMA, TABLES
from ..store.literals import sql_literal

#: every name the export writes in DIR
PARQUET_TABLES: tuple[str, ...] = (*TABLES, CARDS.name, "commits")
#: about this many events per events file (the number of buckets follows from it)
BUCKET_EVENTS = 1_000_000
#: the Parquet key-value metadata that marks an events file holding whole games in order
LAYOUT_KEY = b"seasalt.layout"
LAYOUT_WHOLE_GAMES = b"whole-games"
#: ... and the number of buckets the export used
BUCKETS_KEY = b"seasalt.buckets"
_ORDER = {**{t.name: ", ".join(t.order) for t in (*SCHEMA, CARDS)}, "commits": "game_id, seq"}


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


def _write_events(con, events_dir: Path, total: int) -> None:
    """The events, one file per (player count, bucket), each game whole and in seq order."""
    buckets = max(1, -(-total // BUCKET_EVENTS))
    reader = con.sql(      # the bucket is worked out once per game, not once per event
        "SELECT e.*, g._players, g._bucket FROM events e JOIN "
        f"(SELECT game_id, n_players AS _players, {bucket_sql(buckets)} AS _bucket FROM games) g "
        "USING (game_id) ORDER BY _players, _bucket, e.game_id, e.seq").to_arrow_reader(100_000)
    schema = pa.schema([f for f in reader.schema if f.name not in ("_players", "_bucket")],
                       metadata={LAYOUT_KEY: LAYOUT_WHOLE_GAMES, BUCKETS_KEY: str(buckets).encode()})
    writer, key = None, None
    try:
        for batch in reader:
            keys = pc.add(pc.multiply(pc.cast(batch.column("_players"), pa.int64()), 1 << 32),
                          pc.cast(batch.column("_bucket"), pa.int64()))
            for k in pc.unique(keys).to_pylist():       # in order: the rows are sorted
                part = batch.filter(pc.equal(keys, k)).select(schema.names)
                if k != key:
                    if writer is not None:
                        writer.close()
                    path = events_dir / f"n_players={k >> 32}" / f"data_{k & 0xFFFFFFFF}.parquet"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    writer, key = pq.ParquetWriter(path, schema), k
                writer.write_batch(pa.RecordBatch.from_arrays(part.columns, schema=schema))
    finally:
        if writer is not None:
            writer.close()


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
    """COPY every exported table into ``directory`` in one snapshot; rows per table."""
    rows: dict[str, int] = {}
    con.execute("SET enable_progress_bar = false")
    con.execute("BEGIN")
    try:
        rows["events"] = con.execute("SELECT count(*) FROM events").fetchall()[0][0]
        events_dir = directory / "events"
        if rows["events"]:
            _write_events(con, events_dir, rows["events"])
        for t in PARQUET_TABLES:
            rows[t] = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            dest = sql_literal(directory / f"{t}.parquet")
            con.execute(f"COPY (SELECT * FROM {t} ORDER BY {_ORDER[t]}) TO {dest} (FORMAT parquet)")
        con.execute("COMMIT")
    except Exception as exc:
        con.execute("ROLLBACK")
        if isinstance(exc, SeasaltError):
            raise
        from .output import one_line
        message = one_line(str(exc)).replace(str(directory), str(target))   # not the temporary's name
        raise SeasaltError(f"cannot export to {target}: {message}") from None
    return rows
