"""Reading a statement's one row so that its connection is left free.

A ``fetchone`` leaves DuckDB's result open until a later fetch finds no more rows, and
DuckDB refuses a relation (``con.sql``) on a connection beside an unfinished result; the
store's connection is shared by every reader of a :class:`~seasalt_log.store.Store`, so its
single-row reads take the whole result here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import duckdb


def first_row(con: duckdb.DuckDBPyConnection, sql: str,
              params: Sequence[Any] | None = None) -> tuple[Any, ...] | None:
    """The first row of a statement that gives at most a few rows (None: no row), its
    result read to the end."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def one_row(con: duckdb.DuckDBPyConnection, sql: str,
            params: Sequence[Any] | None = None) -> tuple[Any, ...]:
    """The one row of a statement that gives one row (counts, settings)."""
    row = first_row(con, sql, params)
    assert row is not None
    return row


def one_value(con: duckdb.DuckDBPyConnection, sql: str,
              params: Sequence[Any] | None = None) -> Any:
    """The one value of a statement that gives one row of one column (a count, a setting)."""
    return one_row(con, sql, params)[0]
