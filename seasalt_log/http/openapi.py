"""The OpenAPI 3.1 description served at ``/openapi.json`` (and read by the ``/docs`` page).

The operations are written here; every body schema is generated from the msgspec types the
handlers encode and decode (events, append results, game rows, views, log lines, turn
frames, round reports, the bodies of :mod:`.bodies`, problems), so they cannot drift from
the code.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from .. import events as ev
from ..queries import GameRow
from ..narration import LogLine
from ..rescore import RoundReport
from ..service import AppendResult
from ..turn_frames import TurnFrame
from ..view import TableView
from .bodies import (AppendRequest, GameCreated, GameDetail, Health, Problem, QueryResult,
                     ReportInfo, StatsReport)
from .problems import PROBLEM_JSON, TITLES
from .sql import QueryBody

JSON = "application/json"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict) -> dict:
    return {"content": {JSON: {"schema": schema}}}


def _err(description: str) -> dict:
    return {"description": description,
            "content": {PROBLEM_JSON: {"schema": _ref("Problem")}}}


def _q(name: str, description: str, schema: dict | None = None, *, where: str = "query",
       required: bool = False) -> dict:
    return {"name": name, "in": where, "required": required, "description": description,
            "schema": schema or {"type": "integer"}}


def _h(description: str) -> dict:
    return {"description": description, "schema": {"type": "string"}}


GAME_ID = _q("game_id", "The game id", {"type": "string"}, where="path", required=True)
AS = _q("as", "Read as this player (name or seat) or `spectator`; the table may ask for any "
              "view, a player only for their own", {"type": "string"})
AFTER = _q("after", "Only what follows this seq; the cursor of the next page",
           {"type": "integer", "minimum": 0})
IF_NONE_MATCH = _q("If-None-Match", "The ETag of a copy the client holds: 304 while the game "
                                    "has not changed", {"type": "string"}, where="header")
#: a credential, or none (a spectator's reads)
AUTH: list[dict[str, list[str]]] = [{"bearer": []}, {}]
WRITE_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]


def _limit(most: int) -> dict:
    return _q("limit", f"At most this many items (default and most: {most:,})",
              {"type": "integer", "minimum": 1, "maximum": most})


PAGE_HEADERS = {"Link": _h('`<...>; rel="next"`: the next page, when more follow')}
READ_HEADERS = {"ETag": _h("The game's seq, quoted"),
                "Vary": _h("Authorization: the answer depends on the reader")}
NOT_MODIFIED = {"description": "Not modified: the game's seq is the If-None-Match ETag",
                "headers": {"ETag": _h("The game's seq, quoted")}}
READ_ERRORS = {"400": _err("A bad parameter, or an unknown player in `as`"),
               "401": _err("A token that is no credential for this game"),
               "403": _err("`as` asks for more than this reader may see"),
               "404": _err("No such game")}


def _read(summary: str, description: str, params: list, schema: dict, *,
          paged: bool = False, extra: dict | None = None) -> dict:
    """A read of one game: ETag, If-None-Match and 304, the reader's credential."""
    ok = {"description": "The answer, as this reader may see it", **_json(schema),
          "headers": {**READ_HEADERS, **(PAGE_HEADERS if paged else {})}}
    return {"get": {"summary": summary, "description": description, "security": AUTH,
                    "parameters": [GAME_ID, *params, IF_NONE_MATCH],
                    "responses": {"200": ok, "304": NOT_MODIFIED, **READ_ERRORS,
                                  **(extra or {})}}}


