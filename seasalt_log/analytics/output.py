"""Query results and their formats: CSV, JSON, JSON Lines (text), and Parquet files.

Every file is written by this process: CSV and JSON by Python, Parquet by a separate
in-memory DuckDB connection that receives the rows (the user's query runs on a connection
that can touch no file at all).
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import decimal
import io
import uuid
from pathlib import Path
from typing import IO, Any, Iterable

import duckdb
import msgspec
from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..outputs import atomic_file, atomic_path
from ..store.literals import sql_literal

#: the text formats of ``--format``
FORMATS: tuple[str, ...] = ("table", "csv", "json", "jsonl")
#: ``--out`` file suffix -> format
SUFFIXES: dict[str, str] = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "jsonl"}


class Result(Struct):
    """A query's result: column names, DuckDB type names, rows."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]

    def dicts(self) -> list[dict[str, Any]]:
        """The rows as {column: value} (a repeated column name keeps its last value)."""
        return [dict(zip(self.columns, r)) for r in self.rows]


def _enc_hook(value: Any) -> Any:
    return str(value)       # whatever msgspec has no JSON form for (intervals, ...)


_json = msgspec.json.Encoder(enc_hook=_enc_hook, decimal_format="number")


def _json_cells(result: Result) -> list[int]:
    """Indexes of the JSON-typed columns (their text is embedded as JSON, not as a string)."""
    return [i for i, t in enumerate(result.types) if t == "JSON"]


def _raw_json(row: tuple, cells: list[int]) -> tuple:
    if not cells:
        return row
    row = list(row)
    for i in cells:
        if row[i] is not None:
            row[i] = msgspec.Raw(row[i].encode())
    return tuple(row)


def json_rows(result: Result) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts (JSON columns as embedded JSON)."""
    cells = _json_cells(result)
    return [dict(zip(result.columns, _raw_json(r, cells))) for r in result.rows]


def write_json(result: Result, out: IO[str]) -> None:
    """A JSON array of objects, one per row."""
    out.write(msgspec.json.format(_json.encode(json_rows(result)), indent=2).decode() + "\n")


def write_jsonl(result: Result, out: IO[str]) -> None:
    """One JSON object per line."""
    for row in json_rows(result):
        out.write(_json.encode(row).decode() + "\n")


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
    """CSV with a header line."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(result.columns)
    for row in result.rows:
        w.writerow([csv_cell(v) for v in row])


_TEXT_WRITERS = {"csv": write_csv, "json": write_json, "jsonl": write_jsonl}


def write_result(result: Result, fmt: str, out: IO[str]) -> None:
    """Write ``result`` as ``fmt`` (csv, json or jsonl) on a text stream."""
    try:
        _TEXT_WRITERS[fmt](result, out)
    except KeyError:
        raise UsageError(f"unknown format {fmt!r}; choose csv, json or jsonl") from None


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


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def write_parquet(result: Result, path: Path, shown: str | Path | None = None) -> None:
    """Write ``result`` as a Parquet file through a fresh in-memory DuckDB connection.

    The rows are appended to a table of the result's column types, then ``COPY ... TO``
    writes the file; the connection that ran the query is not involved. ``shown`` is the
    name errors give (the target, when ``path`` is its temporary file).
    """
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    con.execute("SET enable_progress_bar = false")
    try:
        cols = ", ".join(f"{_quote(c)} {t}" for c, t in zip(_unique(result.columns), result.types))
        con.execute(f"CREATE TABLE result ({cols})")
        if result.rows:
            with con.appender("result") as a:
                a.append_rows(result.rows)
        con.execute(f"COPY result TO {sql_literal(path)} (FORMAT parquet)")
    except duckdb.Error as exc:
        raise SeasaltError(f"cannot write {shown or path} as Parquet: {one_line(str(exc))}") from None
    finally:
        con.close()


def one_line(message: str) -> str:
    """A DuckDB error message on one line (the ``LINE n:`` excerpt and caret dropped)."""
    lines = []
    for line in message.splitlines():
        if line.startswith("LINE "):
            break
        if line.strip():
            lines.append(line.strip())
    return " ".join(lines) or message.strip()


def render_text(result: Result, fmt: str) -> str:
    """``result`` as csv/json/jsonl text (for tests and the HTTP service)."""
    buf = io.StringIO()
    write_result(result, fmt, buf)
    return buf.getvalue()
