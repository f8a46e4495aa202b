"""Arrow record batches: the fast way to move many Python rows into DuckDB.

Rows (tuples in a store table's column order, card lists as Python lists) become one Arrow
array per column in the store's own types, and DuckDB reads those without a conversion per
value. Building them costs about a third of DuckDB's appender for the same rows, and a
worker process writes them as Arrow IPC files that the store's process maps and inserts
(the parallel import and rebuild), where Parquet files cost their encoding on one side and
their decoding on the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.ipc as ipc

from .projections import SCHEMA, TABLES
from .schema import COMMIT_COLUMNS, EVENT_COLUMNS

FLUSH_ROWS = 200_000           # rows buffered before they become a record batch

_SCALARS = {"VARCHAR": pa.string(), "JSON": pa.string(), "BIGINT": pa.int64(),
            "INTEGER": pa.int32(), "SMALLINT": pa.int16(), "TINYINT": pa.int8(),
            "BOOLEAN": pa.bool_()}


def arrow_type(sql_type: str) -> pa.DataType:
    """The Arrow type of a store column's SQL type (``NOT NULL`` ignored)."""
    base = sql_type.replace(" NOT NULL", "").strip()
    if base.endswith("[]"):
        return pa.list_(arrow_type(base[:-2]))
    return _SCALARS[base]


def _schema(columns: Sequence[tuple[str, str]]) -> pa.Schema:
    return pa.schema([(name, arrow_type(sql)) for name, sql in columns])


#: the Arrow schema of every table a sink can fill: the events, the commits and the read models
SCHEMAS: dict[str, pa.Schema] = {
    "events": _schema(EVENT_COLUMNS),
    "commits": _schema(COMMIT_COLUMNS),
    **{t.name: _schema([(c.name, c.type) for c in t.columns]) for t in SCHEMA},
}


def record_batch(table: str, rows: list[tuple]) -> pa.RecordBatch:
    """``rows`` of ``table`` (in its column order) as one Arrow record batch."""
    schema = SCHEMAS[table]
    columns = zip(*rows) if rows else [()] * len(schema)
    return pa.RecordBatch.from_arrays(
        [pa.array(col, type=field.type) for col, field in zip(columns, schema)], schema=schema)


def insert(con, table: str, rows: pa.Table | pa.RecordBatch, select: str = "*",
           where: str = "") -> None:
    """Insert Arrow rows into the store's ``table`` by column name (``select``: the
    select list, e.g. ``* REPLACE (...)``; ``where``: a WHERE clause)."""
    con.register("_arrow_rows", rows)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT {select} FROM _arrow_rows {where}")
    finally:
        con.unregister("_arrow_rows")


def read_file(path: str | Path) -> pa.Table:
    """The rows of an Arrow IPC file written by a :class:`RowSink` (memory-mapped)."""
    with pa.memory_map(str(path)) as source:
        return ipc.open_file(source).read_all()


class RowSink:
    """Buffers rows of some of the store's tables and passes them on as Arrow record
    batches, :data:`FLUSH_ROWS` at a time: inserted into the tables of the same name on
    ``con``, or, with ``directory``, written to one Arrow IPC file per table (named
    ``<table>-<tag>.arrow``; :meth:`close` gives them) for another process to load."""

    def __init__(self, tables: Sequence[str] = tuple(TABLES), *, con=None,
                 directory: str | Path | None = None, tag: str = ""):
        if (con is None) == (directory is None):
            raise ValueError("a RowSink needs a connection or a directory, not both")
        self.con, self.directory, self.tag = con, directory, tag
        self.tables = tuple(tables)
        self.buf: dict[str, list[tuple]] = {t: [] for t in self.tables}
        self.counts = {t: 0 for t in self.tables}
        self.pending = 0
        self._writers: dict[str, ipc.RecordBatchFileWriter] = {}
        self._files: dict[str, str] = {}

    def add(self, rows: dict[str, list[tuple]]) -> None:
        """Buffer rows (table name -> rows in the table's column order)."""
        for t, r in rows.items():
            if r:
                self.buf[t].extend(r)
                self.pending += len(r)
        if self.pending >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Pass the buffered rows on."""
        for t, rows in self.buf.items():
            if not rows:
                continue
            batch = record_batch(t, rows)
            self.buf[t] = []
            self.counts[t] += len(rows)
            if self.con is not None:
                insert(self.con, t, batch)
                continue
            writer = self._writers.get(t)
            if writer is None:
                path = str(Path(self.directory) / f"{t}-{self.tag}.arrow")
                writer = self._writers[t] = ipc.new_file(path, batch.schema)
                self._files[t] = path
            writer.write_batch(batch)
        self.pending = 0

    def close(self) -> dict[str, str]:
        """Flush, close the files, and give them (table -> path; tables with no rows have
        none)."""
        self.flush()
        for w in self._writers.values():
            w.close()
        self._writers = {}
        return self._files