@functools.lru_cache(maxsize=1)
def spec() -> dict[str, Any]:
    """The whole description, as a dict ready to encode."""
    types = [ev.AnyEvent, ev.GameStarted, AppendResult, AppendRequest, GameCreated, GameRow,
             GameDetail, TableView, LogLine, TurnFrame, RoundReport, ReportInfo, StatsReport,
             QueryBody, QueryResult, Health, Problem]
    _, components = msgspec.json.schema_components(types,
                                                   ref_template="#/components/schemas/{name}")
    # every field of a game row is sent; the defaults only read an older service's rows
    components["GameRow"]["required"] = list(components["GameRow"]["properties"])
    any_event = {"oneOf": [_ref(t.__name__) for t in ev.EVENT_TYPES],
                 "discriminator": {"propertyName": "type"}}
    components["AnyEvent"] = any_event
    components["Event"] = any_event            # a log line's event is any event
    _seat_hand = {"type": "object", "required": ["seat", "hand"], "properties": {
        "seat": {"type": "integer"}, "hand": {"type": "array", "items": {"type": "string"}}}}
    components["RedactedEvent"] = {
        "description": "An event as a player or a spectator may see it (LOG_FORMAT.md, "
                       "\"Redacted events\"): each card the reader did not see is null in "
                       "its place; `shown` lists the hands shown to the reader by this event; "
                       "the others' copy of `swimmers_played` says whether a swap took place "
                       "(`swapped`), the player's names the hand the player looked at "
                       "(`looked_at`).",
        "type": "object", "required": ["type"], "properties": {
            "type": {"type": "string"},
            "shown": {"type": "array", "items": _seat_hand},
            "swapped": {"type": "boolean"},
            "looked_at": _seat_hand}}
    append_body = {"oneOf": [_ref("AnyEvent"), {"type": "array", "items": _ref("AnyEvent"),
                                                "minItems": 1}, _ref("AppendRequest")]}
    write_errors = {
        "400": _err("Malformed JSON, an unknown field or type, a bad card code (LOG-FORMAT)"),
        "401": _err("A token is set and the request has none, or a wrong one"),
        "403": _err("A write from an origin that is not allowed"),
        "413": _err("The body is larger than the service's limit"),
        "415": _err("A write without a JSON Content-Type on a service without a token"),
        "503": _err("The service is stopping, or its writer stopped on an internal error "
                    "(writer_stopped: no more writes until it restarts)"),
    }
    events_or_redacted = {"type": "array", "items": {"anyOf": [_ref("AnyEvent"),
                                                               _ref("RedactedEvent")]}}
    paths: dict[str, Any] = {
        "/games": {
            "get": {
                "summary": "List stored games (public information)",
                "parameters": [_q("player", "Only games with this player name", {"type": "string"}),
                               _q("players", "Only games with this many players",
                                  {"type": "integer", "minimum": 2, "maximum": 4}),
                               _limit(1000),
                               _q("cursor", "The last game id of the page before (from Link)",
                                  {"type": "string"})],
                "responses": {"200": {"description": "One page of games, in natural id order",
                                      **_json({"type": "array", "items": _ref("GameRow")}),
                                      "headers": PAGE_HEADERS},
                              "400": _err("A bad filter or limit")}},
            "post": {
                "summary": "Start a new game",
                "description": "The body is one game_started event. Without a game_id the "
                               "store derives one from the content. The answer's Location "
                               "names the game; it also carries the game's table_token and "
                               "seat_tokens.",
                "security": WRITE_AUTH,
                "requestBody": {"required": True, **_json(_ref("GameStarted"))},
                "responses": {
                    "201": {"description": "Stored", **_json(_ref("GameCreated")),
                            "headers": {"Location": _h("/games/{id}"),
                                        "ETag": _h("The game's seq, quoted")}},
                    **write_errors,
                    "409": _err("A game with this id exists: error game_exists (current_seq "
                                "is its seq)"),
                    "422": _err("Refused by the rules")}},
        },
        "/games/{game_id}": _read("One game round by round, as this reader may see it",
                                  "As `seasalt show --json`. Public but for a deck-out "
                                  "round's `card_points` and `color_bonus`: nobody reveals "
                                  "(R-DECKOUT), so a player sees only their own, a spectator "
                                  "none (null).", [AS], _ref("GameDetail")),
        "/games/{game_id}/events": {
            **_read("The stored events, as this reader may see them",
                    "Every event with seq > after, derived events included: whole for the "
                    "table, redacted for a player or a spectator. JSON array by default; JSON "
                    "Lines (for the table the bytes of `seasalt export`) with format=jsonl or "
                    "Accept: application/jsonl.",
                    [AFTER, _limit(10_000), AS,
                     _q("format", "json (default) or jsonl", {"enum": ["json", "jsonl"]})],
                    events_or_redacted, paged=True),
            "post": {
                "summary": "Append events",
                "description": "The body is one event, a list of events, or {\"expected_seq\": N, "
                               "\"events\": [...]}. The expected seq (the game's seq before the "
                               "append) comes from If-Match (\"N\", or * for whatever it is) or "
                               "expected_seq. Every event is checked by the engine as an import "
                               "does; derived events are added. Nothing is stored unless every "
                               "event is legal. The answer lists every event stored, derived "
                               "ones included. Derived events the service already added (the "
                               "request starts with them) are taken as stored if equal, and "
                               "refused (422, R-DERIVED) if not.",
                "security": WRITE_AUTH,
                "parameters": [GAME_ID, _q("If-Match", "The expected seq as an entity tag, "
                                                       "e.g. \"12\"; * for any",
                                           {"type": "string"}, where="header")],
                "requestBody": {"required": True, **_json(append_body)},
                "responses": {
                    "200": {"description": "Stored", **_json(_ref("AppendResult")),
                            "headers": {"ETag": _h("The game's seq after the append")}},
                    **write_errors,
                    "404": _err("No such game"),
                    "409": _err("The body's expected_seq is stale: error conflict "
                                "(current_seq is the game's seq now)"),
                    "412": _err("If-Match failed: the game is not at that seq (current_seq "
                                "says where it is)"),
                    "422": _err("Refused by the rules: rule id, reason, index of the event"),
                    "428": _err("No expected seq given"),
                    "507": _err("The disk is full: nothing was stored")}},
        },
        "/games/{game_id}/state": _read(
            "The table at one point of the game",
            "The same states as `seasalt replay`, as this reader may see them (RULES.md §7): "
            "hidden hands and the deck order are null.",
            [_q("round", "Round R (with turn: after turn T of round R; alone: after the "
                         "round's last event)"),
             _q("turn", "Turn T of the round (0: right after round_started)"),
             _q("seq", "After the N-th event (1 = game_started)"), AS],
            _ref("TableView"),
            extra={"400": _err("A bad parameter (not an integer, a seq with a round or turn, "
                               "a turn without its round), or an unknown player in `as`"),
                   "404": _err("No such game, or no such point of it (round, turn or seq)")}),
        "/games/{game_id}/log": _read(
            "The events in words (`seasalt log`), as this reader may see them",
            "One line per event with its seq, round and turn; the table's lines also carry "
            "the event itself.",
            [AFTER, _limit(10_000), AS], {"type": "array", "items": _ref("LogLine")},
            paged=True),
        "/games/{game_id}/turns": _read(
            "A round turn by turn (`seasalt replay --follow`)",
            "Each turn's events in words and the table after it, as this reader may see them; "
            "one round, so one page.",
            [_q("round", "The round (default: the one in play, or the last)"),
             _q("turn", "From this turn on"), AS],
            {"type": "array", "items": _ref("TurnFrame")},
            extra={"404": _err("No such game, round or turn (or no round has started)")}),
        "/games/{game_id}/rounds/{round}/score": _read(
            "A round rescored by today's engine, next to what was stored",
            "As `seasalt rescore --json`. It shows every hand, so a player or a spectator may "
            "read it only once the round's hands were shown (scored, not a deck-out).",
            [_q("round", "The round", where="path", required=True)], _ref("RoundReport"),
            extra={"403": _err("The round's hands were not shown (only the table may read it)"),
                   "404": _err("No such game or round")}),
        "/games/{game_id}/follow": {
            "get": {
                "summary": "Follow a game as it is played (server-sent events)",
                "description": "text/event-stream: one message per stored event, `id:` its seq "
                               "and `data:` its JSON (redacted as for `events`), from seq "
                               "after+1 (or Last-Event-ID+1) on, each sent as soon as it is "
                               "committed. After game_ended an `end` event closes the stream. "
                               "Comments keep an idle stream alive.",
                "security": AUTH,
                "parameters": [GAME_ID, _q("after", "Start after this seq (default 0)"), AS,
                               _q("Last-Event-ID", "Resume after this seq", {"type": "string"},
                                  where="header")],
                "responses": {"200": {"description": "The stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              **READ_ERRORS}},
        },
        "/stats": {
            "get": {
                "summary": "The statistics reports this service can run",
                "responses": {"200": {"description": "Report names, descriptions and filters",
                                      **_json({"type": "array", "items": _ref("ReportInfo")})}}},
        },
        "/stats/{report}": {
            "get": {
                "summary": "Run a named statistics report (public information)",
                "parameters": [_q("report", "The report's name", {"type": "string"}, where="path",
                                  required=True),
                               _q("player", "Only this player's games (and rows)", {"type": "string"}),
                               _q("players", "Only games of this many players",
                                  {"type": "integer", "minimum": 2, "maximum": 4}),
                               _limit(1000),
                               _q("cursor", "The first row of the page (from Link)",
                                  {"type": "string", "pattern": "^[0-9]+$"})],
                "responses": {"200": {"description": "One page of the report's rows",
                                      **_json(_ref("StatsReport")), "headers": PAGE_HEADERS},
                              "400": _err("A bad filter, limit or cursor"),
                              "404": _err("No such report"),
                              "503": _err("The report ran past its time or memory limit")}},
        },
        "/query": {
            "post": {
                "summary": "One reading SQL statement (service token only; time and row limits)",
                "security": WRITE_AUTH,
                "requestBody": {"required": True, **_json(_ref("QueryBody"))},
                "responses": {"200": {"description": "The result", **_json(_ref("QueryResult"))},
                              "400": _err("Refused or failing SQL"),
                              "401": _err("Not the service token"),
                              "403": _err("The service has no token")}},
        },
        "/openapi.json": {
            "get": {"summary": "This description",
                    "responses": {"200": {"description": "OpenAPI 3.1", **_json({"type": "object"})}}},
        },
        "/docs": {
            "get": {"summary": "This description as a web page (self-contained HTML)",
                    "responses": {"200": {"description": "HTML",
                                          "content": {"text/html": {"schema": {"type": "string"}}}}}},
        },
        "/health": {
            "get": {"summary": "200 while the service runs and writes",
                    "responses": {"200": {"description": "ok", **_json(_ref("Health"))},
                                  "503": {"description": "writer_stopped: the writer died; "
                                                         "reads go on, appends are refused",
                                          **_json(_ref("Health"))}}},
        },
        "/backup": {
            "post": {"summary": "A consistent copy of the store file (seasalt backup --url)",
                     "description": "Every append answered before the request is in the copy. "
                                    "Headers: X-Seasalt-Events (events in the copy), "
                                    "X-Seasalt-Store (the store's identity: directory, file "
                                    "and write-ahead log as device:inode, and its name).",
                     "security": WRITE_AUTH,
                     "responses": {"200": {"description": "the DuckDB file",
                                           "content": {"application/octet-stream": {
                                               "schema": {"type": "string",
                                                          "format": "binary"}}}},
                                   "401": _err("A token is needed, or it is wrong"),
                                   "500": _err("The copy failed")}},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "seasalt-log live service", "version": "1",
                 "description": "Record games of Sea Salt & Paper over HTTP as they are played, "
                                "and read them back, each reader seeing what RULES.md §7 lets "
                                "it see. Every error is an RFC 9457 problem "
                                "(application/problem+json); its `type` is one of "
                                + ", ".join(f"`/docs#{code}`" for code in TITLES) + "."},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "The service token (writes, "
                                                          "/query, every game), a game's "
                                                          "table token or a seat token"}},
        },
    }
