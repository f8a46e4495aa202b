"""CSV, JSON and JSON Lines text of a whole result, rendered by DuckDB over Arrow.

The bytes are those of the Python writers of :mod:`.output` (the ``csv`` module and
msgspec), value for value: each column becomes an SQL expression giving its CSV field or
its JSON value as that writer spells it, DuckDB joins them into one text line per row, and
the lines go to the output as Arrow buffers (:func:`~seasalt_log.arrow_text.string_bytes`),
never as one Python object per row.

A column whose type has no such expression here (dates and times, decimals, blobs,
structs, maps, 128-bit integers, a Python column mixing types) is spelled by the Python
writer's own function, one value at a time, and joins the others as text.
"""

from __future__ import annotations

import csv
import io
import re
from typing import IO, Any, Callable, Iterator

import duckdb
import msgspec

from ..arrow_text import string_bytes

#: integer types whose values fit a BIGINT or UBIGINT (spelled by a plain cast)
_INTS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
         "UBIGINT"}
_FLOATS = {"DOUBLE", "FLOAT"}
_TEXT = {"VARCHAR", "JSON"}
_LIST = re.compile(r"^(.*)\[\]$")

#: the JSON escape of each control character, as msgspec writes it
_SHORT = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}
_CONTROLS = "[\\x00-\\x1f\"\\\\]"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _json_string_body(x: str) -> str:
    chain = f"replace(replace({x}, '\\', '\\\\'), '\"', '\\\"')"
    for code in range(32):
        esc = _SHORT.get(code, f"\\u{code:04x}")
        chain = f"replace({chain}, chr({code}), {_lit(esc)})"
    return f"('\"' || CASE WHEN regexp_matches({x}, {_lit(_CONTROLS)}) THEN {chain} ELSE {x} END || '\"')"


#: SQL macros the expressions below use, created on the connection that renders the lines
#: (one definition, however many columns use it: the statement stays short)
MACROS = (f"CREATE MACRO seasalt_json_string(x) AS {_json_string_body('x')}",)


def _json_string(x: str) -> str:
    """SQL: the VARCHAR ``x`` as a JSON string, escaped as msgspec escapes it."""
    return f"seasalt_json_string({x})"


def _json_float(x: str) -> str:
    """SQL: the DOUBLE ``x`` as msgspec writes a float (NaN and infinities as null; plain
    decimals from 1e-5 to below 1e16, else an exponent without '+' or leading zeros)."""
    text = f"CAST({x} AS VARCHAR)"
    return (f"CASE WHEN isnan({x}) OR isinf({x}) THEN 'null' ELSE regexp_replace(regexp_replace("
            f"{text}, '^(-?)(\\d)\\.?(\\d*)e-05$', '\\10.0000\\2\\3'), 'e\\+?(-?)0*', 'e\\1') END")


def _csv_float(x: str) -> str:
    """SQL: the DOUBLE ``x`` as Python's ``str`` of a float (DuckDB already spells it so,
    but for a NaN with its sign bit set)."""
    return f"CASE WHEN isnan({x}) THEN 'nan' ELSE CAST({x} AS VARCHAR) END"


def json_sql(kind: str, x: str) -> str | None:
    """SQL: the JSON value (text, NULL for NULL) of ``x``, a column of DuckDB type ``kind``;
    None when this module cannot spell that type."""
    if kind == "BOOLEAN":
        return f"CASE WHEN {x} THEN 'true' WHEN NOT {x} THEN 'false' END"
    if kind in _INTS:
        return f"CAST({x} AS VARCHAR)"
    if kind in _FLOATS:
        return _json_float(f"CAST({x} AS DOUBLE)")
    if kind == "VARCHAR":
        return _json_string(x)
    if kind == "JSON":                       # embedded as it is (msgspec.Raw)
        return f"CAST({x} AS VARCHAR)"
    m = _LIST.match(kind)
    if m and m.group(1) != "JSON":
        inner = json_sql(m.group(1), "v")
        if inner is None:
            return None
        return f"('[' || array_to_string(list_transform({x}, lambda v: coalesce({inner}, 'null')), ',') || ']')"
    return None


