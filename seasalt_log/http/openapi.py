"""The OpenAPI 3.1 description served at ``/openapi.json``.

The paths are written by hand; the schemas of the bodies are generated from the same msgspec
types the service encodes and decodes (events, append results, game rows, views, round
reports), so they cannot drift from the code.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from .. import events as ev
from ..queries import GameRow, RoundRow
from ..service import AppendResult
from ..view import TableView


class ErrorBody(msgspec.Struct, omit_defaults=True):
    """Every error answer."""

    error: str                     # a short code: illegal_move, conflict, bad_event, ...
    message: str                   # one readable line
    rule: str | None = None        # the RULES.md id (illegal_move, bad_event: LOG-FORMAT)
    reason: str | None = None
    index: int | None = None       # position in the request's events of the one refused
    path: str | None = None        # JSON path of a malformed field
    current_seq: int | None = None     # conflict: the game's seq now
    expected_seq: int | None = None    # conflict: the seq the request expected


class GameDetail(msgspec.Struct):
    """GET /games/{id}."""

    seq: int
    game: GameRow
    rounds: list[RoundRow]


class AppendRequest(msgspec.Struct):
    """The wrapper form of an append body."""

    events: list[ev.AnyEvent]      # type: ignore[valid-type]
    expected_seq: int | None = None


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _err(description: str) -> dict:
    return {"description": description, **_json(_ref("ErrorBody"))}


def _q(name: str, description: str, schema: dict | None = None, *, where: str = "query",
       required: bool = False) -> dict:
    return {"name": name, "in": where, "required": required, "description": description,
            "schema": schema or {"type": "integer"}}


GAME_ID = _q("game_id", "The game id", {"type": "string"}, where="path", required=True)
AUTH = [{"bearer": []}]


@functools.lru_cache(maxsize=1)
def spec() -> dict[str, Any]:
    """The whole description, as a dict ready to encode."""
    types = [ev.AnyEvent, ev.GameStarted, AppendResult, AppendRequest, GameRow, GameDetail,
             TableView, ErrorBody]
    try:
        from ..rescore import RoundReport
        types.append(RoundReport)
        report = _ref("RoundReport")
    except ImportError:                                  # pragma: no cover
        report = {"type": "object"}
    _, components = msgspec.json.schema_components(types,
                                                   ref_template="#/components/schemas/{name}")
    any_event = {"oneOf": [_ref(t.__name__) for t in ev.EVENT_TYPES],
                 "discriminator": {"propertyName": "type"}}
    components["AnyEvent"] = any_event
    append_body = {"oneOf": [_ref("AnyEvent"), {"type": "array", "items": _ref("AnyEvent"),
                                                "minItems": 1}, _ref("AppendRequest")]}
    write_errors = {
        "400": _err("Malformed JSON, an unknown field or type, a bad card code (LOG-FORMAT)"),
        "401": _err("A token is set and the request has none, or a wrong one"),
        "413": _err("The body is larger than the service's limit"),
    }
    paths: dict[str, Any] = {
        "/games": {
            "get": {
                "summary": "List stored games",
                "parameters": [_q("player", "Only games with this player name", {"type": "string"}),
                               _q("players", "Only games with this many players",
                                  {"type": "integer", "minimum": 2, "maximum": 4})],
                "responses": {"200": {"description": "The games, by id",
                                      **_json({"type": "array", "items": _ref("GameRow")})},
                              "400": _err("A bad filter")}},
            "post": {
                "summary": "Start a new game",
                "description": "The body is one game_started event. Without a game_id the "
                               "store derives one from the content. The answer's Location "
                               "names the game.",
                "security": AUTH,
                "requestBody": {"required": True, **_json(_ref("GameStarted"))},
                "responses": {
                    "201": {"description": "Stored", **_json(_ref("AppendResult")),
                            "headers": {"Location": {"schema": {"type": "string"}},
                                        "ETag": {"schema": {"type": "string"}}}},
                    **write_errors,
                    "409": _err("A game with this id exists (current_seq is its seq)"),
                    "422": _err("Refused by the rules")}},
        },
        "/games/{game_id}": {
            "get": {
                "summary": "One game round by round",
                "parameters": [GAME_ID],
                "responses": {"200": {"description": "The game; ETag is its seq",
                                      **_json(_ref("GameDetail"))},
                              "404": _err("No such game")}},
        },
        "/games/{game_id}/events": {
            "get": {
                "summary": "The stored events",
                "description": "Every event with seq > after, derived events included, as "
                               "stored (LOG_FORMAT.md). JSON array by default; JSON Lines (the "
                               "bytes of `seasalt export`) with format=jsonl or "
                               "Accept: application/jsonl.",
                "parameters": [GAME_ID, _q("after", "Only events after this seq", {"type": "integer", "minimum": 0}),
                               _q("format", "json (default) or jsonl", {"enum": ["json", "jsonl"]})],
                "responses": {"200": {"description": "The events; ETag is the game's seq",
                                      **_json({"type": "array", "items": _ref("AnyEvent")}),
                                      },
                              "404": _err("No such game")}},
            "post": {
                "summary": "Append events",
                "description": "The body is one event, a list of events, or {\"expected_seq\": N, "
                               "\"events\": [...]}. The expected seq (the game's seq before the "
                               "append) comes from If-Match (\"N\", or * for whatever it is) or "
                               "expected_seq. Every event is checked by the engine as an import "
                               "does; derived events are added. Nothing is stored unless every "
                               "event is legal. The answer lists every event stored, derived "
                               "ones included.",
                "security": AUTH,
                "parameters": [GAME_ID, _q("If-Match", "The expected seq as an entity tag, e.g. \"12\"; * for any",
                                           {"type": "string"}, where="header")],
                "requestBody": {"required": True, **_json(append_body)},
                "responses": {
                    "200": {"description": "Stored", **_json(_ref("AppendResult")),
                            "headers": {"ETag": {"schema": {"type": "string"}}}},
                    **write_errors,
                    "404": _err("No such game"),
                    "409": _err("The expected seq is stale (current_seq is the game's seq now)"),
                    "422": _err("Refused by the rules: rule id, reason, index of the event"),
                    "428": _err("No expected seq given")}},
        },
        "/games/{game_id}/state": {
            "get": {
                "summary": "The table at one point of the game",
                "description": "The same states as replay. With `as`, the view of that player "
                               "(RULES.md §7): other players' hidden hands and the deck order are "
                               "never included.",
                "parameters": [GAME_ID, _q("round", "Round R (with turn: after turn T of round R; "
                                                    "alone: after the round's last event)"),
                               _q("turn", "Turn T of the round (0: right after round_started)"),
                               _q("seq", "After the N-th event (1 = game_started)"),
                               _q("as", "A player's name or seat: that player's view",
                                  {"type": "string"})],
                "responses": {"200": {"description": "The table", **_json(_ref("TableView"))},
                              "400": _err("A bad parameter, or an unknown player"),
                              "404": _err("No such game, or no such point of it")}},
        },
        "/games/{game_id}/rounds/{round}/score": {
            "get": {
                "summary": "A round rescored by today's engine, next to what was stored",
                "parameters": [GAME_ID, _q("round", "The round", where="path", required=True)],
                "responses": {"200": {"description": "The report", **_json(report)},
                              "400": _err("The round is still in play"),
                              "404": _err("No such game or round")}},
        },
        "/games/{game_id}/follow": {
            "get": {
                "summary": "Follow a game as it is played (server-sent events)",
                "description": "text/event-stream: one message per stored event, `id:` its seq "
                               "and `data:` its JSON, from seq after+1 (or Last-Event-ID+1) on, "
                               "each sent as soon as it is committed. After game_ended an `end` "
                               "event closes the stream. Comments keep an idle stream alive.",
                "parameters": [GAME_ID, _q("after", "Start after this seq (default 0)"),
                               _q("Last-Event-ID", "Resume after this seq", {"type": "string"},
                                  where="header")],
                "responses": {"200": {"description": "The stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              "404": _err("No such game")}},
        },
        "/stats": {
            "get": {
                "summary": "The statistics reports this service can run",
                "responses": {"200": {"description": "Report names and descriptions",
                                      **_json({"type": "array", "items": {"type": "object"}})}}},
        },
        "/stats/{report}": {
            "get": {
                "summary": "Run a named statistics report",
                "description": "Query parameters are the report's filters (see GET /stats).",
                "parameters": [_q("report", "The report's name", {"type": "string"}, where="path",
                                  required=True)],
                "responses": {"200": {"description": "columns and rows",
                                      **_json({"type": "object"})},
                              "400": _err("A bad filter"),
                              "404": _err("No such report"),
                              "501": _err("Statistics are not available in this build")}},
        },
        "/openapi.json": {
            "get": {"summary": "This description",
                    "responses": {"200": {"description": "OpenAPI 3.1", **_json({"type": "object"})}}},
        },
        "/query": {
            "post": {
                "summary": "One reading SQL statement (service token only; time and row limits)",
                "requestBody": {"required": True, **_json({
                    "type": "object", "required": ["sql"],
                    "properties": {"sql": {"type": "string"}, "params": {"type": "object"}}})},
                "responses": {"200": {"description": "columns, types, rows, truncated",
                                      **_json({"type": "object"})},
                              "400": {"description": "refused or failed SQL"},
                              "401": {"description": "not the service token"},
                              "403": {"description": "the service has no token"}}},
        },
        "/health": {
            "get": {"summary": "200 while the service runs",
                    "responses": {"200": {"description": "ok", **_json({"type": "object"})}}},
        },
        "/backup": {
            "post": {"summary": "A consistent copy of the store file (seasalt backup --url)",
                     "description": "Every append answered before the request is in the copy. "
                                    "Headers: X-Seasalt-Events (events in the copy), "
                                    "X-Seasalt-Store (the store's identity: directory, file "
                                    "and write-ahead log as device:inode, and its name).",
                     "security": AUTH,
                     "responses": {"200": {"description": "the DuckDB file",
                                           "content": {"application/octet-stream": {
                                               "schema": {"type": "string",
                                                          "format": "binary"}}}},
                                   "401": _err("A token is needed, or it is wrong")}},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "seasalt-log live service", "version": "1",
                 "description": "Record games of Sea Salt & Paper over HTTP as they are played, "
                                "and read them back. Errors are JSON ErrorBody objects."},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "Needed for writes when the service "
                                                          "runs with a token"}},
        },
    }

