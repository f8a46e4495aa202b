"""DuckDB appenders kept open across transactions: the service's committer inserts and
deletes rows of the same tables in every commit.

Creating an appender resolves its table, which costs about as much as flushing its rows,
and each call into DuckDB lets Python's lock go several times; the committer must take it
back each time while the event loop and the planner run Python. An appender made once and
flushed in each transaction skips that part (bench/RESULTS.md, "HTTP service"). A flush
writes inside the connection's transaction in progress, so a commit stays all or nothing.
"""

from __future__ import annotations

from typing import Any, Sequence

import duckdb


class Appenders:
    """The appenders of one connection, made on first use: an insert appender per table
    and a delete appender per (table, key columns). :meth:`drop` them after a failure
    (an appender that failed may hold rows not flushed) and before the connection closes."""

    __slots__ = ("con", "_open")

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self._open: dict[tuple[str, tuple[str, ...] | None], Any] = {}

    def insert(self, table: str, rows: Sequence[tuple]) -> None:
        """Insert ``rows`` (in the table's column order) into ``table``."""
        if rows:
            self._flush(table, None, rows)

    def delete(self, table: str, key: tuple[str, ...], keys: Sequence[tuple]) -> None:
        """Delete the rows of ``table`` whose ``key`` columns hold one of ``keys`` (tuples of
        those columns' values)."""
        if keys:
            self._flush(table, key, keys)

    def _flush(self, table: str, key: tuple[str, ...] | None, rows: Sequence[tuple]) -> None:
        a = self._open.get((table, key))
        if a is None:
            a = self._open[(table, key)] = (
                self.con.appender(table) if key is None
                else self.con.appender(table, action="delete", key=list(key)))
        a.append_rows(rows)
        a.flush()

    def drop(self) -> None:
        """Forget every appender (the next use makes new ones)."""
        self._open.clear()
