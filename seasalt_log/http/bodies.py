"""The bodies of the HTTP API that no other part of the library defines, as msgspec types:
the handlers encode these, and the OpenAPI description (:mod:`.openapi`) is generated from
them, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

import msgspec

from .. import events as ev
from ..queries import GameRow, RoundRow


class Problem(msgspec.Struct, omit_defaults=True):
    """Every error answer: an RFC 9457 problem (``application/problem+json``) with this
    service's extension members."""

    type: str                      # a URI reference naming the kind of problem (docs page)
    title: str                     # a short summary of that kind
    status: int                    # the HTTP status, repeated
    detail: str                    # this occurrence in one readable line
    instance: str | None = None    # the request's path
    error: str = ""                # the kind as a short code: illegal_move, conflict, ...
    rule: str | None = None        # the RULES.md id (illegal_move; bad_event: LOG-FORMAT)
    reason: str | None = None      # the rule's complaint without the position
    index: int | None = None       # position in the request's events of the one refused
    path: str | None = None        # JSON path of a malformed field
    current_seq: int | None = None     # conflict / precondition_failed: the game's seq now
    expected_seq: int | None = None    # the seq the request expected


class GameCreated(msgspec.Struct):
    """``POST /games``: what was stored, and the game's credentials (docs/HTTP.md, "Readers
    and credentials")."""

    game_id: str
    seq: int
    appended: list[ev.AnyEvent]    # type: ignore[valid-type]
    table_token: str               # reads everything of this game
    seat_tokens: list[str]         # one per seat, in seat order: that seat's view


class GameDetail(msgspec.Struct):
    """``GET /games/{id}``: the game round by round."""

    seq: int
    game: GameRow
    rounds: list[RoundRow]


class AppendRequest(msgspec.Struct):
    """The wrapper form of an append body (the service reads it event by event, to say
    which one is malformed)."""

    events: list[ev.AnyEvent]      # type: ignore[valid-type]
    expected_seq: int | None = None


class ReportInfo(msgspec.Struct):
    """One entry of ``GET /stats``."""

    name: str
    description: str
    filters: list[str]


class StatsReport(msgspec.Struct):
    """``GET /stats/{report}``: one page of a report's rows (objects keyed by column)."""

    report: str
    description: str
    columns: list[str]
    types: list[str]               # DuckDB type names
    rows: list[dict[str, Any]]


class QueryResult(msgspec.Struct):
    """``POST /query``: the columns, their DuckDB types and at most the row limit of rows."""

    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool                # more rows matched than came back


class Health(msgspec.Struct):
    """``GET /health``: the service runs (``status`` ``ok``, or ``writer_stopped`` once its
    writer died); its process and the writer's counters."""

    status: str
    pid: int
    batches: int
    appends: int
    writer_seconds: float
