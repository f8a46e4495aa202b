"""Arrow record batches: the fast way to move many Python rows into DuckDB.

Rows (tuples in a store table's column order, card lists as Python lists) become one Arrow
array per column in the store's own types, and DuckDB reads those without a conversion per
value. Building them costs about a third of DuckDB's appender for the same rows, and a
worker process writes them as Arrow IPC files that the store's process maps and inserts
(the parallel import and rebuild), where Parquet files cost their encoding on one side and
their decoding on the other.
"""

from __future__ import annotations

import functools
import struct
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager, Sequence, TypeAlias

import pyarrow as pa
import pyarrow.ipc as ipc
try:    # (pyarrow.compute makes a function of every kernel as it is imported: 27 ms more)
    from pyarrow._compute import SplitPatternOptions, call_function
except ImportError:     # a pyarrow that moved its private module: the public names
    from pyarrow.compute import SplitPatternOptions, call_function

from ..log_lines import Lines
from ..process_settings import SharedSetting
from .event_table import Coded

from .projections import SCHEMA, TABLES
from .schema import COMMIT_COLUMNS, EVENT_COLUMNS

if TYPE_CHECKING:       # a worker process writes files and never loads DuckDB
    import duckdb

#: rows per INSERT at most: DuckDB's default row group (the store's own, since 2026-12, are
#: 16,384 rows: an INSERT of this many writes whole groups of them as it runs)
ROW_GROUP_ROWS = 122_880
#: rows buffered before they become record batches: inserted, no table's INSERT is then
#: larger than :data:`ROW_GROUP_ROWS` (see StagedRows)
FLUSH_ROWS = ROW_GROUP_ROWS


def use_system_allocation() -> None:
    """Arrow's new buffers from the C library's allocator from now on (a worker process's
    setting: see :func:`system_allocation`)."""
    pa.set_memory_pool(pa.system_memory_pool())


def system_allocation() -> ContextManager[None]:
    """Arrow's new buffers from the C library's allocator for a while (pyarrow's default
    pool then put back; each buffer is freed by the pool that made it). An import makes and
    frees a few hundred megabytes of them a second: the default allocator hands the freed
    pages back to the system at once, and the next ones fault in again, which cost the
    checking thread about 3 % of its time in system calls (bench/RESULTS.md). Imports may
    overlap (see :mod:`..process_settings`)."""
    return _MEMORY_POOL.held(lambda previous: pa.system_memory_pool())


_MEMORY_POOL = SharedSetting(pa.default_memory_pool, pa.set_memory_pool)

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


#: each table's rows as one Arrow struct: pyarrow turns a list of tuples into a struct array
#: in one call (no Python loop cutting the rows into columns)
_STRUCTS: dict[str, pa.StructType] = {t: pa.struct(list(s)) for t, s in SCHEMAS.items()}


def record_batch(table: str, rows: list[tuple]) -> pa.RecordBatch:
    """``rows`` of ``table`` (in its column order) as one Arrow record batch."""
    return pa.RecordBatch.from_struct_array(pa.array(rows, type=_STRUCTS[table]))


def column_batch(table: str, columns: Sequence[Sequence[Any]]) -> pa.RecordBatch:
    """``columns`` of ``table`` (one list per column, in its column order) as one Arrow
    record batch. A string column may be given as UTF-8 bytes (the events' JSON as it was
    encoded): its array is then pyarrow's binary one of them, seen as strings (no decoding);
    an integer column without NULLs is packed into a buffer (by :mod:`struct`: a quarter of
    the cost of pyarrow's conversion of Python ints), or is given as a C array (its buffer
    is taken as it is); a :class:`~.event_table.Coded` column's values are taken by Arrow."""
    schema = SCHEMAS[table]
    return pa.RecordBatch.from_arrays([_array(col, f.type) for col, f in zip(columns, schema)],
                                      schema=schema)


#: the C type code (of :mod:`array` and :mod:`struct`) of each Arrow integer type of the
#: same width
_C_INTS = {kind: code for kind, code in ((pa.int8(), "b"), (pa.int16(), "h"), (pa.int32(), "i"),
                                         (pa.int64(), "q"))
           if array(code).itemsize * 8 == kind.bit_width}


def repeated(value: str, n: int) -> pa.Array:
    """``n`` copies of the string ``value`` (e.g. a game's id on each of its events) as one
    Arrow array, built from two buffers: the value's bytes repeated and a slice of the
    offsets kept for its length (a third of the cost of pyarrow's conversion of a list of
    them; :meth:`RowSink.add_columns` takes it as a column)."""
    data = value.encode()
    offsets = _multiples(len(data), n)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(data * n)])


