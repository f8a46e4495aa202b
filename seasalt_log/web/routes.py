"""The web app's routes (docs/HTTP.md, "Web pages"), mounted beside the JSON API.

Pages read through the same :class:`~seasalt_log.http.live.LiveStore` as the API, and a
game's reader is decided by the API's own rules (the table, a seat, or a spectator, from
the game's token kept in a cookie, narrowed by ``?as=``). A game page carries its frames
computed on the server for that reader, so a player's or a spectator's page, and the live
stream it listens to, never carry a card that reader could not see.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any
from urllib.parse import quote, unquote

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from .. import queries
from ..cards import ALL_CODES, suggest
from ..digits import is_digits
from ..errors import CardCodeError, SeasaltError, UnknownGameError
from ..hand import score_hand, unknown_event
from ..http.errors import ApiError, resumed_after
from ..http.stats import FILTERS, report_list, run_named_report
from ..view import Viewer
from . import pages
from .timeline import frame_set

_json = msgspec.json.Encoder(enc_hook=str, decimal_format="number")


def _error_page(status: int, message: str, gid: str | None = None) -> HTMLResponse:
    title = {400: "Bad request", 401: "Not a credential", 403: "Not allowed",
             404: "Not found"}.get(status, "Error")
    body = f'<h1>{title}</h1><p class="err" role="alert">{pages.escape(message)}</p>'
    if gid is not None and status in (401, 403):
        path = pages.escape(_game_path(gid))
        body += (f'<p><a href="{path}">The game as your credential shows it</a> · '
                 f'<a href="{path}?token=">Forget this game\'s token</a></p>')
    return HTMLResponse(pages.layout(title, body, viewer=False), status)


def _page(handler):
    """Answer a page's errors as an HTML page (404 for an unknown game, the API's status
    for an API error, 400 for any other bad input)."""
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except UnknownGameError as exc:
            return _error_page(404, str(exc))
        except SeasaltError as exc:
            return _error_page(400, str(exc))
        except ApiError as exc:
            return _error_page(exc.status, exc.message, request.path_params.get("game_id"))
    wrapped.__doc__ = handler.__doc__
    return wrapped


def _int(request: Request, name: str, default: int | None = None, *,
         minimum: int = 0) -> int | None:
    """Query parameter ``name`` as a whole number of at least ``minimum`` (``default`` when
    absent or empty); anything else is refused as the API refuses it, never read as another."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not is_digits(raw):
        raise SeasaltError(f"{name} must be a whole number, not {raw[:40]!r}")
    if int(raw) < minimum:
        raise SeasaltError(f"{name} must be at least {minimum}, not {raw!r}")
    return int(raw)


async def games(request: Request) -> Response:
    """GET /: the stored games, filtered, sorted and paged (a page past the last: 404, a
    page that says so and links the last one)."""
    q = request.query_params
    player = q.get("player") or None
    players = _int(request, "players")
    if players is not None and players not in (2, 3, 4):
        raise SeasaltError("players must be 2, 3 or 4")
    status = q.get("status") or None
    if status not in (None, "ended", "in_progress"):
        raise SeasaltError(f"status must be ended or in_progress, not {status!r}")
    sort = q.get("sort") or "id"
    if sort not in pages.GAME_SORTS:
        raise SeasaltError(f"sort must be one of {', '.join(pages.GAME_SORTS)}, not {sort!r}")
    order = q.get("order") or "asc"
    if order not in ("asc", "desc"):
        raise SeasaltError(f"order must be asc or desc, not {order!r}")
    desc = order == "desc"
    page = _int(request, "page", 1, minimum=1) or 1
    ruleset = q.get("ruleset") or None
    if ruleset not in (None, *pages.RULESET_FILTERS):
        raise SeasaltError(f"ruleset must be one of {', '.join(pages.RULESET_FILTERS)}, "
                           f"not {ruleset!r}")
    rows = await request.app.state.live.read(
        lambda s: queries.list_games(s, player=player, players=players))
    if status is not None:
        rows = [g for g in rows if (g.status == "ended") == (status == "ended")]
    if ruleset is not None:
        rows = [g for g in rows if ruleset in (g.ruleset, g.event_setting or "no-events")]
    if sort != "id":                      # list_games is in natural id order already
        key = {"rounds": lambda g: g.rounds_played, "events": lambda g: g.events,
               "status": lambda g: g.status}[sort]
        rows = sorted(rows, key=key)
    if desc:
        rows = rows[::-1]
    start = (page - 1) * pages.PAGE_SIZE
    html = pages.games_page(rows[start:start + pages.PAGE_SIZE], player=player, players=players,
                            status=status, sort=sort, desc=desc, page=page, total=len(rows),
                            ruleset=ruleset)
    return HTMLResponse(html, 404 if page > pages.page_count(len(rows)) else 200)


