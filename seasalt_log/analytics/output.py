"""Query results and their formats: an aligned text table, CSV, JSON, JSON Lines (text),
and Parquet files. Every read command of the CLI prints its rows through this module.

Every file is written by this process: CSV and JSON text rendered by DuckDB over Arrow
(:mod:`.bulk_text`, the same bytes as the ``csv`` module and msgspec would write), Parquet by
a separate in-memory DuckDB connection that receives the rows (the user's query runs on a
connection that can touch no file at all).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import io
import unicodedata
import uuid
from pathlib import Path
from typing import IO, Any, Iterable, Sequence

import duckdb
import msgspec
from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..outputs import atomic_file, atomic_path
from ..store.literals import sql_identifier, sql_literal
from ..store.sandbox import one_line  # noqa: F401  (also this module's name for it)
from . import bulk_text

#: the text formats of ``--format``
FORMATS: tuple[str, ...] = ("table", "csv", "json", "jsonl")
#: rows a table shows unless told otherwise (as DuckDB's command line)
TABLE_LIMIT = 40
#: ``--out`` file suffix -> format
SUFFIXES: dict[str, str] = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "jsonl"}


class Result(Struct):
    """A query's result: column names, DuckDB type names, rows. ``arrow``, when set, is a
    ``pyarrow.Table`` holding the rows instead (``rows`` is then empty; see
    :func:`arrow_result`): CSV, JSON and Parquet are written from it directly."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]
    arrow: Any = None

    def __len__(self) -> int:
        return len(self.rows) if self.arrow is None else self.arrow.num_rows

    def dicts(self) -> list[dict[str, Any]]:
        """The rows as {column: value} (a repeated column name keeps its last value)."""
        return [dict(zip(self.columns, r)) for r in self.rows]


_PY_TYPES = ((bool, "BOOLEAN"), (int, "BIGINT"), (float, "DOUBLE"), (str, "VARCHAR"))


def _type_of(values: Iterable[Any]) -> str:
    for v in values:
        if v is None:
            continue
        for py, name in _PY_TYPES:
            if isinstance(v, py):
                return name
        return "JSON"
    return "VARCHAR"


def arrow_result(relation: duckdb.DuckDBPyRelation) -> Result:
    """The rows of a DuckDB ``relation`` as a :class:`Result`: as an Arrow table when CSV and
    JSON can be written from one column for column (:func:`.bulk_text.spellable`: every
    column a number, text, boolean or list of them), else as Python rows."""
    columns, types = list(relation.columns), [str(t) for t in relation.types]
    if bulk_text.spellable(types):
        return Result(columns=columns, types=types, rows=[], arrow=relation.to_arrow_table())
    return Result(columns=columns, types=types, rows=relation.fetchall())


def head_rows(result: Result, n: int | None = None) -> list[tuple]:
    """The first ``n`` rows (None: all) as Python tuples."""
    if result.arrow is None:
        return result.rows if n is None else result.rows[:n]
    table = result.arrow if n is None else result.arrow.slice(0, n)
    return list(zip(*(c.to_pylist() for c in table.columns))) if table.num_columns else \
        [()] * table.num_rows


def rows_result(columns: list[str], rows: list[tuple]) -> Result:
    """A :class:`Result` of rows built in Python: each column's type is read from its
    values (lists and structs become JSON columns, so JSON output keeps their structure)."""
    types = [_type_of(r[i] for r in rows) for i in range(len(columns))]
    json_cols = json_cells(types)
    if json_cols:
        rows = [tuple(_json.encode(v).decode() if i in json_cols and v is not None else v
                      for i, v in enumerate(r)) for r in rows]
    return Result(columns=list(columns), types=types, rows=rows)


def structs_result(items: Iterable[Struct], columns: list[str]) -> Result:
    """A :class:`Result` of ``columns`` (field names) of msgspec structs, as their JSON
    would hold them (nested structs and lists become JSON columns)."""
    rows = []
    for item in items:     # through JSON: a struct's msgspec.Raw fields become values too
        data = msgspec.json.decode(_json.encode(item))
        rows.append(tuple(data.get(c) for c in columns))
    return rows_result(columns, rows)


