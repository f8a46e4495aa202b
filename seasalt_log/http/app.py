"""The HTTP API (docs/HTTP.md): a thin Starlette face over the library.

Every body is JSON encoded and decoded with msgspec; every error is an HTTP status with an
RFC 9457 problem body (``application/problem+json``: ``type``, ``title``, ``status``,
``detail``, ``instance``, and ``error``, ``rule``, ``reason``, ``index``, ``path``,
``current_seq``, ``expected_seq`` as extension members).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
from typing import Any, cast
from urllib.parse import quote, urlencode

import duckdb
import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ..digits import is_digits
from .. import events as ev
from .. import queries
from ..errors import LogFormatError, SeasaltError, StreamConflictError, UsageError
from ..engine.state import ENDED, State
from ..identifiers import MAX_LINE_BYTES
from ..narration import log_lines
from ..replay import no_round, no_seq, replay, resolve_seat
from ..rescore import rescore
from ..store.backup import StoreIdentity
from ..render import position
from ..turn_frames import turn_frames
from ..view import (SPECTATOR, TABLE, Viewer, hand_scores_seen, redact, seat_viewer,
                    table_view)
from ..web.routes import WEB_ROUTES      # the web pages (docs/HTTP.md, "Web pages")
from .access import Credentials, HostCheck, RateLimit, bearer, origin_host
from .bodies import GameCreated, GameDetail, Health, ReportInfo, StatsReport
from .docs_page import docs_html
from .errors import JSON, ApiError, error_for, etag, resumed_after
from .errors import json_encoder as _json
from .live import MAX_CACHED_GAMES, LiveStore
from .openapi import spec
from .stats import report_list, run_named_report

#: the largest request body accepted by default (a whole game is a few hundred kB at most)
DEFAULT_MAX_BODY = 4 * 1024 * 1024
#: seconds between keep-alive comments on an idle follower stream
KEEPALIVE = 15.0
#: seconds a client may take to send a request body
BODY_TIMEOUT = 30.0
#: at most this many games in one page of GET /games (and rows of a report's page)
MAX_PAGE = 1000
#: at most this many events (or log lines) in one page of a game's events or log
MAX_EVENTS_PAGE = 10_000
#: the request headers a browser may send cross-origin (CORS preflight)
CORS_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Last-Event-ID, Accept"
#: the response headers a cross-origin page may read
CORS_EXPOSE = "ETag, Location, Link, Retry-After, Seasalt-Position"

_EMPTY = State()
JSONL = "application/jsonl"


class AppendBody(msgspec.Struct, forbid_unknown_fields=True):
    """The wrapper form of an append: ``{"expected_seq": N, "events": [...]}``."""

    events: list[msgspec.Raw]
    expected_seq: int | None = None


# ---------------------------------------------------------------- request helpers

def _live(request: Request) -> LiveStore:
    return request.app.state.live


def _header(request: Request, name: bytes) -> str | None:
    """The request's first header ``name`` (lower case), as ``request.headers.get`` gives it,
    without building Starlette's header map (the append path reads four)."""
    for key, value in request.scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message,
                    headers={"WWW-Authenticate": 'Bearer realm="seasalt"'})


def _check_token(request: Request) -> None:
    """A write (or /query) needs the service token; without one (a loopback service), at
    least a JSON Content-Type and a same-origin or allowed Origin, which a cross-site page
    cannot send without the browser asking first (CORS preflight)."""
    creds: Credentials = request.app.state.creds
    if creds.token is not None:
        got = bearer(request.scope["headers"])
        if not creds.is_service(got):
            raise _unauthorized("this service needs its token for writes and /query: send "
                                "'Authorization: Bearer <token>'" if got is None else
                                "wrong token: writes and /query need the service's token "
                                "(a game's table and seat tokens only read)")
        return
    ctype = (_header(request, b"content-type") or "").partition(";")[0].strip().lower()
    if ctype != JSON and not (ctype.startswith("application/") and ctype.endswith("+json")):
        raise ApiError(415, "unsupported_media_type",
                       "writes need 'Content-Type: application/json' on a service without a token")
    origin = _header(request, b"origin")
    if origin is not None and not _same_or_allowed_origin(request, origin):
        raise ApiError(403, "forbidden_origin", f"writes from origin {origin[:100]!r} are not "
                                                "allowed (same origin or --cors-origin only)")


def _same_or_allowed_origin(request: Request, origin: str) -> bool:
    cors = request.app.state.cors
    if origin in cors or "*" in cors:
        return True
    return origin_host(origin) == (_header(request, b"host") or "").strip().lower()


