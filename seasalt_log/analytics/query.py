"""User SQL on a connection that can neither change the store nor touch a file (the
sandbox itself: :mod:`seasalt_log.store.sandbox`, which ``Store.sql`` shares).

Three locks, each enough on its own for most attempts:

1. the statement must be one reading statement (SELECT, WITH, FROM, VALUES, TABLE, SHOW,
   DESCRIBE, SUMMARIZE, EXPLAIN), checked with DuckDB's own parser before anything runs;
2. the store is opened ``read_only``;
3. ``enable_external_access=false`` (no file reads or writes, no ATTACH, no INSTALL),
   extension autoinstall/autoload off, and then ``lock_configuration`` so SQL cannot undo it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from ..errors import SeasaltError
from ..store.sandbox import (ALLOWED_TEXT, SAFE_CONFIG, SESSION, QueryError,  # noqa: F401
                             QueryRefusedError, check_sql, file_access_refused, one_line,
                             query_failed)
from ..store.store import connect, damage_error
from .limits import Limits, guarded
from .output import Result, arrow_result

def connect_readonly(path: str | Path, limits: Limits | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the store at ``path`` with external access disabled (and
    ``limits.memory_limit``, if given, as DuckDB's memory limit)."""
    path = Path(path)
    config = dict(SAFE_CONFIG)
    if limits is not None and limits.memory_limit is not None:
        config["memory_limit"] = limits.memory_limit
    con = connect(path, read_only=True, config=config)
    try:
        for sql in SESSION:
            con.execute(sql)
    except duckdb.Error as exc:
        con.close()
        raise SeasaltError(f"cannot open the store {path}: {one_line(str(exc))}") from None
    return con


def execute(con: duckdb.DuckDBPyConnection, sql: str,
            params: dict[str, Any] | None = None, *, path: str | Path | None = None,
            arrow: bool = False) -> Result:
    """Check and run ``sql`` on a connection from :func:`connect_readonly` (to the store at
    ``path``: a damaged block it reads is then reported as the store's damage). ``arrow``:
    keep the rows as Arrow when they can be written from it (:func:`.output.arrow_result`),
    for a result that is written (CSV, JSON, Parquet, a table of its first rows) rather
    than read whole in Python."""
    check_sql(con, sql)
    try:
        if arrow:
            relation = con.sql(sql, params=params) if params else con.sql(sql)
            return arrow_result(relation) if relation is not None else \
                Result(columns=[], types=[], rows=[])
        cur = con.execute(sql, params) if params else con.execute(sql)
        columns = [d[0] for d in cur.description] if cur.description else []
        types = [str(d[1]) for d in cur.description] if cur.description else []
        rows = cur.fetchall() if cur.description else []
    except duckdb.PermissionException as exc:
        raise file_access_refused(exc) from None
    except duckdb.InvalidInputException as exc:
        msg = one_line(str(exc))
        if "read-only" in msg or "configuration has been locked" in msg:
            raise QueryRefusedError(f"query refused: {msg}") from None
        raise query_failed(exc) from None
    except duckdb.Error as exc:
        damaged = damage_error(Path(path), exc) if path is not None else None
        raise damaged or query_failed(exc) from None
    return Result(columns=columns, types=types, rows=rows)


def run_query(path: str | Path, sql: str, params: dict[str, Any] | None = None,
              limits: Limits | None = None, arrow: bool = False) -> Result:
    """Run one reading statement on the store at ``path`` (see the module's locks), under
    ``limits`` (time, memory, Ctrl-C: :mod:`.limits`) when given; ``arrow`` as
    :func:`execute`."""
    con = connect_readonly(path, limits)
    try:
        if limits is None:
            return execute(con, sql, params, path=path, arrow=arrow)
        return guarded(con, lambda: execute(con, sql, params, path=path, arrow=arrow), limits)
    finally:
        con.close()