def texts_array(texts: Sequence[bytes]) -> pa.Array:
    """JSON texts (UTF-8, unchecked as in :func:`column_batch`) as an Arrow string array;
    the :class:`Lines` of a log as a slice of the array of all its lines, cut out of its
    bytes once (by Arrow: no Python object per line)."""
    if type(texts) is not Lines:
        return pa.array(texts, type=pa.binary()).view(pa.string())
    log = texts.log
    if log.lines is None:
        data = log.data
        whole = pa.Array.from_buffers(pa.binary(), 1, [None, pa.py_buffer(array("i", (0, len(data)))),
                                                       pa.py_buffer(data)])
        # the lines and an empty piece after the last newline
        log.lines = call_function("split_pattern", [whole], _NEWLINE).values.view(pa.string())
    return log.lines.slice(texts.first, len(texts))


#: split_pattern's options: at each newline (imported as above, not from pyarrow.compute)
_NEWLINE = SplitPatternOptions(b"\n")


#: per step, 0, step, 2 * step, ... as C ints (Arrow's string offsets), as far as needed
_MULTIPLES: dict[int, array] = {}


def _multiples(step: int, n: int) -> array:
    """0, ``step``, ..., ``n * step``: a slice (a copy of memory) of those kept for ``step``."""
    have = _MULTIPLES.get(step)
    if have is None or len(have) <= n:
        have = _MULTIPLES[step] = array("i", map(step.__mul__, range(2 * n + 1)))
    return have[:n + 1]


class _Parts(list):
    """A column buffered as the parts :meth:`RowSink.add_columns` was given (Arrow arrays
    or :class:`Lines`, C arrays or :class:`Coded` columns: each time the same kind), joined
    once when it is passed on (a C array extended part by part would be copied as it
    grows)."""

    def extend(self, more: Any) -> None:
        if type(more) is not type(self[0]) and _kind(more) is not _kind(self[0]):
            raise ValueError(f"a column given as {type(self[0]).__name__} takes no "
                             f"{type(more).__name__}")
        self.append(more)


def _kind(part: Any) -> type:
    """The kind of column part: :class:`Lines` are taken as the Arrow array they make."""
    # (type(...) is Lines, not isinstance: Lines is a Sequence, whose ABC check is a call)
    return pa.Array if type(part) is Lines or isinstance(part, pa.Array) else type(part)


def _own(column: Sequence | array | pa.Array | Coded | Lines) -> list | _Parts:
    """A column given to :meth:`RowSink.add_columns`, to extend (a list's copy)."""
    if isinstance(column, (pa.Array, array, Coded, Lines)):
        return _Parts([column])
    return list(column)


def _joined(parts: _Parts, kind: pa.DataType) -> pa.Array:
    """A column's parts as one Arrow array of the type ``kind``: Arrow arrays and
    :class:`Lines` concatenated (the lines of games that follow each other in their log as
    one slice of its lines: no copy), C arrays of its width and coded values by their
    buffers joined (each coded value then taken in C), others converted."""
    first = parts[0]
    if _kind(first) is pa.Array:
        arrays = [texts_array(p) if type(p) is Lines else p for p in _merged_lines(parts)]
        return arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays)
    if type(first) is Coded and all(p.values == first.values for p in parts):
        codes = b"".join(p.codes for p in parts)
        indices = pa.Array.from_buffers(pa.uint8(), len(codes), [None, pa.py_buffer(codes)])
        return call_function("take", [_dictionary(first.values, kind), indices])
    if type(first) is array and first.typecode == _C_INTS.get(kind):
        data = b"".join(parts)
        return pa.Array.from_buffers(kind, len(data) // first.itemsize,
                                     [None, pa.py_buffer(data)])
    return _array([v for p in parts for v in p], kind)


def _merged_lines(parts: Sequence[Any]) -> list[Any]:
    """``parts`` with each run of :class:`Lines` that follow each other in one log made
    one."""
    merged: list[Any] = []
    for part in parts:
        last = merged[-1] if merged else None
        if (type(part) is Lines and type(last) is Lines and last.log is part.log
                and last.first + last.n == part.first):
            merged[-1] = Lines(part.log, last.first, last.n + part.n, last.start, part.stop)
        else:
            merged.append(part)
    return merged


@functools.cache
def _dictionary(values: tuple, kind: pa.DataType) -> pa.Array:
    return pa.array(values, type=kind)