def reencoded_json(result: Result, column: str) -> Result:
    """An Arrow ``result`` whose JSON-text ``column`` is written as msgspec writes the value
    it decodes to (as :func:`structs_result` writes a ``msgspec.Raw`` field), typed JSON."""
    import pyarrow as pa
    i = result.columns.index(column)
    texts = result.arrow.column(i).to_pylist()
    again = pa.array([None if t is None else _json.encode(msgspec.json.decode(t)).decode()
                      for t in texts], type=pa.string())
    types = list(result.types)
    types[i] = "JSON"
    return Result(columns=result.columns, types=types, rows=[],
                  arrow=result.arrow.set_column(i, result.arrow.field(i).name, again))


def _enc_hook(value: Any) -> Any:
    return str(value)       # whatever msgspec has no JSON form for (intervals, ...)


_json = msgspec.json.Encoder(enc_hook=_enc_hook, decimal_format="number")


def json_cells(types: Sequence[str]) -> list[int]:
    """Indexes of the JSON-typed columns (their text is embedded as JSON, not as a string)."""
    return [i for i, t in enumerate(types) if t == "JSON"]


def _raw_json(row: tuple, cells: list[int]) -> tuple:
    if not cells:
        return row
    out = list(row)
    for i in cells:
        if out[i] is not None:
            out[i] = msgspec.Raw(out[i].encode())
    return tuple(out)


def embedded_json(rows: Iterable[tuple], types: Sequence[str]) -> list[tuple]:
    """``rows`` with each JSON-typed cell's text as a ``msgspec.Raw``, so that encoding
    them writes the value (an object, a list) instead of a string holding its JSON."""
    cells = json_cells(types)
    return [_raw_json(r, cells) for r in rows]


def json_rows(result: Result) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts (JSON columns as embedded JSON)."""
    return [dict(zip(result.columns, r)) for r in embedded_json(result.rows, result.types)]


def write_json(result: Result, out: IO[str]) -> None:
    """A JSON array of objects, one per row (indented by 2)."""
    bulk_text.json_text(result, out, _json.encode)


def write_jsonl(result: Result, out: IO[str]) -> None:
    """One JSON object per line."""
    bulk_text.jsonl_text(result, out, _json.encode)


def csv_cell(value: Any) -> Any:
    """A value as CSV text: empty for NULL, true/false, JSON for lists and structs,
    base64 for bytes, ISO 8601 for dates and times."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str, decimal.Decimal)):
        return value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, uuid.UUID):
        return str(value)
    return _json.encode(value).decode()


def write_csv(result: Result, out: IO[str]) -> None:
    """CSV with a header line (the ``csv`` module's quoting, values as :func:`csv_cell`)."""
    bulk_text.csv_text(result, out, csv_cell)


_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
            "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")