async def _reader(request: Request, gid: str, credential: bytes | None = None) -> Viewer:
    """Who reads game ``gid`` (docs/HTTP.md "Readers and credentials"), narrowed by ``?as=``.

    The service token and the game's table token read everything; a seat token reads that
    seat's view; no credential reads as a spectator. An ended game reads as the table for
    everyone when the service makes ended games public (the default). ``credential``: a
    token given another way than ``Authorization`` (the web pages' cookie)."""
    creds: Credentials = request.app.state.creds
    got = bearer(request.scope["headers"]) if credential is None else credential
    live = _live(request)
    viewer: Viewer | None
    if creds.is_service(got):
        viewer = TABLE
    else:
        players, ended = await live.players(gid)            # UnknownGameError first
        viewer = creds.reader(got, gid, players)
        if viewer is None:
            raise _unauthorized(f"this token is not a credential for game {gid}")
        if ended and request.app.state.public_after_end:
            viewer = TABLE
    who = request.query_params.get("as")
    if who is None:
        return viewer
    events = await live.events(gid)
    try:
        seat = resolve_seat(replay(events[:1]), who) if who != "spectator" else None
    except SeasaltError as exc:
        raise ApiError(400, "bad_request", str(exc)) from None
    wanted = SPECTATOR if seat is None else seat_viewer(seat)
    if viewer.is_table or wanted == viewer or wanted == SPECTATOR:
        return wanted
    raise ApiError(403, "forbidden", f"this credential may not read game {gid} as {who!r}")