#: the binary type of each string type: a string column is converted as binary and seen as
#: strings (the same buffers), 12 % less than pyarrow's conversion to strings (str values are
#: encoded as UTF-8 either way; bytes values are taken as they are, their UTF-8 unchecked)
_AS_BINARY = {pa.string(): pa.binary(), pa.list_(pa.string()): pa.list_(pa.binary())}


def _array(values: Sequence | array, kind: pa.DataType) -> pa.Array:
    if type(values) is _Parts:
        return _joined(values, kind)
    code = _C_INTS.get(kind)
    if type(values) is array and values.typecode == code:     # a C array of the width
        return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])
    binary = _AS_BINARY.get(kind)
    if binary is not None:
        return pa.array(values, type=binary).view(kind)
    if code is not None:
        ints = _packed(values, code)
        if ints is not None:
            return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(ints)])
    return pa.array(values, type=kind)


def _packed(values: Sequence, code: str) -> bytes | None:
    """``values`` as C ints of the type ``code`` (a third of the cost of pyarrow's
    conversion; 8-bit ones of a list by ``bytes``, a third less again); None if one is None
    (NULL), out of range or no int."""
    try:
        if code == "b" and type(values) in (list, tuple):  # (bytes() of others: their buffer)
            ints = bytes(values)                # 0..255: those past 127 are out of range
            return ints if ints.isascii() else None
        return struct.pack(f"{len(values)}{code}", *values)
    except (struct.error, TypeError, ValueError, OverflowError):
        return None


def insert(con, table: str, rows: pa.Table | pa.RecordBatch) -> None:
    """Insert Arrow rows into the store's ``table``, by column name."""
    # DuckDB finds the local variable by its name (a replacement scan): half the cost of
    # registering it, and unlike register() it works while a result is still unfetched
    _arrow_rows = rows  # noqa: F841
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _arrow_rows")


#: a table's rows as a :class:`RowSink` gives them: the path of its Arrow IPC file, or (a sink
#: kept in memory) the Arrow table itself
Rows: TypeAlias = str | pa.Table


def read_file(rows: str | Path | pa.Table) -> pa.Table:
    """The rows of an Arrow IPC file written by a :class:`RowSink` (memory-mapped); rows
    a sink kept in memory (:class:`RowSink` without a directory) are given as they are."""
    if isinstance(rows, pa.Table):
        return rows
    with pa.memory_map(str(rows)) as source:
        return ipc.open_file(source).read_all()


