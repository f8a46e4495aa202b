"""The HTTP API's errors: :class:`ApiError` (a status with an RFC 9457 problem body) and
:func:`error_for`, the status each library error is answered with (docs/HTTP.md).

Kept apart from the routes so the report and web modules can raise and catch them.
"""

from __future__ import annotations

import errno
from typing import Any, Mapping

import msgspec
from starlette.responses import Response

from ..digits import is_digits
from ..errors import (GameExistsError, IllegalMoveError, LogFormatError, SeasaltError,
                      StreamConflictError, UnknownGameError, UsageError)
from .bodies import Problem
from .live import ServiceClosed, WriterFailed
from .problems import PROBLEM_JSON, problem_type, title

#: the API's encoder (``str`` for SQL types msgspec does not know)
json_encoder = msgspec.json.Encoder(enc_hook=str, decimal_format="number")
JSON = "application/json"


class ApiError(Exception):
    """An error answered as ``status`` with an RFC 9457 problem body (``error`` is a short
    code, :data:`.problems.TITLES`; ``fields`` the extension members of :class:`.Problem`)."""

    def __init__(self, status: int, error: str, message: str,
                 headers: Mapping[str, str] | None = None,
                 **fields: Any):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message
        self.headers = headers
        self.fields = {k: v for k, v in fields.items() if v is not None}

    def problem(self, instance: str | None = None) -> Problem:
        """The body: the problem of this error at ``instance`` (the request's path)."""
        return Problem(type=problem_type(self.error), title=title(self.error),
                       status=self.status, detail=self.message, instance=instance,
                       error=self.error, **self.fields)

    def response(self, instance: str | None = None) -> Response:
        return Response(json_encoder.encode(self.problem(instance)), self.status,
                        headers=self.headers, media_type=PROBLEM_JSON)


def error_for(exc: BaseException) -> ApiError:
    """The HTTP error for a library error (and 500 for anything else)."""
    if isinstance(exc, ApiError):
        return exc
    index = getattr(exc, "index", None)
    if isinstance(exc, IllegalMoveError):
        return ApiError(422, "illegal_move", str(exc), rule=exc.rule, reason=exc.reason,
                        index=index)
    if isinstance(exc, LogFormatError):
        # ``path`` is within the event; ``index`` says which event of the request it is
        return ApiError(400, "bad_event", str(exc), rule=exc.rule, reason=exc.reason,
                        path=exc.path, index=index)
    if isinstance(exc, StreamConflictError):
        kind = "game_exists" if isinstance(exc, GameExistsError) else "conflict"
        return ApiError(409, kind, str(exc), headers={"ETag": etag(exc.found)},
                        current_seq=exc.found, expected_seq=exc.expected)
    if isinstance(exc, UnknownGameError):
        return ApiError(404, "unknown_game", str(exc))
    if isinstance(exc, WriterFailed):
        return ApiError(503, "writer_stopped", str(exc))
    if isinstance(exc, ServiceClosed):
        return ApiError(503, "unavailable", str(exc), headers={"Retry-After": "1"})
    if _disk_full(exc):
        return ApiError(507, "insufficient_storage", "the store's disk is full: nothing was "
                        "stored; retry once space is freed", headers={"Retry-After": "10"})
    if isinstance(exc, (UsageError, SeasaltError)):
        return ApiError(400, "bad_request", str(exc), reason=getattr(exc, "reason", None))
    return ApiError(500, "internal", f"internal error: {type(exc).__name__}")


def _disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk is full (OSError ENOSPC, or DuckDB's message for it)."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    return "No space left on device" in str(exc)


def etag(seq: int) -> str:
    """The entity tag of a game whose last event is ``seq``."""
    return f'"{seq}"'


def resumed_after(last_event_id: str | None, after: int) -> int:
    """Where a stream of server-sent events goes on: after the ``Last-Event-ID`` a
    reconnecting EventSource sends (the seq of the last message it got), else after
    ``after``; an id that is not a seq is a 400."""
    if last_event_id is None or not last_event_id.strip():
        return after
    if not is_digits(last_event_id.strip()):
        raise ApiError(400, "bad_request", f"Last-Event-ID must be a seq, not {last_event_id[:40]!r}")
    return int(last_event_id)
