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

import re
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
#: how a refusal names a statement of these types (their own name would mislead)
_WHAT = {
    "COPY_DATABASE": "COPY FROM DATABASE", "VARIABLE_SET": "SET VARIABLE",
    "MULTI": "PIVOT (a statement that creates a type)", "CREATE_FUNC": "CREATE MACRO/FUNCTION",
}
#: the types DuckDB gives several statements (CHECKPOINT is a CALL, USE and RESET a SET,
#: ANALYZE a VACUUM, DEALLOCATE a DROP, COMMENT ON an ALTER, INSTALL a LOAD, COPY FROM
#: DATABASE a PRAGMA): a refusal names these by the words the statement starts with
_SHARED = frozenset(("CALL", "SET", "VACUUM", "DROP", "ALTER", "LOAD", "TRANSACTION", "PRAGMA"))
#: statements named by their first two words
_TWO_WORDS = frozenset(("FORCE CHECKPOINT", "FORCE INSTALL", "COMMENT ON", "UPDATE EXTENSIONS",
                        "START TRANSACTION", "SET VARIABLE", "RESET VARIABLE"))
_LEADING = re.compile(r"\A(?:\s+|--[^\n]*|/\*.*?\*/)*", re.S)     # blanks, comments
_WORDS = re.compile(r"([A-Za-z_]+)(?:\s+([A-Za-z_]+))?")
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
    try:
        kind = statements[0].type
    except ValueError:              # a type the duckdb module has no name for
        kind = None
    if kind not in _ALLOWED:
        name = statement_name(statements[0].query, kind.name if kind is not None else None)
        raise QueryRefusedError(f"query refused: {name} statements may not run here; queries are "
                                f"read-only ({ALLOWED_TEXT})")


def statement_name(sql: str, kind: str | None) -> str:
    """What a refusal calls the statement ``sql`` of DuckDB type ``kind`` (None: a type
    without a name): the type's name, or for the types several statements share (and
    those without a name) the words the statement starts with, as the user wrote them:
    CHECKPOINT, not CALL; USE, not SET."""
    if kind is not None and kind not in _SHARED:
        return _WHAT.get(kind, kind.replace("_", " "))
    words = _WORDS.match(_LEADING.sub("", sql, count=1))
    if words is None:
        return kind or "this"
    first, two = words.group(1).upper(), " ".join(words.groups("")).upper()
    return two if two in _TWO_WORDS else first


