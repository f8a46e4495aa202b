"""``seasalt export --parquet DIR``: the events table, the commits table (the hash chain's
record) and every read model as Parquet files.

Layout of ``DIR``::

    events/n_players=2/*.parquet     the events table plus n_players, Hive-partitioned
    events/n_players=3/*.parquet
    events/n_players=4/*.parquet
    games.parquet  seats.parquet  rounds.parquet  round_results.parquet
    turns.parquet  duos.parquet   cards.parquet  commits.parquet

Plain DuckDB reads them back, e.g.
``SELECT * FROM read_parquet('DIR/events/*/*.parquet', hive_partitioning = true)``.
"""

from __future__ import annotations

import time
from pathlib import Path

from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..outputs import atomic_dir
from ..store.projections import CARDS, SCHEMA, TABLES
from ..store.schema import sql_literal

#: every name the export writes in DIR
PARQUET_TABLES: tuple[str, ...] = (*TABLES, CARDS.name, "commits")
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


def export_parquet(store, directory: str | Path) -> ParquetExport:
    """Write the store's events (partitioned by player count), its commits and every read
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
        rows["events"] = con.execute("SELECT count(*) FROM events").fetchone()[0]
        events_dir = directory / "events"
        if rows["events"]:
            con.execute(
                "COPY (SELECT e.*, g.n_players FROM events e JOIN games g USING (game_id) "
                f"ORDER BY e.game_id, e.seq) TO {sql_literal(events_dir)} "
                "(FORMAT parquet, PARTITION_BY (n_players))")
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