def csv_sql(kind: str, x: str) -> str | None:
    """SQL: the CSV field (unquoted text, NULL for NULL) of ``x`` as :func:`.output.csv_cell`
    spells it; None when this module cannot spell the type ``kind``."""
    if kind in _INTS:
        return f"CAST({x} AS VARCHAR)"
    if kind in _FLOATS:
        return _csv_float(f"CAST({x} AS DOUBLE)")
    if kind in _TEXT:
        return f"CAST({x} AS VARCHAR)"
    if kind == "BOOLEAN" or _LIST.match(kind):
        return json_sql(kind, x)
    return None


def spellable(types: list[str]) -> bool:
    """Whether every column of these DuckDB types has both an SQL CSV and JSON spelling."""
    return all(csv_sql(t, "x") is not None and json_sql(t, "x") is not None for t in types)


def _csv_quoted(field: str, alone: bool) -> str:
    """SQL: a CSV field quoted as the ``csv`` module quotes it (QUOTE_MINIMAL with a "\\n"
    line end: a comma, a quote or a newline; an empty field alone on its line)."""
    quoted = f"('\"' || replace({field}, '\"', '\"\"') || '\"')"
    test = f"(contains({field}, ',') OR contains({field}, '\"') OR contains({field}, chr(10)))"
    if alone:
        test = f"({test} OR {field} = '')"
    return f"CASE WHEN {test} THEN {quoted} ELSE {field} END"


def _name(i: int) -> str:
    return f'"c{i}"'


# ---------------------------------------------------------------- the columns as Arrow

_ARROW_SCALARS: dict[str, tuple[str, tuple[type, ...]]] = {
    **{k: ("int64", (int,)) for k in _INTS - {"UBIGINT"}},
    "UBIGINT": ("uint64", (int,)),
    "DOUBLE": ("float64", (float,)), "FLOAT": ("float64", (float,)),
    "VARCHAR": ("string", (str,)), "JSON": ("string", (str,)), "BOOLEAN": ("bool_", (bool,)),
}


def _python_column(values: list, kind: str):
    """A column of Python values as an Arrow array of ``kind``'s values, or None when its
    values are not all of the one Python type (or None) that ``kind`` stands for."""
    import pyarrow as pa
    m = _LIST.match(kind)
    try:
        if m:
            inner = _ARROW_SCALARS.get(m.group(1))
            if inner is None or not all(v is None or isinstance(v, list) for v in values):
                return None
            if any(type(x) not in inner[1] for v in values if v for x in v if x is not None):
                return None
            return pa.array(values, type=pa.list_(getattr(pa, inner[0])()))
        arrow, py = _ARROW_SCALARS[kind]
        if not set(map(type, values)) <= {*py, type(None)}:
            return None
        return pa.array(values, type=getattr(pa, arrow)())
    except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return None


class _Columns:
    """A result's columns as Arrow arrays ``c0, c1, ...`` plus, per column, the DuckDB
    type to spell it as (``JSON``, text written as it is, for a column spelled in Python)."""

    def __init__(self, table, kinds: list[str]):
        self.table, self.kinds = table, kinds


def _columns(result, spell: Callable[[str], str | None],
             by_python: Callable[[Any], str | None]) -> _Columns:
    """The columns of ``result`` for :func:`_lines`: its Arrow table when it has one, else
    its Python rows column by column. A column ``spell`` has no SQL for is spelled by
    ``by_python`` value by value (None stays NULL)."""
    import pyarrow as pa
    names = [f"c{i}" for i in range(len(result.columns))]
    kinds = list(result.types)
    arrow = getattr(result, "arrow", None)
    if arrow is not None:
        arrays = list(arrow.columns)
    else:
        cols = list(zip(*result.rows)) if result.rows else [() for _ in names]
        arrays = []
        for i, values in enumerate(cols):
            array = _python_column(list(values), kinds[i]) if spell(kinds[i]) else None
            if array is None:
                array = pa.array([by_python(v) for v in values], type=pa.string())
                kinds[i] = "JSON"           # text to write as it is
            arrays.append(array)
    for i, k in enumerate(kinds):
        if arrow is not None and spell(k) is None:
            raise TypeError(f"column {result.columns[i]}: no SQL spelling of {k}")
    return _Columns(pa.table(arrays, names=names) if names else pa.table({}), kinds)


