"""``POST /query``: one reading SQL statement on the service's reader connection, for the
table (the service token), with a time and a row limit. A JSON-typed column's cells come
back as JSON values (as ``GET /stats`` and ``seasalt query --format json`` give them).

The same checks as ``seasalt query`` (seasalt_log.analytics.query): one reading statement,
parsed by DuckDB before it runs, in a read-only transaction; the service turns off file
access for its whole database when it starts (``enable_external_access=false``), so a
query cannot read or write files either.
"""

from __future__ import annotations

import threading

import duckdb
import msgspec

from ..analytics.output import embedded_json
from ..analytics.query import QueryRefusedError, check_sql
from ..store.sandbox import file_access_refused, query_failed
from ..store import Store
from .bodies import QueryResult

#: rows returned at most (the answer says when it was cut)
MAX_ROWS = 10_000
#: seconds a query may run before it is interrupted
MAX_SECONDS = 10.0


class QueryBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /query``."""

    sql: str
    params: dict[str, str | int | float | bool | None] | None = None


def run_sql(store: Store, body: QueryBody, *, max_rows: int = MAX_ROWS,
            max_seconds: float = MAX_SECONDS) -> QueryResult:
    """Run ``body.sql`` on ``store``'s connection (already in a read-only transaction)."""
    con = store.con
    check_sql(con, body.sql)
    timer = threading.Timer(max_seconds, con.interrupt)
    timer.start()
    try:
        cur = con.execute(body.sql, body.params) if body.params else con.execute(body.sql)
        columns = [d[0] for d in cur.description] if cur.description else []
        types = [str(d[1]) for d in cur.description] if cur.description else []
        rows = cur.fetchmany(max_rows + 1) if cur.description else []
    except duckdb.InterruptException:
        raise QueryRefusedError(f"query stopped: it ran past {max_seconds:g} s") from None
    except duckdb.PermissionException as exc:
        raise file_access_refused(exc) from None
    except duckdb.Error as exc:
        raise query_failed(exc) from None
    finally:
        timer.cancel()
    return QueryResult(columns=columns, types=types, rows=embedded_json(rows[:max_rows], types),
                       truncated=len(rows) > max_rows)