async def _body(request: Request) -> bytes:
    """The request body, refused with 413 past the service's limit."""
    limit = request.app.state.max_body
    length = _header(request, b"content-length")
    if length is not None:
        if not is_digits(length):
            raise ApiError(400, "bad_request", "Content-Length is not a number")
        if int(length) > limit:
            raise _too_large(limit)
    if _whole_body_received(request):
        # the server already holds the whole body (a small request comes in one piece
        # with its headers): reading it cannot wait, so it needs no timer
        message = await request.receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()
        body = message.get("body", b"")
        if len(body) > limit:
            raise _too_large(limit)
        if not body.strip():
            raise ApiError(400, "bad_request", "the request has no body (expected JSON)")
        return body
    chunks, size = [], 0
    try:
        async with asyncio.timeout(request.app.state.body_timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise _too_large(limit)
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(408, "timeout", "the request body came too slowly",
                       headers={"Connection": "close"}) from None
    body = b"".join(chunks)
    if not body.strip():
        raise ApiError(400, "bad_request", "the request has no body (expected JSON)")
    return body


def _whole_body_received(request: Request) -> bool:
    """Whether uvicorn has received the request's whole body already (its request cycle
    says no more body is coming) and nobody has read any of it yet; False whenever that
    cannot be told (another server, or ``receive`` wrapped by a middleware)."""
    cycle = getattr(request.receive, "__self__", None)
    return (getattr(cycle, "more_body", True) is False and not request._stream_consumed
            and getattr(cycle, "body", None) is not None)


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", f"the request body is larger than {limit} bytes")


def _int_param(request: Request, name: str, *, minimum: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        if not raw.isascii():
            raise ValueError
        value = int(raw)
    except ValueError:
        raise ApiError(400, "bad_request", f"query parameter {name!r} must be an integer, "
                                           f"not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ApiError(400, "bad_request", f"query parameter {name!r} must be at least {minimum}")
    return value


def _json_response(data: Any, status: int = 200, headers: dict | None = None) -> Response:
    return _JsonResponse(_json.encode(data), status, headers)


class _JsonResponse(Response):
    """``Response(body, status, headers, media_type=JSON)`` for statuses that have a body,
    with the same headers in the same order, made without Starlette's general checks."""

    media_type = JSON

    def __init__(self, body: bytes, status: int, headers: dict | None) -> None:
        self.status_code, self.body, self.background = status, body, None
        raw = [(k.lower().encode("latin-1"), v.encode("latin-1"))
               for k, v in headers.items()] if headers else []
        raw.append((b"content-length", b"%d" % len(body)))
        raw.append((b"content-type", b"application/json"))
        self.raw_headers = raw


def _limit(request: Request, maximum: int) -> int:
    """The page size asked for with ``?limit=`` (default and most: ``maximum``)."""
    limit = _int_param(request, "limit", minimum=1) or maximum
    if limit > maximum:
        raise ApiError(400, "bad_request", f"query parameter 'limit' must be at most {maximum}")
    return limit


def _next_page(request: Request, **params: str) -> dict[str, str]:
    """The ``Link: <...>; rel="next"`` header of a list: this request's URL with
    ``params`` replaced (the next page's cursor)."""
    query = {k: v for k, v in request.query_params.items() if k not in params}
    query.update(params)
    return {"Link": f'<{request.url.path}?{urlencode(query)}>; rel="next"'}


def _validators(seq: int, *vary: str) -> dict[str, str]:
    """The headers of a read of one game: its seq as the ETag, and what else the answer
    depends on (the reader's credential, and ``vary``)."""
    return {"ETag": etag(seq), "Vary": ", ".join(("Authorization", *vary))}


def _not_modified(request: Request, headers: dict[str, str]) -> Response | None:
    """304 when the request's If-None-Match names the ETag in ``headers`` (weak comparison,
    RFC 9110 13.1.2; ``*`` matches any), else None."""
    raw = request.headers.get("if-none-match")
    if raw is None:
        return None
    tag = headers["ETag"]
    for part in raw.split(","):
        part = part.strip()
        if part == "*" or part.removeprefix("W/") == tag:
            return Response(status_code=304, headers=headers)
    return None


_IF_MATCH = re.compile(r'^\s*(?:W/)?"?(\d+)"?\s*$')


def _if_match(request: Request) -> tuple[bool, int | None]:
    """(given, seq) of the If-Match header: ``"N"`` or ``N`` expects seq N, ``*`` any."""
    raw = _header(request, b"if-match")
    if raw is None:
        return False, None
    if raw.strip() == "*":
        return True, None
    m = _IF_MATCH.match(raw)
    if not m:
        raise ApiError(400, "bad_request", f"If-Match must be the game's seq as an entity tag "
                                           f"(e.g. \"12\") or *, not {raw!r}")
    return True, int(m.group(1))


def _decode_event(raw: bytes, index: int | None) -> ev.Event:
    """One event of a request body; a malformed one raises with ``index`` (its place in the
    request) and ``path`` within the event, as the engine's checks of it do."""
    try:
        if len(raw) > MAX_LINE_BYTES:       # what a log line may hold, an event may hold
            raise LogFormatError(f"an event may take at most {MAX_LINE_BYTES:,} bytes of "
                                 f"JSON (a log line's limit); this one takes {len(raw):,}")
        return ev.decode(raw)
    except RecursionError:
        raise ApiError(400, "bad_request", "the event is nested too deeply", index=index) from None
    except LogFormatError as exc:
        exc.index = index                      # type: ignore[attr-defined]
        raise


def parse_append(body: bytes) -> tuple[list[ev.Event], int | None, bool]:
    """The events of an append body and its ``expected_seq`` (given, value).

    A body is one event object, a list of events, or ``{"expected_seq": N, "events": [...]}``.
    """
    head = body.lstrip()[:1]
    try:
        if head == b"[":
            items = msgspec.json.decode(body, type=list[msgspec.Raw])
            expected, given = None, False
        elif head == b"{":
            keys = msgspec.json.decode(body, type=dict[str, msgspec.Raw])
            if "type" in keys:
                return [_decode_event(body, 0)], None, False
            if "events" not in keys:
                raise ApiError(400, "bad_request", "expected an event (an object with a \"type\"), "
                                                   "a list of events, or {\"expected_seq\": N, "
                                                   "\"events\": [...]}")
            wrapper = msgspec.json.decode(body, type=AppendBody)
            items = wrapper.events
            expected, given = wrapper.expected_seq, wrapper.expected_seq is not None
        else:
            raise ApiError(400, "bad_request", "the body is not a JSON object or array")
    except msgspec.ValidationError as exc:
        raise ApiError(400, "bad_request", f"malformed append body: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ApiError(400, "bad_request", f"the body is not valid JSON ({ev.json_error(exc, 'the body')})") from None
    except RecursionError:
        raise ApiError(400, "bad_request", "the body is nested too deeply") from None
    if not items:
        raise ApiError(400, "bad_request", "no events to append")
    events = [_decode_event(raw, i) for i, raw in enumerate(items)]
    return events, expected, given


# ---------------------------------------------------------------- writes

async def post_game(request: Request) -> Response:
    """POST /games: a new game from a ``game_started`` body."""
    _check_token(request)
    body = await _body(request)
    head = body.lstrip()[:1]
    if head != b"{":
        raise ApiError(400, "bad_request", "POST /games takes one game_started object")
    start = _decode_event(body, 0)
    if type(start) is not ev.GameStarted:
        raise ApiError(400, "bad_request", f"POST /games takes a game_started event, not "
                                           f"{ev.TAGS[type(start)]}; append it to "
                                           "/games/{id}/events", index=0)
    result = await _live(request).start_game(start)
    loc = "/games/" + quote(result.game_id, safe="")
    tokens = request.app.state.creds.for_game(result.game_id, len(start.players))
    # every event is one of the union GameCreated's schema names
    data = GameCreated(game_id=result.game_id, seq=result.seq,
                       appended=cast("list[ev.AnyEvent]", result.appended), **tokens)
    return _json_response(data, 201, {"Location": loc, "ETag": etag(result.seq)})


async def post_events(request: Request) -> Response:
    """POST /games/{id}/events: append events if the game is at the expected seq."""
    _check_token(request)
    game_id = request.path_params["game_id"]
    header_given, header_seq = _if_match(request)
    body = await _body(request)
    try:
        events, body_seq, body_given = parse_append(body)
    except LogFormatError as exc:
        exc.locate(game_id=game_id)     # named as the game's own checks name it
        raise
    if header_given and body_given and header_seq is not None and header_seq != body_seq:
        raise ApiError(400, "bad_request", f"If-Match expects seq {header_seq} but the body's "
                                           f"expected_seq is {body_seq}")
    if not header_given and not body_given:
        raise ApiError(428, "precondition_required",
                       "say which seq the game is at: an If-Match header with the seq as an "
                       "entity tag (e.g. If-Match: \"12\"; If-Match: * appends at whatever the "
                       "end is) or {\"expected_seq\": 12, \"events\": [...]}")
    expected = body_seq if body_given else header_seq
    try:
        result = await _live(request).append(game_id, events, expected)
    except StreamConflictError as exc:
        if body_given:              # a stale expected_seq in the body: 409
            raise
        raise ApiError(412, "precondition_failed", f"If-Match failed: {exc}",
                       headers={"ETag": etag(exc.found)}, current_seq=exc.found,
                       expected_seq=exc.expected) from None
    return _json_response(result, 200, {"ETag": etag(result.seq)})


# ---------------------------------------------------------------- reads

async def list_games(request: Request) -> Response:
    """GET /games?player=NAME&players=N&limit=L&cursor=C: one page of games (public data
    only: players, totals, status), a ``Link: <...>; rel="next"`` header when more follow."""
    player = request.query_params.get("player") or None
    players = _int_param(request, "players")
    if players is not None and players not in (2, 3, 4):
        raise ApiError(400, "bad_request", "players must be 2, 3 or 4")
    limit = _limit(request, MAX_PAGE)
    cursor = request.query_params.get("cursor")
    rows = await _live(request).read(lambda s: queries.list_games(s, player=player, players=players))
    start = 0
    if cursor:
        # the cursor is the last game_id of the page before; games are in natural order
        key = queries.natural_key(cursor)
        start = next((i for i, r in enumerate(rows) if queries.natural_key(r.game_id) > key),
                     len(rows))
    page = rows[start:start + limit]
    headers = {}
    if start + limit < len(rows):
        headers = _next_page(request, limit=str(limit), cursor=page[-1].game_id)
    return _json_response(page, headers=headers)


async def get_game(request: Request) -> Response:
    """GET /games/{id}: the game round by round (``seq`` is its last seq), a deck-out
    round's card points and colour bonus as the reader may know them."""
    gid = request.path_params["game_id"]
    viewer = await _reader(request, gid)
    summary = await _live(request).read(lambda s: queries.game_summary(s, gid))
    seq = summary.game.events          # read in the same snapshot as the rounds
    headers = _validators(seq)
    rounds = summary.rounds if viewer.is_table else [_round_seen(r, viewer) for r in summary.rounds]
    data = GameDetail(seq=seq, game=summary.game, rounds=rounds)
    return _not_modified(request, headers) or _json_response(data, headers=headers)


def _round_seen(row: queries.RoundRow, viewer: Viewer) -> queries.RoundRow:
    """A round of the summary as ``viewer`` may know it (the hands' worth hidden as in the
    redacted ``round_scored``)."""
    return msgspec.structs.replace(
        row, card_points=hand_scores_seen(row.ending, viewer, row.card_points),
        color_bonus=hand_scores_seen(row.ending, viewer, row.color_bonus))


def _wants_jsonl(request: Request) -> bool:
    fmt = request.query_params.get("format")
    if fmt is not None:
        if fmt not in ("json", "jsonl"):
            raise ApiError(400, "bad_request", f"format must be json or jsonl, not {fmt!r}")
        return fmt == "jsonl"
    accept = request.headers.get("accept", "")
    return any(t in accept for t in ("application/jsonl", "application/x-ndjson",
                                     "application/x-jsonlines"))


async def _tail(live: LiveStore, gid: str, after: int, viewer: Viewer
                ) -> tuple[list[bytes], int, bool]:
    """(the events after ``after`` as ``viewer`` may see them, JSON; the last seq; ended)."""
    if viewer.is_table:
        return await live.tail(gid, after)
    events, states = await live.history(gid)
    encode = _json.encode
    rows = [encode(redact(events[i], viewer, states[i - 1] if i else _EMPTY, states[i]))
            for i in range(after, len(events))]
    return rows, len(events), bool(states) and states[-1].phase == ENDED


async def get_events(request: Request) -> Response:
    """GET /games/{id}/events?after=N&limit=L[&format=jsonl][&as=SEAT]: the events as the
    reader may see them (redacted for a seat or a spectator); ``after`` is the cursor of
    the next page's ``Link``."""
    gid = request.path_params["game_id"]
    after = _int_param(request, "after", minimum=0) or 0
    limit = _limit(request, MAX_EVENTS_PAGE)
    viewer = await _reader(request, gid)
    rows, head, _ = await _tail(_live(request), gid, after, viewer)
    headers = _validators(head, "Accept")
    if (fresh := _not_modified(request, headers)) is not None:
        return fresh
    if len(rows) > limit:
        rows = rows[:limit]
        headers.update(_next_page(request, limit=str(limit), after=str(after + limit)))
    if _wants_jsonl(request):
        return Response(b"".join(r + b"\n" for r in rows), headers=headers, media_type=JSONL)
    return Response(b"[" + b",".join(rows) + b"]", headers=headers, media_type=JSON)


def _count_rounds(events) -> int:
    return sum(1 for e in events if type(e) is ev.RoundStarted)


def _no_such_point(exc: UsageError) -> ApiError:
    """404 for a well-formed point the game does not have (the library's message says what
    it has); a malformed value is a 400 before it gets here."""
    return ApiError(404, "no_such_point", str(exc))


def _check_round(gid: str, events, rnd: int | None) -> None:
    """404 unless round ``rnd`` (None: no round asked for) has started in the game."""
    n = _count_rounds(events)
    if rnd is not None and not 1 <= rnd <= n:
        raise ApiError(404, "no_such_point", no_round(gid, rnd, n))


async def get_state(request: Request) -> Response:
    """GET /games/{id}/state?round=R&turn=T&seq=N&as=PLAYER"""
    gid = request.path_params["game_id"]
    rnd = _int_param(request, "round")
    turn = _int_param(request, "turn")
    seq = _int_param(request, "seq")
    viewer = await _reader(request, gid)
    live = _live(request)
    events = await live.events(gid)
    if seq is not None and not 1 <= seq <= len(events):
        raise ApiError(404, "no_such_point", no_seq(gid, seq, len(events)),
                       current_seq=len(events))
    _check_round(gid, events, rnd)
    headers = _validators(len(events))
    if (fresh := _not_modified(request, headers)) is not None:
        return fresh
    state = None
    if rnd is None and turn is None:
        state = await live.state_at(gid, seq)
    if state is None:
        try:
            state = await asyncio.to_thread(replay, events, round=rnd, turn=turn, seq=seq,
                                            game_id=gid)
        except UsageError as exc:
            if rnd is None or turn is None or seq is not None:
                raise                   # seq with round or turn, turn without round: 400
            raise _no_such_point(exc) from None     # the round exists: a turn it lacks
    view = table_view(state, viewer)
    headers["Seasalt-Position"] = position(view)
    return _json_response(view, headers=headers)


async def get_log(request: Request) -> Response:
    """GET /games/{id}/log?after=N&limit=L&as=PLAYER: the events in words (``seasalt log``)
    as the reader may see them; the table's lines also carry the events themselves."""
    gid = request.path_params["game_id"]
    after = _int_param(request, "after", minimum=0) or 0
    limit = _limit(request, MAX_EVENTS_PAGE)
    viewer = await _reader(request, gid)
    events = await _live(request).events(gid)
    headers = _validators(len(events))
    if (fresh := _not_modified(request, headers)) is not None:
        return fresh
    lines = await asyncio.to_thread(log_lines, events, game_id=gid,
                                    viewer=None if viewer.is_table else viewer)
    if len(lines) > after + limit:
        headers.update(_next_page(request, limit=str(limit), after=str(after + limit)))
    return _json_response(lines[after:after + limit], headers=headers)


async def get_turns(request: Request) -> Response:
    """GET /games/{id}/turns?round=R&turn=T&as=PLAYER: a round turn by turn (``seasalt
    replay --follow``): each turn's events in words and the table after it, as the reader
    may see them. One round at most, so one page."""
    gid = request.path_params["game_id"]
    rnd = _int_param(request, "round")
    turn = _int_param(request, "turn")
    viewer = await _reader(request, gid)
    events = await _live(request).events(gid)
    _check_round(gid, events, rnd)
    headers = _validators(len(events))
    if (fresh := _not_modified(request, headers)) is not None:
        return fresh
    try:
        frames = await asyncio.to_thread(turn_frames, events, gid, rnd, turn, viewer)
    except UsageError as exc:           # a turn the round lacks, or no round yet
        raise _no_such_point(exc) from None
    return _json_response(frames, headers=headers)


async def get_round_score(request: Request) -> Response:
    """GET /games/{id}/rounds/{round}/score: the round rescored (:func:`rescore`)."""
    gid = request.path_params["game_id"]
    try:
        rnd = int(request.path_params["round"])
    except ValueError:
        raise ApiError(400, "bad_request", "the round must be a number") from None
    viewer = await _reader(request, gid)
    events = await _live(request).events(gid)
    _check_round(gid, events, rnd)
    if not viewer.is_table and not any(
            type(e) is ev.RoundScored and e.round == rnd and e.ending != "deck_out" for e in events):
        # the rescore shows every hand: only once the round's hands were shown (R-VIEW)
        raise ApiError(403, "forbidden", f"round {rnd}'s hands are not shown (the round is not "
                                         "scored yet, or ended in a deck-out): only the table "
                                         "may rescore it")
    headers = _validators(len(events))
    if (fresh := _not_modified(request, headers)) is not None:
        return fresh
    report = await asyncio.to_thread(rescore, events, rnd, game_id=gid)
    return _json_response(report, headers=headers)


async def follow(request: Request) -> Response:
    """GET /games/{id}/follow: server-sent events, one per stored event (``id:`` = seq)."""
    gid = request.path_params["game_id"]
    live = _live(request)
    after = resumed_after(request.headers.get("last-event-id"),
                          _int_param(request, "after", minimum=0) or 0)
    viewer = await _reader(request, gid)                   # 404 before the stream starts
    rows, head, ended = await _tail(live, gid, after, viewer)
    keepalive = request.app.state.keepalive

    async def stream():
        nonlocal rows, ended
        last = after
        yield b"retry: 1000\n\n"
        while True:
            for row in rows:
                last += 1
                yield b"id: %d\ndata: %s\n\n" % (last, row)
            if ended:
                yield b"event: end\ndata: {}\n\n"
                return
            waiter = live.waiter(gid)
            rows, _, ended = await _tail(live, gid, last, viewer)
            if rows or ended:
                continue
            news = await live.wait(waiter, keepalive)
            if news is None:
                return
            if not news:
                yield b": keep-alive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def get_stats(request: Request) -> Response:
    """GET /stats/{report}?...: a named analytics report with its filters."""
    name = request.path_params["report"]
    params = dict(request.query_params)
    limit = _limit(request, MAX_PAGE)
    cursor = params.pop("cursor", None) or "0"
    params.pop("limit", None)
    if not is_digits(cursor):
        raise ApiError(400, "bad_request", f"cursor must be a row number, not {cursor[:40]!r}")
    start = int(cursor)
    result = await _live(request).read(lambda s: run_named_report(s, name, params))
    rows = result.pop("rows")
    headers = {}
    if len(rows) > start + limit:
        headers = _next_page(request, limit=str(limit), cursor=str(start + limit))
    return _json_response(StatsReport(**result, rows=rows[start:start + limit]), headers=headers)


async def list_stats(request: Request) -> Response:
    """GET /stats: the reports this service can run."""
    return _json_response([ReportInfo(**r) for r in await _live(request).read(report_list)])


async def post_query(request: Request) -> Response:
    """POST /query: ``{"sql": "...", "params": {...}}``, one reading statement, for the
    service token only (it may read every hand of every game)."""
    from ..analytics.query import QueryError, QueryRefusedError
    from .sql import QueryBody, run_sql
    creds: Credentials = request.app.state.creds
    if creds.token is None:
        raise ApiError(403, "forbidden", "POST /query needs a service started with --token "
                                         "(the SQL sees every hand of every game)")
    _check_token(request)
    try:
        query = msgspec.json.decode(await _body(request), type=QueryBody)
    except msgspec.DecodeError as exc:
        raise ApiError(400, "bad_request", f"expected {{\"sql\": \"...\"}}: {exc}") from None
    try:
        result = await _live(request).read(lambda s: run_sql(s, query))
    except QueryRefusedError as exc:
        raise ApiError(400, "query_refused", str(exc)) from None
    except QueryError as exc:
        raise ApiError(400, "query_error", str(exc)) from None
    return _json_response(result)


async def openapi(request: Request) -> Response:
    """GET /openapi.json"""
    return _json_response(spec())


@functools.lru_cache(maxsize=1)
def _docs() -> bytes:
    return docs_html(spec()).encode()


async def docs(request: Request) -> Response:
    """GET /docs: the API description as a self-contained web page."""
    return Response(_docs(), media_type="text/html; charset=utf-8")


async def health(request: Request) -> Response:
    """GET /health: 200 ``ok`` while the service runs and writes; 503 ``writer_stopped``
    (the same body) once its writer died: it still reads, but stores nothing more."""
    live = _live(request)
    stopped = live.writer_stopped
    return _json_response(Health(status="writer_stopped" if stopped else "ok",
                                 pid=os.getpid(), batches=live.batches,
                                 appends=live.appends,
                                 writer_seconds=round(live.writer_seconds, 3)),
                          503 if stopped else 200)


async def post_backup(request: Request) -> Response:
    """POST /backup: a consistent copy of the store file (every append answered before it
    is in it), as ``application/octet-stream``; with a token, the token is needed. Headers:
    ``X-Seasalt-Events`` (events in the copy, for the client's check) and ``X-Seasalt-Store``
    (the store's identity, so that a client on the same machine refuses to write the copy
    onto the store). ``seasalt backup DEST --url URL`` is its client."""
    _check_token(request)
    live = _live(request)
    try:
        tmp, events = await live.backup_copy()
    except (OSError, duckdb.Error) as exc:     # a full disk beside the store, a damaged store
        raise ApiError(500, "backup_failed", "the service could not copy the store: "
                       f"{getattr(exc, 'strerror', None) or str(exc).splitlines()[0]}") from None

    async def chunks():
        try:
            with open(tmp, "rb") as fh:
                while block := await asyncio.to_thread(fh.read, 1 << 20):
                    yield block
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    headers = {"Content-Length": str(os.path.getsize(tmp)), "X-Seasalt-Events": str(events),
               "X-Seasalt-Store": StoreIdentity.of(live.path).header()}
    return StreamingResponse(chunks(), media_type="application/octet-stream", headers=headers)


# ---------------------------------------------------------------- the app

def _by_method(**handlers):
    """One endpoint for a path served with several methods (``GET=..., POST=...``), so
    that the path is one route and a 405 names every method it allows (``Allow``)."""
    async def endpoint(request: Request) -> Response:
        return await handlers["GET" if request.method == "HEAD" else request.method](request)
    endpoint.__name__ = "_".join(h.__name__ for h in handlers.values())
    endpoint.__doc__ = "\n".join(h.__doc__ or "" for h in handlers.values())
    return endpoint


ROUTES = [
    Route("/games", _by_method(GET=list_games, POST=post_game), methods=["GET", "POST"]),
    Route("/games/{game_id}", get_game, methods=["GET"]),
    Route("/games/{game_id}/events", _by_method(GET=get_events, POST=post_events),
          methods=["GET", "POST"]),
    Route("/games/{game_id}/state", get_state, methods=["GET"]),
    Route("/games/{game_id}/log", get_log, methods=["GET"]),
    Route("/games/{game_id}/turns", get_turns, methods=["GET"]),
    Route("/games/{game_id}/rounds/{round}/score", get_round_score, methods=["GET"]),
    Route("/games/{game_id}/follow", follow, methods=["GET"]),
    Route("/stats", list_stats, methods=["GET"]),
    Route("/stats/{report}", get_stats, methods=["GET"]),
    Route("/query", post_query, methods=["POST"]),
    Route("/openapi.json", openapi, methods=["GET"]),
    Route("/docs", docs, methods=["GET"]),
    Route("/health", health, methods=["GET"]),
    Route("/backup", post_backup, methods=["POST"]),
]


async def _on_api_error(request: Request, exc: Exception) -> Response:
    return error_for(exc).response(request.url.path)


async def _on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    message = {404: f"no such endpoint: {request.url.path}",
               405: f"{request.method} is not allowed on {request.url.path}"}.get(
                   exc.status_code, str(exc.detail))
    return ApiError(exc.status_code, code, message, headers=exc.headers).response(request.url.path)


async def _on_crash(request: Request, exc: Exception) -> Response:
    return error_for(exc).response(request.url.path)


class _App(Starlette):
    """The Starlette app, with a short way for the busiest request: an append
    (``POST /games/{id}/events``) goes straight to :func:`post_events`, past the routing
    table and the middleware, and its errors become the responses the exception handlers
    give (:func:`error_for`); every other request takes the usual way."""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            refused = self._guard(scope)
            if refused is not None:
                await refused(scope, receive, send)
                return
            if self.state.cors:
                send = self._cors_send(scope, send)
        if scope["type"] == "http" and scope["method"] == "POST":
            path: str = scope["path"]
            if (path.startswith("/games/") and path.endswith("/events")
                    and not scope.get("root_path")):
                game_id = path[7:-7]
                if game_id and "/" not in game_id:
                    await self._append(scope, receive, send, game_id)
                    return
        await super().__call__(scope, receive, send)

    def _guard(self, scope) -> Response | None:
        """The checks every request passes first: a Host this service listens as (no DNS
        rebinding), the client's rate, and CORS preflights (answered here)."""
        state = self.state
        host, origin, preflight = None, None, False
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"access-control-request-method":
                preflight = True
        if host is None or not state.hosts.allows(host):
            return ApiError(421 if host else 400, "bad_host",
                            f"this service does not answer to Host {(host or '')[:100]!r} "
                            "(see --allowed-host)").response(scope["path"])
        if state.rate is not None and scope.get("client"):
            wait = state.rate.take(scope["client"][0])
            if wait:
                return ApiError(429, "too_many_requests", "too many requests from this client",
                                headers={"Retry-After": str(max(1, round(wait)))}
                                ).response(scope["path"])
        if preflight and scope["method"] == "OPTIONS" and origin is not None:
            if not _cors_allows(state.cors, origin):
                return ApiError(403, "forbidden_origin",
                                f"cross-origin requests from {origin[:100]!r} are not allowed "
                                "(see --cors-origin)").response(scope["path"])
            return Response(status_code=204, headers={
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
                "Access-Control-Allow-Headers": CORS_HEADERS,
                "Access-Control-Max-Age": "600", "Vary": "Origin"})
        return None

    def _cors_send(self, scope, send):
        """``send`` adding the CORS headers when the request's Origin is allowed."""
        origin = next((v.decode("latin-1") for n, v in scope["headers"] if n == b"origin"), None)
        if origin is None or not _cors_allows(self.state.cors, origin):
            return send
        extra = [(b"access-control-allow-origin", origin.encode("latin-1")),
                 (b"access-control-expose-headers", CORS_EXPOSE.encode()), (b"vary", b"Origin")]

        async def cors_send(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)
        return cors_send

    async def _append(self, scope, receive, send, game_id: str) -> None:
        scope["app"] = self
        scope["path_params"] = {"game_id": game_id}
        try:
            response = await post_events(Request(scope, receive))
        except (ApiError, SeasaltError) as exc:
            response = error_for(exc).response(scope["path"])
        except Exception as exc:
            # as Starlette's outermost handler does: answer 500, then let the server log it
            await error_for(exc).response(scope["path"])(scope, receive, send)
            raise
        await response(scope, receive, send)


def _cors_allows(cors: tuple[str, ...], origin: str) -> bool:
    return origin in cors or "*" in cors


def create_app(store_path, token: str | None = None, max_body: int = DEFAULT_MAX_BODY, *,
               keepalive: float = KEEPALIVE, live_games: int = MAX_CACHED_GAMES,
               host: str = "127.0.0.1", allowed_hosts: tuple[str, ...] = (),
               cors_origins: tuple[str, ...] = (), public_after_end: bool = True,
               rate_limit: float | None = None, body_timeout: float = BODY_TIMEOUT) -> Starlette:
    """The ASGI app of the live service over the store at ``store_path``.

    The store is opened when the app starts (ASGI lifespan) and stays open, with this
    process its only writer, until the app stops. With ``token`` (any UTF-8 text), every
    write needs ``Authorization: Bearer <token>`` and that token reads everything; without
    it, writes need a JSON Content-Type and a same-origin or allowed Origin. Bodies larger
    than ``max_body`` bytes get 413. ``live_games``: games kept in memory for fast appends
    (see :data:`MAX_CACHED_GAMES`). ``host`` (the address listened on) and
    ``allowed_hosts``: the Host headers answered. ``cors_origins``: origins allowed
    cross-origin (``*`` any; none by default). ``public_after_end``: an ended game reads
    in full for everyone. ``rate_limit``: requests a second per client address (None: no
    limit). ``body_timeout``: seconds a request body may take.
    """
    live = LiveStore(store_path, max_cached_games=live_games)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await live.start()
        try:
            yield
        finally:
            await live.close()

    app = _App(routes=ROUTES + WEB_ROUTES, lifespan=lifespan, exception_handlers={
        ApiError: _on_api_error, SeasaltError: _on_api_error, HTTPException: _on_http_error,
        Exception: _on_crash})
    app.state.live = live
    app.state.token = token or None
    app.state.creds = Credentials(token or None)
    app.state.hosts = HostCheck(host, allowed_hosts)
    app.state.cors = tuple(cors_origins)
    app.state.public_after_end = public_after_end
    app.state.reader = _reader              # the web pages read with the same rules
    app.state.rate = RateLimit(rate_limit) if rate_limit else None
    app.state.body_timeout = body_timeout
    app.state.max_body = max_body
    app.state.keepalive = keepalive
    return app