def _width(text: str) -> int:
    """Terminal cells ``text`` takes (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def table_cell(value: Any, null: str = "NULL") -> str:
    """A value as one table cell: ``null``, or its CSV text with line breaks escaped, so
    that a row stays on one line."""
    if value is None:
        return null
    return str(csv_cell(value)).replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def render_table(result: Result, limit: int | None = TABLE_LIMIT, null: str = "NULL") -> str:
    """``result`` as an aligned text table of at most ``limit`` rows (None or 0: all),
    numbers right-aligned. No value is ever cut or wrapped: a column is as wide as its
    widest value, whatever the width of the terminal. When rows were left out, a last line
    says how many. ``null`` is how NULL reads."""
    rows = head_rows(result, limit or None)
    header = [table_cell(c) for c in result.columns]
    cells = [[table_cell(v, null) for v in r] for r in rows]
    widths = [max([_width(h)] + [_width(r[i]) for r in cells]) for i, h in enumerate(header)]
    right = [t.startswith(_NUMERIC) for t in result.types]

    def line(values: list[str]) -> str:
        parts = [(" " * (w - _width(v)) + v) if r else (v + " " * (w - _width(v)))
                 for v, w, r in zip(values, widths, right)]
        return "  ".join(parts).rstrip()

    lines = [line(header), "  ".join("-" * w for w in widths)]
    lines += [line(r) for r in cells]
    left = len(result) - len(rows)
    if left:
        lines.append(f"({len(rows)} of {len(result)} rows shown, {left} left out: "
                     f"--limit 0 shows every row)")
    return "\n".join(lines) + "\n"


def write_table(result: Result, out: IO[str], limit: int | None = TABLE_LIMIT,
                null: str = "NULL") -> None:
    """:func:`render_table` on a text stream."""
    out.write(render_table(result, limit, null))


_TEXT_WRITERS = {"table": write_table, "csv": write_csv, "json": write_json, "jsonl": write_jsonl}


def write_result(result: Result, fmt: str, out: IO[str]) -> None:
    """Write ``result`` as ``fmt`` (table, csv, json or jsonl) on a text stream."""
    try:
        _TEXT_WRITERS[fmt](result, out)
    except KeyError:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}") from None


def format_for(path: str | Path) -> str:
    """The format an ``--out`` file's suffix asks for."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"--out {path}: the file name must end with "
                         + ", ".join(SUFFIXES) + " (it chooses the format)")
    return SUFFIXES[suffix]


def save_result(result: Result, path: str | Path, stores: Iterable[str | Path | None] = ()) -> str:
    """Write ``result`` to ``path`` in the format its suffix names; returns that format.

    The file is written beside ``path`` and renamed into place when complete; a path that
    is one of ``stores``, its write-ahead log or a link to either is refused
    (:mod:`seasalt_log.outputs`)."""
    fmt = format_for(path)
    if fmt == "parquet":
        with atomic_path(path, stores, what="--out") as tmp:
            write_parquet(result, tmp, shown=path)
    else:
        with atomic_file(path, stores, what="--out", text=True) as fh:
            write_result(result, fmt, fh)
    return fmt


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append(name if k == 0 else f"{name}_{k}")
    return out


def write_parquet(result: Result, path: Path, shown: str | Path | None = None) -> None:
    """Write ``result`` as a Parquet file through a fresh in-memory DuckDB connection.

    Rows kept as Arrow are copied to the file by one ``COPY (SELECT ...) TO``, each column
    cast to the result's type (no table made of them first: a third less CPU for ten
    million rows; its columns are written nullable, where a table's COPY marks a column
    that holds no NULL required); Python rows are appended to a table of those types, then
    copied. The connection that ran the query is not involved. ``shown`` is the name errors
    give (the target, when ``path`` is its temporary file).
    """
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    con.execute("SET enable_progress_bar = false")
    try:
        names = _unique(result.columns)
        if result.arrow is not None:    # cast to the result's types as the rows are copied
            con.register("rows", result.arrow.rename_columns(names))
            cols = ", ".join(f"CAST({sql_identifier(c)} AS {t}) AS {sql_identifier(c)}"
                             for c, t in zip(names, result.types))
            con.execute(f"COPY (SELECT {cols} FROM rows) TO {sql_literal(path)} (FORMAT parquet)")
            return
        cols = ", ".join(f"{sql_identifier(c)} {t}" for c, t in zip(names, result.types))
        con.execute(f"CREATE TABLE result ({cols})")
        if result.rows:
            with con.appender("result") as a:
                a.append_rows(result.rows)
        con.execute(f"COPY result TO {sql_literal(path)} (FORMAT parquet)")
    except duckdb.Error as exc:
        raise SeasaltError(f"cannot write {shown or path} as Parquet: {one_line(str(exc))}") from None
    finally:
        con.close()


def render_text(result: Result, fmt: str) -> str:
    """``result`` as csv/json/jsonl text (for tests and the HTTP service)."""
    buf = io.StringIO()
    write_result(result, fmt, buf)
    return buf.getvalue()