class RowSink:
    """Buffers rows of some of the store's tables and passes them on as Arrow record
    batches, :data:`FLUSH_ROWS` at a time: inserted into the tables of the same name on
    ``con``; with ``directory``, written to one Arrow IPC file per table (named
    ``<table>-<tag>.arrow``; :meth:`close` gives them) for another process to load; with
    neither, kept in memory (:meth:`close` gives each table's rows as one Arrow table) for
    this process to load, with no file written and read back."""

    def __init__(self, tables: Sequence[str] = tuple(TABLES), *, con=None,
                 directory: str | Path | None = None, tag: str = ""):
        if con is not None and directory is not None:
            raise ValueError("a RowSink takes a connection or a directory, not both")
        self.con, self.directory, self.tag = con, directory, tag
        self.tables = tuple(tables)
        self.buf: dict[str, list[tuple]] = {t: [] for t in self.tables}
        #: tables given as columns (:meth:`add_columns`): one list per column
        self.cols: dict[str, list[list | _Parts]] = {}
        self.counts = {t: 0 for t in self.tables}
        self.pending = 0
        self._writers: dict[str, ipc.RecordBatchFileWriter] = {}
        self._files: dict[str, Rows] = {}
        self._kept: dict[str, list[pa.RecordBatch]] = {}     # in memory: each table's batches

    def add(self, rows: dict[str, list[tuple]]) -> None:
        """Buffer rows (table name -> rows in the table's column order)."""
        for t, r in rows.items():
            if r:
                self.buf[t].extend(r)
                self.pending += len(r)
        if self.pending >= FLUSH_ROWS:
            self.flush()

    def add_columns(self, table: str, columns: Sequence[list | array | pa.Array | Coded]) -> None:
        """Buffer rows of ``table`` given as columns (one list per column, in its column
        order; see :func:`column_batch`; an integer column may also be a C array of its
        width, any column an Arrow array of its type (:func:`repeated`) or a
        :class:`~.event_table.Coded` one, then each time; a string column also
        :class:`Lines` of JSON texts, or Arrow arrays and those in turn). A table takes
        either rows or columns."""
        have = self.cols.get(table)
        if have is None:
            self.cols[table] = [_own(c) for c in columns]
        else:
            for buf, col in zip(have, columns):
                buf.extend(col)
        self.pending += len(columns[0])
        if self.pending >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Pass the buffered rows on."""
        cols, self.cols = self.cols, {}
        batches = [(t, column_batch(t, c)) for t, c in cols.items() if c[0]]
        # rows as columns: pyarrow converts a column at a time faster than a struct of rows
        batches += [(t, column_batch(t, list(zip(*rows))))
                    for t, rows in self.buf.items() if rows]
        for t, batch in batches:
            self.buf[t] = []
            self.counts[t] += batch.num_rows
            if self.con is not None:
                insert(self.con, t, batch)
                continue
            if self.directory is None:
                self._kept.setdefault(t, []).append(batch)
                continue
            writer = self._writers.get(t)
            if writer is None:
                path = str(Path(self.directory) / f"{t}-{self.tag}.arrow")
                writer = self._writers[t] = ipc.new_file(path, batch.schema)
                self._files[t] = path
            writer.write_batch(batch)
        self.pending = 0

    def close(self) -> dict[str, Rows]:
        """Flush, close the files, and give them (table -> path; tables with no rows have
        none); kept in memory, table -> its rows as one Arrow table."""
        self.flush()
        for w in self._writers.values():
            w.close()
        self._writers = {}
        if self.con is None and self.directory is None:
            kept, self._kept = self._kept, {}
            return {t: pa.Table.from_batches(b) for t, b in kept.items()}
        return self._files


def renumbered(rows: pa.Table, base: int, skip: set[str]) -> pa.Table:
    """``rows`` without the games ``skip`` (by ``game_id``), their ``game`` column (if
    any) plus ``base``."""
    import pyarrow.compute as pc        # the importer's side only: a worker starts without it
    if skip:
        rows = rows.filter(pc.invert(pc.is_in(rows["game_id"], value_set=pa.array(sorted(skip)))))
    if "game" in rows.column_names:
        i = rows.column_names.index("game")
        rows = rows.set_column(i, "game", pc.add(rows["game"], pa.scalar(base, pa.int32())))
    return rows


class StagedRows:
    """Arrow rows for the store's tables, gathered into INSERTs of up to
    :data:`ROW_GROUP_ROWS` rows each (DuckDB's default row group).

    An INSERT costs about a millisecond whatever its size, so the small tables of many
    chunks go in together: :meth:`flush` with ``every`` False (a chunk loaded) inserts only
    the tables with :data:`EARLY_ROWS` staged, the others wait for the transaction's commit
    (``every``; a 1,000-game import: 23 to 33 INSERTs instead of one per table and chunk,
    72 to 120). Larger INSERTs would not help: DuckDB writes the whole row groups of an
    INSERT as it runs and keeps the part-filled last one, which a store keeps for good
    (measured: 48 bytes/event instead of 38.5)."""

    #: rows a table has staged for :meth:`flush` to insert them when not asked for
    #: ``every`` table: the large tables (events, turns) go in as each chunk is loaded, so
    #: DuckDB stores them while the worker processes check the next chunks
    EARLY_ROWS = 8192

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.parts: dict[str, list[pa.Table]] = {}
        self.rows: dict[str, int] = {}

    def add(self, table: str, rows: pa.Table) -> None:
        """Stage rows of ``table`` after those staged before; insert those first when these
        would take the table's next INSERT past one row group."""
        if not rows.num_rows:
            return
        if self.rows.get(table, 0) + rows.num_rows > ROW_GROUP_ROWS:
            self._insert(table)
        self.parts.setdefault(table, []).append(rows)
        self.rows[table] = self.rows.get(table, 0) + rows.num_rows

    def flush(self, every: bool = True) -> None:
        """Insert every staged row; unless ``every``, only those of the tables with at least
        :data:`EARLY_ROWS` staged."""
        for table in list(self.parts):
            if every or self.rows[table] >= self.EARLY_ROWS:
                self._insert(table)

    def discard(self) -> None:
        """Forget the staged rows (their transaction is rolled back)."""
        self.parts, self.rows = {}, {}

    def _insert(self, table: str) -> None:
        parts = self.parts.pop(table, None)
        self.rows[table] = 0
        if parts:
            insert(self.con, table, parts[0] if len(parts) == 1 else pa.concat_tables(parts))
