"""Reading a running service from the command line (``seasalt games --url``, ``seasalt
query --url``): the store is held by the service, so these ask it over HTTP instead."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import msgspec

from ..analytics.output import Result
from ..errors import SeasaltError
from ..queries import GameRow, GameSummary

TIMEOUT = 60.0


def _call(url: str, path: str, token: str | None, body: Any = None) -> tuple[Any, dict]:
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers)
    # a non-ASCII token goes as its UTF-8 bytes (urllib would encode it as Latin-1)
    if token and not token.isascii():
        req.headers["Authorization"] = ("Bearer " + token).encode("utf-8").decode("latin-1")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            return json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("message") or exc.reason
        except ValueError:
            message = exc.reason
        raise SeasaltError(f"the service at {url} answered {exc.code}: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SeasaltError(f"cannot reach the service at {url}: {reason}") from None


def remote_games(url: str, token: str | None, *, player: str | None = None,
                 players: int | None = None) -> list[GameRow]:
    """Every game the service lists (following its pages)."""
    params = {k: v for k, v in (("player", player), ("players", players)) if v is not None}
    path = "/games" + ("?" + urllib.parse.urlencode(params) if params else "")
    rows: list[GameRow] = []
    while path:
        page, headers = _call(url, path, token)
        rows += msgspec.convert(page, list[GameRow])
        link = headers.get("Link") or headers.get("link")
        path = link[1:link.index(">")] if link else None
    return rows


def remote_query(url: str, token: str | None, sql: str) -> Result:
    """One reading SQL statement run by the service (``POST /query``, the service token;
    at most the service's row limit comes back)."""
    answer, _ = _call(url, "/query", token, {"sql": sql})
    return Result(columns=answer["columns"], types=answer["types"],
                  rows=[tuple(r) for r in answer["rows"]])


def remote_summary(url: str, token: str | None, game_id: str) -> GameSummary:
    """One game round by round (``GET /games/{id}``; public information)."""
    answer, _ = _call(url, "/games/" + urllib.parse.quote(game_id, safe=""), token)
    return msgspec.convert(answer, GameSummary)
