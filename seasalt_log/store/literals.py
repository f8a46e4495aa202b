"""SQL text made from Python values (the lowest module of the store package)."""

from __future__ import annotations


def sql_literal(text) -> str:
    """A string (or a file path) as an SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def sql_identifier(name: str) -> str:
    """A name (a column, a table) as an SQL quoted identifier."""
    return '"' + name.replace('"', '""') + '"'
