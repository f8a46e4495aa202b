"""The kinds of problem the API answers with (RFC 9457): each error code, its title, and
the problem ``type`` that names it, a link to its entry on the service's ``/docs`` page."""

from __future__ import annotations

#: the media type of every error answer
PROBLEM_JSON = "application/problem+json"

#: every error code the service answers with, and its title (the problem's ``title``)
TITLES: dict[str, str] = {
    "bad_request": "Bad request",
    "bad_event": "Malformed event",
    "bad_host": "Host not served",
    "unauthorized": "Credential missing or wrong",
    "forbidden": "Not for this reader",
    "forbidden_origin": "Origin not allowed",
    "not_found": "No such endpoint",
    "unknown_game": "No such game",
    "no_such_point": "No such point of the game",
    "unknown_report": "No such report",
    "method_not_allowed": "Method not allowed",
    "timeout": "Request body too slow",
    "conflict": "Stale expected seq",
    "game_exists": "Game already exists",
    "precondition_failed": "If-Match failed",
    "too_large": "Request body too large",
    "unsupported_media_type": "Writes need JSON",
    "illegal_move": "Refused by the rules",
    "precondition_required": "Expected seq missing",
    "too_many_requests": "Too many requests",
    "query_refused": "Query refused",
    "query_error": "Query failed",
    "report_limit": "Report past its limits",
    "unavailable": "Service stopping",
    "writer_stopped": "Writer stopped",
    "insufficient_storage": "Disk full",
    "backup_failed": "Backup failed",
    "not_implemented": "Not in this build",
    "internal": "Internal error",
    "http_error": "HTTP error",
}


def problem_type(error: str) -> str:
    """The problem ``type`` of error code ``error``: its entry on the ``/docs`` page."""
    return f"/docs#{error}"


def title(error: str) -> str:
    """The problem ``title`` of error code ``error``."""
    return TITLES.get(error, TITLES["http_error"])