def _lines(cols: _Columns, line_sql: str, batch: int = 65_536) -> Iterator[memoryview]:
    """The bytes of ``line_sql`` (one VARCHAR per row, over the table ``r``) in row order."""
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("SET preserve_insertion_order = true")
        for macro in MACROS:
            con.execute(macro)
        con.register("r", cols.table)
        for chunk in con.sql(f"SELECT {line_sql} FROM r").to_arrow_reader(batch):
            yield string_bytes(chunk.column(0))
    finally:
        con.close()


def _write(out: IO[str], blocks: Iterator[memoryview]) -> None:
    """Write byte blocks (whole lines of UTF-8) on a text stream, a block at a time."""
    for b in blocks:
        out.write(str(b, "utf-8"))


# ---------------------------------------------------------------- the formats

def csv_text(result, out: IO[str], csv_cell: Callable[[Any], Any]) -> None:
    """CSV with a header line, the bytes of ``csv.writer(out, lineterminator="\\n")`` with
    each value through ``csv_cell``."""
    head = io.StringIO()
    csv.writer(head, lineterminator="\n").writerow(result.columns)
    out.write(head.getvalue())
    if not result.columns:
        for _ in range(_count(result)):
            out.write("\n")
        return
    cols = _columns(result, lambda k: csv_sql(k, "x"),
                    lambda v: None if v is None else str(csv_cell(v)))
    alone = len(cols.kinds) == 1
    fields = [_csv_quoted(f"coalesce({csv_sql(k, _name(i))}, '')", alone)
              for i, k in enumerate(cols.kinds)]
    _write(out, _lines(cols, "concat(" + ", ',', ".join(fields) + ", chr(10))"))


def _objects(result, encode: Callable[[Any], bytes], end: str) -> Iterator[memoryview]:
    """Each row as the compact JSON object msgspec writes for ``dict(zip(columns, row))``
    (a repeated column keeps its first place and its last value), followed by ``end``."""
    last = {name: i for i, name in enumerate(result.columns)}
    cols = _columns(result, lambda k: json_sql(k, "x"),
                    lambda v: None if v is None else encode(v).decode())
    parts = []
    for n, (name, i) in enumerate(last.items()):
        key = ("{" if n == 0 else ",") + encode(name).decode() + ":"
        parts += [_lit(key), f"coalesce({json_sql(cols.kinds[i], _name(i))}, 'null')"]
    return _lines(cols, "concat(" + ", ".join(parts) + f", '}}', {_lit(end)})")


def jsonl_text(result, out: IO[str], encode: Callable[[Any], bytes]) -> None:
    """One JSON object per line, as ``encode`` (a msgspec encoder) writes each row dict."""
    if not result.columns:
        out.write("{}\n" * _count(result))
        return
    _write(out, _objects(result, encode, "\n"))


def json_text(result, out: IO[str], encode: Callable[[Any], bytes]) -> None:
    """A JSON array of the row objects, indented by 2 as ``msgspec.json.format`` does."""
    if not result.columns:
        body = b",".join([b"{}"] * _count(result))
    else:
        body = b"".join(bytes(b) for b in _objects(result, encode, ","))[:-1]
    out.write(msgspec.json.format(b"[" + body + b"]", indent=2).decode() + "\n")


def _count(result) -> int:
    arrow = getattr(result, "arrow", None)
    return len(result.rows) if arrow is None else arrow.num_rows
