"""``GET /stats`` and ``GET /stats/{report}``: the packaged analytics reports, run on the
service's reader connection (the service holds the store, so no second process may open it).

A report runs under the time limit of ``seasalt query`` (``SEASALT_QUERY_TIMEOUT``); the
service's DuckDB memory limit (``SEASALT_QUERY_MEMORY``) is set when it opens the store.
"""

from __future__ import annotations

from typing import Any

from ..digits import is_digits
from ..errors import UsageError
from ..store import Store
from .errors import ApiError

#: the filters every report takes (seasalt_log.analytics.reports)
FILTERS = ("player", "players")


def _analytics():
    try:
        from ..analytics import reports
        from ..analytics.output import json_rows
    except ImportError:                     # pragma: no cover - analytics ships with the library
        raise ApiError(501, "not_implemented", "statistics are not available in this build") from None
    return reports, json_rows


def report_list(store: Store) -> list[dict[str, Any]]:
    """Every report's name, description and filters (the fields of :class:`.ReportInfo`)."""
    reports, _ = _analytics()
    return [{"name": r.name, "description": r.description, "filters": list(FILTERS)}
            for r in reports.list_reports()]


def run_named_report(store: Store, name: str, params: dict[str, str]) -> dict[str, Any]:
    """Run report ``name`` with the filters in ``params`` (query parameters)."""
    reports, json_rows = _analytics()
    unknown = sorted(set(params) - set(FILTERS))
    if unknown:
        raise ApiError(400, "bad_request", f"unknown filter {unknown[0]!r}; reports take "
                                           + ", ".join(FILTERS))
    if name not in {r.name for r in reports.list_reports()}:
        raise ApiError(404, "unknown_report", f"no report named {name!r}; choose one of: "
                       + ", ".join(r.name for r in reports.list_reports()))
    players_text = params.get("players") or None
    players = None
    if players_text is not None:
        if not is_digits(players_text) or int(players_text) not in (2, 3, 4):
            raise UsageError(f"players must be 2, 3 or 4, not {players_text!r}")
        players = int(players_text)
    from ..analytics.limits import (QueryMemoryError, QueryTimeoutError, guarded,
                                    limits_from)
    try:
        result = guarded(store.con, lambda: reports.run_report_on(
            store.con, name, player=params.get("player") or None, players=players), limits_from())
    except (QueryTimeoutError, QueryMemoryError) as exc:
        raise ApiError(503, "report_limit", f"report {name}: {exc}") from None
    report = reports.get_report(name)
    return {"report": name, "description": report.description, "columns": result.columns,
            "types": result.types, "rows": json_rows(result)}     # :class:`.StatsReport`