#: how many (game, viewer) frame sets an app keeps
CACHED_VIEWS = 32

#: the cookie a page keeps a game's credential in (HttpOnly, for that game's pages only)
COOKIE = "seasalt_token"


def _game_path(gid: str) -> str:
    return "/play/" + pages.quote(gid, safe="")


def _cookie_credential(request: Request) -> bytes | None:
    """The game's credential the browser holds (``?token=`` traded for a cookie)."""
    raw = request.cookies.get(COOKIE)
    return unquote(raw).encode("utf-8") if raw else None


async def _page_reader(request: Request, gid: str, *, narrow: bool = True) -> Viewer:
    """Who reads this game's page: the API's rules exactly (its reader function, kept in
    ``app.state.reader``), with the credential from ``Authorization`` or, for a browser, the
    game's cookie; ``narrow``: with ``?as=`` applied (else the reader the credential names,
    whose views a page lists)."""
    if not narrow:
        request = Request({**request.scope, "query_string": b""}, request.receive)
    return await request.app.state.reader(request, gid, _cookie_credential(request))


async def _game_data(app, gid: str, viewer: Viewer, after: int = 0) -> tuple[Any, ...]:
    """(the events, the frames after the first ``after``, the same as changes, the round
    reports) of game ``gid`` as ``viewer`` sees it. The frame set made for a shorter start
    of the game (a live game's page, the request before) is extended, not made anew: the
    store is append-only, so what was made for the first N events stays right."""
    events = await app.state.live.events(gid)
    key = (gid, viewer)
    cache = getattr(app.state, "web_frames", None)
    if cache is None:
        cache = app.state.web_frames = OrderedDict()
    fs = cache.get(key)
    if fs is not None:
        cache.move_to_end(key)
    if fs is None or len(fs.frames) != len(events):
        prev = fs if fs is not None and len(fs.frames) < len(events) else None
        fs = cache[key] = await asyncio.to_thread(frame_set, events, viewer, game_id=gid,
                                                  prev=prev)
        while len(cache) > CACHED_VIEWS:
            cache.popitem(last=False)
    return events, fs.frames[after:], fs.changes[after:], fs.reports


def _trade_token(request: Request, gid: str, token: str) -> Response:
    """``?token=T``: keep T in an HttpOnly cookie for this game's pages and reload without
    it (the token leaves the address bar and the history); an empty T forgets it."""
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    target = _game_path(gid) + ("?" + pages.urlencode(rest) if rest else "")
    response = RedirectResponse(target, 303)
    path = _game_path(gid)
    if token:
        response.set_cookie(COOKIE, quote(token, safe=""), path=path, httponly=True,
                            samesite="strict")
    else:
        response.delete_cookie(COOKIE, path=path, httponly=True, samesite="strict")
    return response


