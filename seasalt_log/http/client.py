"""Reading a running service from the command line (``seasalt games``, ``show``, ``replay``,
``log``, ``rescore``, ``query`` and ``stats`` with ``--url``, or when they find the service
that holds the store): the store is held by the service, so these ask it over HTTP instead,
with the reader's credential (``--token``), and get what that reader may see."""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal
from typing import Any

import msgspec

from .. import events as ev
from ..analytics.output import Result
from ..errors import SeasaltError
from ..queries import GameRow, GameSummary
from ..narration import LogLine
from ..rescore import RoundReport
from ..store.backup import check_service_url
from ..turn_frames import TurnFrame
from ..view import TableView

TIMEOUT = 60.0

log = logging.getLogger(__name__)


def _call(url: str, path: str, token: str | None, body: Any = None,
          exact: bool = False) -> tuple[Any, dict]:
    """The JSON answer of ``path`` and its headers; ``exact``: numbers with a fraction as
    :class:`~decimal.Decimal` (as the service wrote them: a DECIMAL keeps its scale)."""
    check_service_url(url)
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        req = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers)
        # a non-ASCII token goes as its UTF-8 bytes (urllib would encode it as Latin-1)
        if token and not token.isascii():
            req.headers["Authorization"] = ("Bearer " + token).encode("utf-8").decode("latin-1")
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            return json.loads(r.read(), parse_float=Decimal if exact else float), dict(r.headers)
    except urllib.error.HTTPError as exc:
        try:
            problem = json.loads(exc.read())
            message = problem.get("detail") or problem.get("message") or exc.reason
        except (ValueError, AttributeError):
            message = exc.reason
        raise SeasaltError(f"the service at {url} answered {exc.code}: {message}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise SeasaltError(f"cannot reach the service at {url}: {reason}") from None


def _path(path: str, **params: Any) -> str:
    """``path`` with the query parameters that are not None."""
    given = {k: v for k, v in params.items() if v is not None}
    return path + ("?" + urllib.parse.urlencode(given) if given else "")


def _game(game_id: str, tail: str = "") -> str:
    return "/games/" + urllib.parse.quote(game_id, safe="") + tail


def _next_link(headers: dict) -> str | None:
    """The path of the ``Link: <...>; rel="next"`` header, if any."""
    link = headers.get("Link") or headers.get("link")
    if not link or 'rel="next"' not in link:
        return None
    return link[link.index("<") + 1:link.index(">")]


def _pages(url: str, path: str, token: str | None) -> list:
    """Every item of a paged list endpoint, following its ``Link: rel="next"`` headers."""
    items: list = []
    next_path: str | None = path
    while next_path:
        page, headers = _call(url, next_path, token)
        items += page
        next_path = _next_link(headers)
    return items


def remote_games(url: str, token: str | None, *, player: str | None = None,
                 players: int | None = None) -> list[GameRow]:
    """Every game the service lists (following its pages)."""
    return msgspec.convert(_pages(url, _path("/games", player=player, players=players), token),
                           list[GameRow])


def remote_state(url: str, token: str | None, game_id: str, *, round: int | None = None,
                 turn: int | None = None, seq: int | None = None,
                 who: str | None = None) -> TableView:
    """The table at one point of a game as this reader may see it (``GET .../state``)."""
    answer, _ = _call(url, _path(_game(game_id, "/state"), round=round, turn=turn, seq=seq,
                                 **{"as": who}), token)
    return msgspec.convert(answer, TableView)


def remote_log(url: str, token: str | None, game_id: str, *, who: str | None = None,
               after: int | None = None, limit: int | None = None) -> list[LogLine]:
    """The events of a game in words as this reader may see them (``GET .../log``, every
    page from ``after`` on, or one page of ``limit`` lines)."""
    path = _path(_game(game_id, "/log"), after=after, limit=limit, **{"as": who})
    lines = _call(url, path, token)[0] if limit else _pages(url, path, token)
    # the table's lines carry the events: decoded as a log line is (meta stays its JSON)
    return [LogLine(**{**line, "event": ev.decode(json.dumps(line["event"]).encode())})
            if line.get("event") else msgspec.convert(line, LogLine) for line in lines]


def remote_turns(url: str, token: str | None, game_id: str, *, round: int | None = None,
                 turn: int | None = None, who: str | None = None) -> list[TurnFrame]:
    """A round turn by turn as this reader may see it (``GET .../turns``)."""
    answer, _ = _call(url, _path(_game(game_id, "/turns"), round=round, turn=turn,
                                 **{"as": who}), token)
    return msgspec.convert(answer, list[TurnFrame])


def remote_rescore(url: str, token: str | None, game_id: str, round: int) -> RoundReport:
    """Round ``round`` rescored (``GET .../rounds/{round}/score``; once its hands are shown,
    unless the reader is the table)."""
    answer, _ = _call(url, _game(game_id, f"/rounds/{round}/score"), token)
    return msgspec.convert(answer, RoundReport)


def remote_report(url: str, token: str | None, name: str, *, player: str | None = None,
                  players: int | None = None) -> Result:
    """A named statistics report run by the service (``GET /stats/{name}``, every page)."""
    path = _path("/stats/" + urllib.parse.quote(name, safe=""), player=player, players=players)
    first, headers = _call(url, path, token, exact=True)
    rows = list(first["rows"])
    next_path = _next_link(headers)
    while next_path:
        page, headers = _call(url, next_path, token, exact=True)
        rows += page["rows"]
        next_path = _next_link(headers)
    columns, types = first["columns"], first["types"]
    return Result(columns=columns, types=types,
                  rows=[_typed([row[c] for c in columns], types) for row in rows])


def remote_query(url: str, token: str | None, sql: str) -> Result:
    """One reading SQL statement run by the service (``POST /query``, the service token;
    at most the service's row limit comes back)."""
    answer, _ = _call(url, "/query", token, {"sql": sql}, exact=True)
    types = answer["types"]
    if answer.get("truncated"):
        log.warning(f"seasalt: the service at {url} sent the first {len(answer['rows']):,} rows "
                    "only (its row limit); more matched: narrow the query, or run it on the "
                    "store while the service is stopped")
    return Result(columns=answer["columns"], types=types,
                  rows=[_typed(r, types) for r in answer["rows"]])


def _typed(cells: list, types: list[str]) -> tuple:
    """A row read with ``exact`` as the store gives it: a DECIMAL column's value stays a
    Decimal (``1.50``), every other number with a fraction is a float again, and a JSON
    column's value, which travels embedded, is its text again."""
    return tuple(v if t.startswith("DECIMAL") or v is None
                 else json.dumps(_floats(v), separators=(",", ":"), ensure_ascii=False)
                 if t == "JSON"
                 else _floats(v) for v, t in zip(cells, types))


def _floats(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    return value


def remote_summary(url: str, token: str | None, game_id: str) -> GameSummary:
    """One game round by round (``GET /games/{id}``; public information)."""
    answer, _ = _call(url, _game(game_id), token)
    return msgspec.convert(answer, GameSummary)
