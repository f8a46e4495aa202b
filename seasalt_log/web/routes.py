"""The web app's routes (docs/HTTP.md, "Web pages"), mounted beside the JSON API.

Pages read through the same :class:`~seasalt_log.http.live.LiveStore` as the API. A game
page carries its frames computed on the server for its viewer (``?as=PLAYER``), so a
player's page, and the live stream it listens to, never carry a card that player could not
see.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from .. import queries
from ..errors import SeasaltError, UnknownGameError
from ..hand import score_hand
from ..http.errors import ApiError
from ..http.stats import report_list, run_named_report
from . import pages
from .timeline import deltas, frames, last_frame_of_rounds, round_reports, viewer_of

_json = msgspec.json.Encoder(enc_hook=str, decimal_format="number")


def _error_page(status: int, message: str) -> HTMLResponse:
    title = {400: "Bad request", 404: "Not found"}.get(status, "Error")
    body = f'<h1>{title}</h1><p class="err" role="alert">{pages.escape(message)}</p>'
    return HTMLResponse(pages.layout(title, body), status)


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
            return _error_page(exc.status, exc.message)
    wrapped.__doc__ = handler.__doc__
    return wrapped


def _int(request: Request, name: str, default: int | None = None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    if not raw.isdigit():
        raise SeasaltError(f"{name} must be a whole number, not {raw!r}")
    return int(raw)


async def games(request: Request) -> Response:
    """GET /: the stored games, filtered, sorted and paged."""
    q = request.query_params
    player = q.get("player") or None
    players = _int(request, "players")
    if players is not None and players not in (2, 3, 4):
        raise SeasaltError("players must be 2, 3 or 4")
    status = q.get("status") or None
    if status not in (None, "ended", "in_progress"):
        raise SeasaltError(f"state must be ended or in_progress, not {status!r}")
    sort = q.get("sort") or "id"
    if sort not in pages.GAME_SORTS:
        raise SeasaltError(f"sort must be one of {', '.join(pages.GAME_SORTS)}, not {sort!r}")
    desc = q.get("order") == "desc"
    page = max(1, _int(request, "page", 1) or 1)
    rows = await request.app.state.live.read(
        lambda s: queries.list_games(s, player=player, players=players))
    if status is not None:
        rows = [g for g in rows if (g.status == "ended") == (status == "ended")]
    if sort != "id":                      # list_games is in natural id order already
        key = {"rounds": lambda g: g.rounds_played, "events": lambda g: g.events,
               "status": lambda g: g.status}[sort]
        rows = sorted(rows, key=key)
    if desc:
        rows = rows[::-1]
    start = (page - 1) * pages.PAGE_SIZE
    html = pages.games_page(rows[start:start + pages.PAGE_SIZE], player=player, players=players,
                            status=status, sort=sort, desc=desc, page=page, total=len(rows))
    return HTMLResponse(html)


#: how many (game, viewer, length) frame sets an app keeps: a stored game's first N events
#: never change (the store is append-only), so the frames computed for them stay right
CACHED_VIEWS = 32


async def _game_data(app, gid: str, who: str | None, after: int = 0) -> tuple[Any, ...]:
    live = app.state.live
    events = await live.events(gid)
    viewer = viewer_of(events, who)
    key = (gid, viewer, len(events))
    cache = getattr(app.state, "web_frames", None)
    if cache is None:
        cache = app.state.web_frames = OrderedDict()

    def compute():
        fr = frames(events, viewer, game_id=gid)
        return fr, round_reports(events, viewer, game_id=gid, last_frames=last_frame_of_rounds(fr))
    if key in cache:
        cache.move_to_end(key)
        fr, reports = cache[key]
    else:
        fr, reports = cache[key] = await asyncio.to_thread(compute)
        while len(cache) > CACHED_VIEWS:
            cache.popitem(last=False)
    return events, viewer, fr[after:], deltas(fr, after), reports


async def game(request: Request) -> Response:
    """GET /play/{game_id}?as=PLAYER: score sheet, chart and replay viewer."""
    gid = request.path_params["game_id"]
    live = request.app.state.live
    who = request.query_params.get("as") or None
    summary = await live.read(lambda s: queries.game_summary(s, gid))
    events, viewer, _, fr, reports = await _game_data(request.app, gid, who)
    stream = None
    if summary.game.status != "ended":
        stream = f"/play/{pages.quote(gid, safe='')}/live"
        if who is not None:
            stream += "?" + pages.urlencode({"as": who})
    data = {"game_id": gid, "frames": fr, "reports": reports, "live": stream}
    return HTMLResponse(pages.game_page(summary.game, pages.score_sheet(summary), data,
                                        viewer=viewer))


async def game_live(request: Request) -> Response:
    """GET /play/{game_id}/live?as=PLAYER&after=N: server-sent events, each a JSON
    ``{"frames", "reports", "sheet"}`` with the frames after the last one sent (as the
    viewer may see them), the round reports and, when a round was scored, the score sheet."""
    gid = request.path_params["game_id"]
    live = request.app.state.live
    who = request.query_params.get("as") or None
    after = _int(request, "after", 0) or 0
    viewer_of(await live.events(gid), who)           # unknown game or player: fail now
    keepalive = request.app.state.keepalive

    async def stream():
        nonlocal after
        yield b"retry: 1000\n\n"
        while True:
            waiter = live.waiter(gid)                # taken before reading: no append missed
            events = await live.events(gid)
            if len(events) > after:
                _, _, new, fr, reports = await _game_data(request.app, gid, who, after)
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
    params = {k: v for k, v in request.query_params.items() if k in ("player", "players") and v}
    live = request.app.state.live
    result = await live.read(lambda s: run_named_report(s, name, params))
    return HTMLResponse(pages.report_page(result, params.get("player"), params.get("players"),
                                          await live.read(report_list)))


async def calculator(request: Request) -> Response:
    """GET /calculator?CODE=N...&laid=A,B C,D: the breakdown ``seasalt score`` gives."""
    q = request.query_params
    counts: dict[str, int] = {}
    for code in pages.CODES:
        n = _int(request, code, 0) or 0
        if n:
            counts[code] = n
    laid = q.get("laid", "").strip()
    result = error = None
    if counts or laid:
        try:
            result = score_hand([c for c, n in counts.items() for _ in range(n)], laid.split())
        except SeasaltError as exc:
            error = str(exc)
    return HTMLResponse(pages.calculator_page(counts, laid, result, error),
                        400 if error else 200)


#: the pages; :func:`seasalt_log.http.app.create_app` adds them to the API's routes
WEB_ROUTES = [
    Route("/", _page(games), methods=["GET"]),
    Route("/play/{game_id}", _page(game), methods=["GET"]),
    Route("/play/{game_id}/live", _page(game_live), methods=["GET"]),
    Route("/reports", _page(reports), methods=["GET"]),
    Route("/reports/{name}", _page(report), methods=["GET"]),
    Route("/calculator", _page(calculator), methods=["GET"]),
]
