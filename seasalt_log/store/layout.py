"""The store's schema as its format defines it, and how a store's schema differs from it.

The reference is not a list kept by hand: it is the catalog of an empty in-memory database
made by the same DDL a new store gets (:data:`~seasalt_log.store.schema.EVENTS_DDL` and
:func:`~seasalt_log.store.rebuild.migrate_projections`). A store's catalog (tables with
their columns, types and constraints, views with their definitions, triggers, indexes,
sequences and macros) is compared with it object by object, as DuckDB itself writes each
object's definition back (``duckdb_tables().sql`` and the like), so spelling and
whitespace do not matter, and a column's type, a constraint, a view's query or a trigger
that was dropped, added or redefined does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import duckdb

from .projections import TABLES
from .rebuild import migrate_projections
from .schema import EVENTS_DDL

#: kind -> the catalog query giving (schema, name, table the object is on, definition)
_CATALOG = {
    "table": "SELECT schema_name, table_name, NULL, sql FROM duckdb_tables() "
             "WHERE NOT internal AND NOT temporary AND database_name = current_database()",
    "view": "SELECT schema_name, view_name, NULL, sql FROM duckdb_views() "
            "WHERE NOT internal AND NOT temporary AND database_name = current_database()",
    "trigger": "SELECT schema_name, trigger_name, table_name, sql FROM duckdb_triggers() "
               "WHERE NOT temporary AND database_name = current_database()",
    "index": "SELECT schema_name, index_name, table_name, sql FROM duckdb_indexes() "
             "WHERE database_name = current_database()",
    "sequence": "SELECT schema_name, sequence_name, NULL, sql FROM duckdb_sequences() "
                "WHERE NOT temporary AND database_name = current_database()",
    "macro": "SELECT schema_name, function_name, NULL, function_type || ' ' || "
             "coalesce(CAST(macro_definition AS VARCHAR), '') FROM duckdb_functions() "
             "WHERE NOT internal AND database_name = current_database()",
}

_COLUMNS = ("SELECT schema_name, table_name, column_name, data_type, is_nullable, column_default "
            "FROM duckdb_columns() WHERE NOT internal AND database_name = current_database() "
            "ORDER BY schema_name, table_name, column_index")


class SchemaDifference(NamedTuple):
    """One object of the store's schema that is not as the format defines it."""

    kind: str           # table, view, trigger, index, sequence, macro
    name: str           # schema-qualified when not in ``main``
    message: str
    table: str | None   # the table it is (or is on), when there is one


_CONSTRAINTS = ("SELECT schema_name, table_name, constraint_text FROM duckdb_constraints() "
                "WHERE constraint_type <> 'NOT NULL' AND database_name = current_database()")


class Catalog(NamedTuple):
    objects: dict[tuple[str, str], tuple[str | None, str]]    # (kind, name) -> (table, sql)
    columns: dict[str, list[tuple]]                            # table -> its columns in order
    constraints: dict[str, set[str]]    # table -> its keys, checks, ... (NOT NULL: columns)


def catalog(con: duckdb.DuckDBPyConnection) -> Catalog:
    """The schema objects of the database of ``con`` (not DuckDB's own, not temporary)."""
    objects: dict[tuple[str, str], tuple[str | None, str]] = {}
    for kind, sql in _CATALOG.items():
        for schema, name, table, text in con.execute(sql).fetchall():
            objects[(kind, _qualified(schema, name))] = (table, (text or "").strip())
    columns: dict[str, list[tuple]] = {}
    for schema, table, *col in con.execute(_COLUMNS).fetchall():
        columns.setdefault(_qualified(schema, table), []).append(tuple(col))
    constraints: dict[str, set[str]] = {}
    for schema, table, text in con.execute(_CONSTRAINTS).fetchall():
        constraints.setdefault(_qualified(schema, table), set()).add(text)
    return Catalog(objects, columns, constraints)


@lru_cache(maxsize=1)
def expected_catalog() -> Catalog:
    """The catalog of a store of this format: an empty store made in memory."""
    con = duckdb.connect()
    try:
        con.execute(EVENTS_DDL)
        con.execute("CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
        migrate_projections(con)
        return catalog(con)
    finally:
        con.close()


def schema_differences(con: duckdb.DuckDBPyConnection) -> list[SchemaDifference]:
    """Every object of the store's schema that is missing, extra or defined otherwise than
    the store format defines it, in a stable order."""
    want, have = expected_catalog(), catalog(con)
    out: list[SchemaDifference] = []
    for key in sorted(set(want.objects) | set(have.objects)):
        kind, name = key
        w, h = want.objects.get(key), have.objects.get(key)
        table = name if kind == "table" else (h if h is not None else want.objects[key])[0]
        hint = " (rebuild the read models)" if (table or name) in TABLES else ""
        if h is None:
            on = f" on {table}" if table and kind != "table" else ""
            out.append(SchemaDifference(kind, name, f"the {kind} {name}{on} is missing{hint}", table))
        elif w is None:
            out.append(SchemaDifference(kind, name, f"the {kind} {name} is not part of the store "
                                                    f"format: {_short(h[1])}", table))
        elif kind == "table":
            message = _table_message(name, want.columns.get(name, []),
                                     have.columns.get(name, []), w[1], h[1],
                                     want.constraints.get(name, set()),
                                     have.constraints.get(name, set()))
            if message:
                out.append(SchemaDifference(kind, name, message + hint, table))
        elif w[1] != h[1]:
            out.append(SchemaDifference(kind, name, f"the {kind} {name} is redefined: it is "
                                                    f"{_short(h[1])}, the format defines "
                                                    f"{_short(w[1])}", table))
    return out


def _table_message(name: str, want: list[tuple], have: list[tuple], want_sql: str,
                   have_sql: str, want_keys: set[str], have_keys: set[str]) -> str | None:
    """What differs in a table: its columns (name, type, NULL allowed, default), its
    constraints (keys, checks), else the rest of its definition (compression)."""
    w = {c[0]: c for c in want}
    h = {c[0]: c for c in have}
    parts = []
    missing = [c for c in w if c not in h]
    extra = [c for c in h if c not in w]
    if missing:
        parts.append(f"lacks column(s) {', '.join(missing)}")
    if extra:
        parts.append(f"has column(s) not in the format: {', '.join(extra)}")
    for col in w:
        if col in h and w[col] != h[col]:
            parts.append(f"column {col} is {_describe(h[col])}, the format defines "
                         f"{_describe(w[col])}")
    if want_keys - have_keys:
        parts.append(f"lacks the constraint(s) {', '.join(sorted(want_keys - have_keys))}")
    if have_keys - want_keys:
        parts.append(f"has constraint(s) not in the format: {', '.join(sorted(have_keys - want_keys))}")
    if not parts and [c[0] for c in want] != [c[0] for c in have]:
        parts.append(f"its columns are in another order ({', '.join(h)})")
    if not parts and want_sql != have_sql:
        parts.append(f"its definition differs (storage): it is {_short(have_sql)}, "
                     f"the format defines {_short(want_sql)}")
    return f"the table {name} " + "; ".join(parts) if parts else None


def _describe(col: tuple) -> str:
    _, data_type, nullable, default = col
    text = data_type + ("" if nullable else " NOT NULL")
    return text + (f" DEFAULT {default}" if default is not None else "")


def _qualified(schema: str, name: str) -> str:
    return name if schema == "main" else f"{schema}.{name}"


def _short(sql: str, limit: int = 160) -> str:
    text = " ".join(sql.split())
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")
