"""The query sandbox: what makes a DuckDB connection safe for anyone's SQL.

Three locks, each enough on its own for most attempts:

1. the statement must be one reading statement (SELECT, WITH, FROM, VALUES, TABLE, SHOW,
   DESCRIBE, SUMMARIZE, EXPLAIN), checked with DuckDB's own parser before anything runs
   (:func:`check_sql`);
2. the store is opened ``read_only``;
3. ``enable_external_access=false`` (no file reads or writes, no ATTACH, no INSTALL),
   extension autoinstall/autoload off, and then ``lock_configuration`` so SQL cannot undo
   it (:data:`SAFE_CONFIG` when connecting, or :func:`sandbox` on an open connection).

``seasalt query`` (:mod:`seasalt_log.analytics.query`) and :meth:`Store.sql
<seasalt_log.store.Store.sql>` both run user SQL through it.
"""

from __future__ import annotations

from typing import Any

import duckdb

from ..errors import SeasaltError
from .fetch import first_row

#: the settings of every query connection
SAFE_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
}
#: run on each query connection before its configuration is locked
SESSION = ("SET enable_progress_bar = false",      # it would print into the result on stdout
           "SET lock_configuration = true")

_ALLOWED = frozenset((duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN))
_WHAT = {
    "LOAD": "INSTALL/LOAD", "COPY": "COPY", "COPY_DATABASE": "COPY FROM DATABASE",
    "VARIABLE_SET": "SET VARIABLE", "MULTI": "PIVOT (a statement that creates a type)",
    "CREATE_FUNC": "CREATE MACRO/FUNCTION", "TRANSACTION": "BEGIN/COMMIT/ROLLBACK",
}
ALLOWED_TEXT = "SELECT, WITH, FROM, VALUES, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN"


class QueryRefusedError(SeasaltError):
    """A query that would change data, touch a file or change a setting: refused."""


class QueryError(SeasaltError):
    """A query DuckDB cannot run (syntax error, unknown table, ...)."""


def one_line(message: str) -> str:
    """A DuckDB error message on one line (the ``LINE n:`` excerpt and caret dropped)."""
    lines = []
    for line in message.splitlines():
        if line.startswith("LINE "):
            break
        if line.strip():
            lines.append(line.strip())
    return " ".join(lines) or message.strip()


def query_failed(exc: duckdb.Error | str) -> QueryError:
    """The error of a query DuckDB could not run, worded as the sandbox's other errors
    (``query refused: ...``, ``query stopped: ...``) so that it cannot be taken for a rule id:
    ``query failed: Parser Error: syntax error at or near "SELEC"``."""
    return QueryError(f"query failed: {one_line(str(exc))}")


def file_access_refused(exc: duckdb.PermissionException) -> QueryRefusedError:
    """The refusal of a query that tried to read or write a file (lock 3 stopped it)."""
    return QueryRefusedError(f"query refused: queries may not read or write files "
                             f"({one_line(str(exc))})")


def locked(con: duckdb.DuckDBPyConnection) -> bool:
    """The configuration of ``con``'s database is locked: :func:`sandbox` ran on it, or on
    another connection of this process to the same file (DuckDB shares the database)."""
    row = first_row(con, "SELECT current_setting('lock_configuration')")
    return row is not None and bool(row[0])


def sandbox(con: duckdb.DuckDBPyConnection) -> None:
    """Lock an open read-only connection as :data:`SAFE_CONFIG` would have (no file
    access, no extension loading), then its configuration; a second call does nothing."""
    if locked(con):
        return
    for name, value in SAFE_CONFIG.items():
        con.execute(f"SET {name} = {'true' if value else 'false'}")
    for sql in SESSION:
        con.execute(sql)


def check_sql(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise :class:`QueryRefusedError` unless ``sql`` is exactly one reading statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise query_failed(exc) from None
    if not statements:
        raise QueryRefusedError("query refused: the SQL holds no statement")
    if len(statements) > 1:
        raise QueryRefusedError(f"query refused: one statement at a time ({len(statements)} given)")
    kind = statements[0].type
    if kind not in _ALLOWED:
        name = _WHAT.get(kind.name, kind.name.replace("_", " "))
        raise QueryRefusedError(f"query refused: {name} statements may not run here; queries are "
                                f"read-only ({ALLOWED_TEXT})")