async def game(request: Request) -> Response:
    """GET /play/{game_id}?as=PLAYER: score sheet, chart and replay viewer, as the reader's
    credential lets them see the game (``?token=T`` trades a game token for a cookie)."""
    gid = request.path_params["game_id"]
    live = request.app.state.live
    token = request.query_params.get("token")
    if token is not None:
        if token:                             # a token that names nobody: 401 now, no cookie
            await request.app.state.reader(request, gid, token.encode("utf-8"))
        return _trade_token(request, gid, token)
    reader = await _page_reader(request, gid)
    base = await _page_reader(request, gid, narrow=False)
    summary = await live.read(lambda s: queries.game_summary(s, gid))
    _, _, fr, reports = await _game_data(request.app, gid, reader)
    stream = None
    if summary.game.status != "ended":
        stream = _game_path(gid) + "/live"
        if request.query_params.get("as"):
            stream += "?" + pages.urlencode({"as": request.query_params["as"]})
    data = {"game_id": gid, "frames": fr, "reports": reports, "live": stream}
    return HTMLResponse(pages.game_page(summary.game, pages.score_sheet(summary), data,
                                        viewer=reader, reader=base,
                                        token_held=_cookie_credential(request) is not None),
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


async def game_live(request: Request) -> Response:
    """GET /play/{game_id}/live?as=PLAYER&after=N: server-sent events, each a JSON
    ``{"frames", "reports", "sheet"}`` with the frames after the last one sent (as the
    reader may see them), the round reports and, when a round was scored, the score sheet."""
    gid = request.path_params["game_id"]
    live = request.app.state.live
    # a reconnecting page goes on after the last message it got (its address keeps `after`)
    after = resumed_after(request.headers.get("last-event-id"), _int(request, "after", 0) or 0)
    reader = await _page_reader(request, gid)        # unknown game, player or token: fail now
    keepalive = request.app.state.keepalive

    async def stream():
        nonlocal after
        yield b"retry: 1000\n\n"
        while True:
            waiter = live.waiter(gid)                # taken before reading: no append missed
            events = await live.events(gid)
            if len(events) > after:
                _, new, fr, reports = await _game_data(request.app, gid, reader, after)
                sheet = None
                if any(f["type"] in ("round_scored", "game_ended") for f in new):
                    summary = await live.read(lambda s: queries.game_summary(s, gid))
                    sheet = pages.score_sheet(summary)
                after = len(events)
                body = _json.encode({"frames": fr, "reports": reports, "sheet": sheet})
                yield b"id: %d\ndata: %s\n\n" % (after, body)
                if new and new[-1]["phase"] == "ended":
                    yield b"event: end\ndata: {}\n\n"
                    return
            news = await live.wait(waiter, keepalive)
            if news is None:
                return
            if not news:
                yield b": keep-alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def reports(request: Request) -> Response:
    """GET /reports: the named reports."""
    return HTMLResponse(pages.reports_page(await request.app.state.live.read(report_list)))


async def report(request: Request) -> Response:
    """GET /reports/{name}?player=NAME&players=N: one report, its chart and filters."""
    name = request.path_params["name"]
    # an empty filter (the form's "any") is no filter; an unknown one is refused by the report
    params = {k: v for k, v in request.query_params.items() if v or k not in FILTERS}
    live = request.app.state.live
    result = await live.read(lambda s: run_named_report(s, name, params))
    return HTMLResponse(pages.report_page(result, params.get("player"), params.get("players"),
                                          await live.read(report_list)))


async def calculator(request: Request) -> Response:
    """GET /calculator?CODE=N...&laid=A,B C,D,S&ruleset=R&event=E...&face_down=SHELL...:
    the breakdown ``seasalt score`` gives."""
    q = request.query_params
    counts: dict[str, int] = {}
    for code in ALL_CODES:
        n = _int(request, code, 0) or 0
        if n:
            counts[code] = n
    laid = q.get("laid", "").strip()
    ruleset = q.get("ruleset") or "base"
    events = [e for e in q.getlist("event") if e]
    face_down = q.get("face_down", "").strip()
    result, error = None, _calculator_input_error(q, ruleset, events)
    if error is None and (counts or laid or face_down):
        try:
            result = score_hand([c for c, n in counts.items() for _ in range(n)], laid.split(),
                                ruleset=ruleset, events=events, face_down=face_down.split())
        except SeasaltError as exc:
            error = str(exc)
    return HTMLResponse(pages.calculator_page(counts, laid, result, error, ruleset=ruleset,
                                              events=events, face_down=face_down),
                        400 if error else 200)


#: the calculator's parameters besides the card codes
_CALCULATOR_PARAMS = frozenset({"laid", "ruleset", "event", "face_down"})


def _calculator_input_error(q, ruleset: str, events: list[str]) -> str | None:
    """What is wrong with the calculator's parameters themselves (an unknown card code,
    ruleset or event, each refused even before there is a hand to score), or None."""
    for name in q.keys():
        if name not in _CALCULATOR_PARAMS and name not in ALL_CODES:
            if ":" not in name:
                return (f"unknown parameter {name!r}: the calculator takes card codes, "
                        f"{', '.join(sorted(_CALCULATOR_PARAMS))}")
            return str(CardCodeError(name, suggest(name, codes=ALL_CODES)))
    if ruleset not in pages.RULESETS:
        return f"ruleset must be {' or '.join(pages.RULESETS)}, not {ruleset!r}"
    return unknown_event(events)


#: the pages; :func:`seasalt_log.http.app.create_app` adds them to the API's routes
WEB_ROUTES = [
    Route("/", _page(games), methods=["GET"]),
    Route("/play/{game_id}", _page(game), methods=["GET"]),
    Route("/play/{game_id}/live", _page(game_live), methods=["GET"]),
    Route("/reports", _page(reports), methods=["GET"]),
    Route("/reports/{name}", _page(report), methods=["GET"]),
    Route("/calculator", _page(calculator), methods=["GET"]),
]
