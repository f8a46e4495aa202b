"""SQL text made from Python values (the lowest module of the store package)."""

from __future__ import annotations


def sql_literal(text) -> str:
    """A string (or a file path) as an SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"
