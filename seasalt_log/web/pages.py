"""The HTML of the web app's pages, server-rendered with the standard library.

Every page is one document with the stylesheet, the card symbols and the viewer script
inline, so the game page served live and the exported one-file HTML are the same template
(:func:`game_page`). Text is escaped with :func:`html.escape`; data for the viewer travels
as JSON in a ``<script type="application/json">`` element.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from importlib import resources
from typing import Any, Iterable, Sequence
from urllib.parse import quote, urlencode

import msgspec

from ..cards import COLOR, CODES, EXTRA_CODES, KIND
from ..events import EVENT_CODES
from ..hand import cards_scored
from ..queries import GameRow, GameSummary
from ..view import TABLE, Viewer

_json = msgspec.json.Encoder(enc_hook=str, decimal_format="number")

# one simple symbol per kind, drawn in a 32x32 box (no copyrighted art)
SYMBOLS: dict[str, str] = {
    "crab": '<ellipse cx="16" cy="19" rx="9" ry="6"/><path d="M5 12l-3-5 5 1zM27 12l3-5-5 1z"/>'
            '<path d="M8 24l-4 4M24 24l4 4M11 25l-2 5M21 25l2 5" stroke="currentColor" stroke-width="2"/>',
    "boat": '<path d="M3 21h26l-5 7H8z"/><path d="M15 3v16H6zM17 6v13h8z"/>',
    "fish": '<ellipse cx="14" cy="16" rx="10" ry="6"/><path d="M22 16l8-6v12z"/>',
    "swimmer": '<circle cx="9" cy="11" r="4"/><path d="M12 15l14-4 1 3-13 5z"/>'
               '<path d="M2 24q4-3 7 0t7 0 7 0 7 0" fill="none" stroke="currentColor" stroke-width="2"/>',
    "shark": '<path d="M2 22q10-5 28-1-8 5-28 1zM12 19l6-13 4 13z"/>',
    "shell": '<path d="M16 28L3 12q13-12 26 0z"/><path d="M16 28V6M16 28L9 8M16 28l7-20" '
             'stroke="#fff" stroke-width="1" fill="none"/>',
    "octopus": '<circle cx="16" cy="11" r="8"/><path d="M9 17l-4 11M13 18l-2 11M19 18l2 11M23 17l4 11" '
               'stroke="currentColor" stroke-width="2.5"/>',
    "penguin": '<ellipse cx="16" cy="18" rx="8" ry="11"/><circle cx="16" cy="7" r="5"/>'
               '<path d="M16 9l4 2-4 1z" fill="#f39c12"/>',
    "sailor": '<circle cx="16" cy="18" r="7"/><path d="M6 11h20l-3-6H9z"/>',
    "lighthouse": '<path d="M12 30l2-20h4l2 20z"/><path d="M11 6h10v4H11zM21 7l9-4v8z"/>',
    "shoal": '<ellipse cx="10" cy="9" rx="6" ry="3"/><ellipse cx="20" cy="16" rx="6" ry="3"/>'
             '<ellipse cx="10" cy="23" rx="6" ry="3"/>',
    "colony": '<ellipse cx="9" cy="20" rx="5" ry="8"/><ellipse cx="23" cy="20" rx="5" ry="8"/>'
              '<ellipse cx="16" cy="14" rx="5" ry="8"/>',
    "captain": '<path d="M16 2l4 9 10 1-8 6 3 10-9-6-9 6 3-10-8-6 10-1z"/>',
    "mermaid": '<circle cx="16" cy="6" r="4"/><path d="M12 11h8l-2 10 6 8H8l6-8z"/>',
    # Extra Salt
    "lobster": '<ellipse cx="16" cy="20" rx="5" ry="9"/><path d="M11 12L4 3l2 8zM21 12l7-9-2 8z"/>'
               '<path d="M16 29l-4 2h8z"/>',
    "jellyfish": '<path d="M5 16q0-12 11-12t11 12z"/><path d="M9 17v11M14 17v13M19 17v13M24 17v11" '
                 'stroke="currentColor" stroke-width="2" fill="none"/>',
    "starfish": '<path d="M16 2l3.5 10H30l-8.5 6.5L25 29l-9-6.5L7 29l3.5-10.5L2 12h10.5z"/>',
    "seahorse": '<path d="M13 3q9 0 8 8-1 5-5 8 4 3 1 8t-6 3q4-2 3-5-2-3-5-5 2-4 4-7-4-1-6-4 2-6 6-6z"/>',
    "castofcrabs": '<ellipse cx="9" cy="12" rx="6" ry="4"/><ellipse cx="23" cy="12" rx="6" ry="4"/>'
                   '<ellipse cx="16" cy="23" rx="7" ry="5"/>',
}


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def sprite() -> str:
    """The card symbols as one hidden SVG of ``<symbol id="k-KIND">``."""
    body = "".join(f'<symbol id="k-{k}" viewBox="0 0 32 32"><g fill="currentColor">{d}'
                   f"</g></symbol>" for k, d in SYMBOLS.items())
    return f'<svg width="0" height="0" style="position:absolute" aria-hidden="true">{body}</svg>'


NAV = (("/", "Games"), ("/reports", "Statistics"), ("/calculator", "Score calculator"))


def layout(title: str, body: str, *, nav: bool = True, viewer: bool = True) -> str:
    """A whole page: ``body`` inside the site's header, with the stylesheet and, unless
    ``viewer`` is false (an error page, which draws no card), the card symbols and the
    viewer script inline (no other request is needed)."""
    links = "".join(f'<a href="{href}">{escape(text)}</a>' for href, text in NAV) if nav else ""
    script = f"<script>{_static('viewer.js')}</script>" if viewer else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{escape(title)} — seasalt</title><style>{_static('app.css')}</style></head>"
        '<body><a class="skip" href="#main">Skip to content</a>'
        '<header class="top"><strong>seasalt</strong>'
        f'<nav aria-label="Site">{links}</nav></header>'
        f'{sprite() if viewer else ""}<main id="main">{body}</main>{script}</body></html>')


def _json_script(data: Any) -> str:
    raw = _json.encode(data).replace(b"</", b"<\\/").decode()
    return f'<script id="game-data" type="application/json">{raw}</script>'


def card(code: str) -> str:
    """A placeholder the viewer script draws as a card (the code itself without script)."""
    return f'<span data-card="{escape(code)}">{escape(code)}</span>'


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str = "",
           numeric: Sequence[bool] | None = None, attrs: str = "", stacked: bool = False) -> str:
    """A data table; ``stacked``: on a narrow screen each row shows as a block of labelled
    cells (app.css, ``table.stack``) instead of a row wider than the screen."""
    numeric = numeric or [False] * len(headers)
    # display:block drops a stacked table's roles from its parts: they are given back
    role = (lambda r: f' role="{r}"') if stacked else (lambda r: "")
    head = "".join(f'<th scope="col"{role("columnheader")}{" class=n" if n else ""}>{escape(h)}</th>'
                   for h, n in zip(headers, numeric))
    opens = [f'<td{role("cell")}{" class=n" if n else ""}'
             + (f' data-label="{escape(h)}">' if stacked else ">") for h, n in zip(headers, numeric)]
    body = "".join(f'<tr{role("row")}>' + "".join(f"{o}{c}</td>" for o, c in zip(opens, row)) + "</tr>"
                   for row in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<div class="scroll"><table class="data{" stack" if stacked else ""}"{role("table")}'
            f'{attrs}>{cap}<thead{role("rowgroup")}><tr{role("row")}>{head}</tr></thead>'
            f'<tbody{role("rowgroup")}>{body}</tbody></table></div>')


def _cell(v: Any) -> str:
    return "" if v is None else escape(str(v))


# ---------------------------------------------------------------- games list

GAME_SORTS = {"id": "game id", "rounds": "rounds played", "events": "events", "status": "state"}
PAGE_SIZE = 50


def page_count(total: int) -> int:
    """How many pages of :data:`PAGE_SIZE` games ``total`` games fill (one when none)."""
    return max(1, -(-total // PAGE_SIZE))


#: the games list's ruleset filter: a ruleset, or whether the events were played
RULESET_FILTERS = {"base": "base cards", "extra-salt": "Extra Salt cards",
                   "pepper": "with events (Extra Pepper)", "no-events": "without events"}


def games_page(rows: list[GameRow], *, player: str | None, players: int | None,
               status: str | None, sort: str, desc: bool, page: int, total: int,
               ruleset: str | None = None) -> str:
    """The games list (``rows``: this page's games, ``total``: how many match; ``ruleset``:
    the filter)."""
    def opt(value, current, text):
        sel = " selected" if str(current) == str(value) else ""
        return f'<option value="{escape(str(value))}"{sel}>{escape(text)}</option>'
    form = (
        '<form class="filters" method="get" action="/" aria-label="Filter the games">'
        f'<label>Player <input name="player" value="{escape(player or "")}"></label>'
        '<label>Players <select name="players">' + opt("", players or "", "any")
        + "".join(opt(n, players or "", str(n)) for n in (2, 3, 4)) + "</select></label>"
        '<label>State <select name="status">' + opt("", status or "", "any")
        + opt("in_progress", status or "", "in progress") + opt("ended", status or "", "ended")
        + "</select></label>"
        '<label>Ruleset <select name="ruleset">' + opt("", ruleset or "", "any")
        + "".join(opt(k, ruleset or "", v) for k, v in RULESET_FILTERS.items()) + "</select></label>"
        '<label>Sort by <select name="sort">'
        + "".join(opt(k, sort, v) for k, v in GAME_SORTS.items()) + "</select></label>"
        '<label>Order <select name="order">' + opt("asc", "desc" if desc else "asc", "ascending")
        + opt("desc", "desc" if desc else "asc", "descending") + "</select></label>"
        "<button>Show</button></form>")
    body = []
    for g in rows:
        winners = ", ".join(g.players[w] for w in g.winners or ())
        body.append((f'<a class="nw" href="/play/{quote(g.game_id, safe="")}">{escape(g.game_id)}</a>',
                     ", ".join(f'<span class="nw">{escape(p)}</span>' for p in g.players),
                     escape(g.rules_words()),
                     g.rounds_played, g.events,
                     escape(g.status.replace("_", " ")), escape(winners),
                     escape(" ".join(map(str, g.totals)))))
    pages = page_count(total)
    params = {k: v for k, v in (("player", player), ("players", players), ("status", status),
                                ("ruleset", ruleset), ("sort", sort),
                                ("order", "desc" if desc else None)) if v}
    if page > pages:           # past the end: say so and link the last page, not an empty one
        last = escape(urlencode({**params, "page": pages}))
        return layout("Games", f'<h1>Games</h1>{form}<p class="err" role="alert">No page {page}: '
                      f'{total} game(s) fill {pages} page(s). <a href="/?{last}" rel="last">'
                      f"The last page ({pages})</a></p>")
    nav = []
    if page > 1:
        nav.append(f'<a href="/?{escape(urlencode({**params, "page": page - 1}))}" rel="prev">Previous page</a>')
    if page < pages:
        nav.append(f'<a href="/?{escape(urlencode({**params, "page": page + 1}))}" rel="next">Next page</a>')
    table = _table(("game", "players", "ruleset", "rounds", "events", "state", "winners", "totals"),
                   body, caption=f"{total} game(s); page {page} of {pages}",
                   numeric=(False, False, False, True, True, False, False, False), attrs=' id="games"',
                   stacked=True)
    return layout("Games", f"<h1>Games</h1>{form}{table}<p>{' · '.join(nav)}</p>")


# ---------------------------------------------------------------- one game

def score_sheet(summary: GameSummary) -> str:
    """The score sheet round by round (``seasalt show``) and a chart of the totals. One
    column per player, each cell the round's points and the total after it, so that the
    sheet of a 4-player game fits a phone's width without scrolling sideways."""
    g = summary.game
    names = g.players
    rows = []
    for r in summary.rounds:
        how = (r.ending or "in play").replace("_", " ")
        if r.caller is not None:
            how += f", called by {names[r.caller]}"
        if r.outcome not in (None, r.ending):
            how += f" ({r.outcome})"
        rows.append((r.round, escape(how), *(
            "" if p is None else f'<span class="pts">{p}</span> → <span class="tot">{t}</span>'
            for p, t in zip(r.points, r.totals))))
    headers = ("round", "ending", *names)
    numeric = (True, False, *([True] * len(names)))
    table = _table(headers, rows, numeric=numeric, attrs=' id="score-sheet"',
                   caption="Score sheet: each player's points in the round → their total")
    return table + totals_chart(names, [r.totals for r in summary.rounds], g.target)


PALETTE = ("#1f3a93", "#c0392b", "#1e8449", "#8e44ad")


def totals_chart(names: Sequence[str], totals: Sequence[Sequence[int | None]], target: int) -> str:
    """A line chart (inline SVG) of each player's total after each round."""
    pts = [[t if t is not None else None for t in row] for row in totals]
    if not pts:
        return '<p class="muted">No round has been scored yet.</p>'
    w, h, left, bottom = 560, 240, 40, 28
    top = max([target] + [t for row in pts for t in row if t is not None]) or 1
    n = len(pts)
    def x(i): return left + (w - left - 10) * (i / max(1, n))
    def y(v): return h - bottom - (h - bottom - 10) * v / top
    parts = [f'<line x1="{left}" y1="{y(target):.1f}" x2="{w - 10}" y2="{y(target):.1f}" '
             f'stroke="#999" stroke-dasharray="4 3"/>'
             f'<text x="{w - 12}" y="{y(target) - 4:.1f}" text-anchor="end" font-size="11">target {target}</text>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" y2="{h - bottom}" stroke="#333"/>']
    for i in range(n + 1):
        parts.append(f'<text x="{x(i):.1f}" y="{h - 10}" text-anchor="middle" font-size="11">{i}</text>')
    legend = []
    for s, name in enumerate(names):
        coords = [(x(0), y(0))] + [(x(i + 1), y(row[s])) for i, row in enumerate(pts)
                                   if row[s] is not None]
        line = " ".join(f"{a:.1f},{b:.1f}" for a, b in coords)
        colour = PALETTE[s % len(PALETTE)]
        dash = ("", ' stroke-dasharray="6 3"', ' stroke-dasharray="2 2"', ' stroke-dasharray="8 2 2 2"')[s % 4]
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2.5"{dash}/>')
        legend.append(f'<text x="{left + 5 + 130 * s}" y="14" font-size="12" fill="{colour}">'
                      f'— {escape(name)}</text>')
    desc = "; ".join(f"{name}: " + ", ".join(_cell(row[s]) for row in pts) for s, name in enumerate(names))
    return (f'<svg class="chart" id="totals-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
            f'aria-label="Totals after each round. {escape(desc)}">'
            f"{''.join(parts)}{''.join(legend)}</svg>")


def viewer_switch(game: GameRow, viewer: Viewer, reader: Viewer, token_held: bool = False) -> str:
    """Links to the views of the game that ``reader`` (the credential's reader) may open,
    ``viewer`` (the one shown) marked, the form that trades a seat token for them and, when
    the browser holds one (``token_held``), a link that forgets it."""
    base = "/play/" + quote(game.game_id, safe="")
    options: list[tuple[str, str, bool]] = []          # (query, label, current)
    if reader.is_table:
        label = "Everyone (after the game)" if game.status == "ended" else "The table (every card)"
        options.append(("", label, viewer.is_table))
    for s, name in enumerate(game.players):
        if reader.is_table or reader.seat == s:
            you = " (you)" if reader.seat == s else ""
            options.append((urlencode({"as": name}), f"As {name}{you}", viewer.seat == s))
    options.append(("as=spectator" if reader.role != "spectator" else "",
                    "Spectator (public cards)", viewer.role == "spectator"))
    links = "".join(f'<a href="{base}{"?" + escape(q) if q else ""}"'
                    f'{" aria-current=page" if cur else ""}>{escape(text)}</a>'
                    for q, text, cur in options)
    form = ""
    if not reader.is_table:
        form = (f'<form class="token" method="get" action="{base}">'
                '<label>Seat or table token <input name="token" type="password" '
                'autocomplete="off" required></label><button>Open my view</button></form>')
    if token_held:
        form += f'<p><a href="{base}?token=">Forget my token for this game</a></p>'
    return (f'<nav class="switch" aria-label="Whose view">View: {links}</nav>{form}')


def _who(game: GameRow, viewer: Viewer) -> str:
    if viewer.role == "seat":
        assert viewer.seat is not None, "a seat's viewer has its seat"
        return f"Shown as {game.players[viewer.seat]} saw it then (other hands face down)."
    if viewer.role == "spectator":
        return "Shown as a spectator sees it (public cards only, hidden cards face down)."
    if game.status == "ended":
        return "Shown as everyone sees it after the game."
    return "Shown as the table sees it (every card)."


def game_page(game: GameRow, sheet: str, data: dict[str, Any], *, viewer: Viewer = TABLE,
              reader: Viewer | None = None, token_held: bool = False,
              exported: bool = False) -> str:
    """The game page: score sheet, chart and the replay viewer over ``data`` (``frames``,
    ``reports``, ``live``) as ``viewer`` sees it; ``reader``: whose credential asked (the
    views the switch offers). The same template is the exported file (``exported``)."""
    switch = "" if exported else viewer_switch(game, viewer, reader or viewer, token_held)
    live = '<p id="live" class="muted" role="status"></p>'
    controls = (
        '<div class="controls" role="group" aria-label="Step through the game">'
        '<button id="first" type="button">« First</button>'
        '<button id="prev" type="button">◀ Previous</button>'
        '<button id="next" type="button">Next ▶</button>'
        '<button id="last" type="button">Last »</button>'
        '<label for="slider" class="muted">Event</label>'
        '<input id="slider" type="range" min="0" max="0" value="0">'
        "</div>"
        '<form id="jump" class="controls" aria-label="Jump to a round and turn">'
        '<label>Round <input id="jround" type="number" min="1" required></label>'
        '<label>Turn <input id="jturn" type="number" min="0" placeholder="0"></label>'
        '<button type="submit">Jump</button><span id="jmsg" role="alert"></span></form>')
    body = (
        f"<h1>Game {escape(game.game_id)}</h1>"
        f'<p>{escape(", ".join(game.players))} — {escape(game.status.replace("_", " "))}, '
        f"target {game.target}. {escape(_who(game, viewer))}</p>{switch}"
        f'<section class="viewer" aria-labelledby="vh"><h2 id="vh">Replay</h2>{controls}'
        f'<p id="pos" class="pos"></p><p id="said" class="sr-only" aria-live="polite"></p>{live}'
        f'<div id="table"></div><p class="muted">Keys: ← → step, Home / End first and last.</p>'
        f"</section>"
        f'<section aria-labelledby="sh"><h2 id="sh">Score sheet</h2><div id="sheet">{sheet}</div></section>'
        f"{_json_script(data)}")
    return layout(f"Game {game.game_id}", body, nav=not exported)


def export_html(events, summary: GameSummary) -> str:
    """A game as one self-contained HTML file: the replay viewer (as everyone sees it after
    the game) and the score sheet; it needs no network to open."""
    from .timeline import deltas, frames, last_frame_of_rounds, round_reports
    gid = summary.game.game_id
    fr = frames(events, game_id=gid)
    data = {"game_id": gid, "frames": deltas(fr), "live": None,
            "reports": round_reports(events, game_id=gid, last_frames=last_frame_of_rounds(fr))}
    return game_page(summary.game, score_sheet(summary), data, exported=True)


# ---------------------------------------------------------------- statistics

#: report -> (label columns, value column) of its chart; reports not named have no chart
CHARTS: dict[str, tuple[tuple[str, ...], str]] = {
    "win-rates": (("players", "seat"), "win_rate"),
    "round-length": (("players",), "avg_turns"),
    "calls": (("players",), "stop_share"),
    "points-by-source": (("source",), "points"),
    "players": (("player",), "win_rate"),
    "duos": (("kind",), "played"),
    "last-chance": (("card_points",), "success_rate"),
    "mermaid-wins": (("players",), "share"),
}


def bar_chart(title: str, labels: Sequence[str], values: Sequence[float | None]) -> str:
    """A horizontal bar chart (inline SVG) with the numbers written beside the bars."""
    n = len(labels)
    if not n:
        return ""
    bar, gap, left, w = 18, 6, 150, 560
    h = n * (bar + gap) + 30
    top = max([v for v in values if v is not None] + [0]) or 1
    parts = []
    for i, (lab, v) in enumerate(zip(labels, values)):
        yy = 24 + i * (bar + gap)
        width = 0 if v is None else (w - left - 70) * v / top
        parts.append(f'<text x="{left - 6}" y="{yy + 13}" text-anchor="end" font-size="12">{escape(lab)}</text>'
                     f'<rect x="{left}" y="{yy}" width="{width:.1f}" height="{bar}" fill="#1f3a93"/>'
                     f'<text x="{left + width + 4:.1f}" y="{yy + 13}" font-size="12">{_cell(v)}</text>')
    desc = "; ".join(f"{lab}: {_cell(v)}" for lab, v in zip(labels, values))
    return (f'<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
            f'aria-label="{escape(title)}. {escape(desc)}"><text x="4" y="14" font-size="13" '
            f'font-weight="600">{escape(title)}</text>{"".join(parts)}</svg>')


def _filter_form(action: str, player: str | None, players: str | None) -> str:
    opts = "".join(f'<option value="{v}"{" selected" if (players or "") == v else ""}>{t}</option>'
                   for v, t in (("", "any"), ("2", "2"), ("3", "3"), ("4", "4")))
    return (f'<form class="filters" method="get" action="{escape(action)}" aria-label="Filters">'
            f'<label>Player <input name="player" value="{escape(player or "")}"></label>'
            f'<label>Players <select name="players">{opts}</select></label><button>Show</button></form>')


def reports_page(reports: list[dict[str, Any]]) -> str:
    """The list of named reports."""
    items = "".join(f'<li><a href="/reports/{quote(r["name"])}">{escape(r["name"])}</a> — '
                    f'{escape(r["description"])}</li>' for r in reports)
    return layout("Statistics", f"<h1>Statistics</h1><ul>{items}</ul>"
                  '<p class="muted">The same reports as <code>seasalt stats</code>.</p>')


def report_page(result: dict[str, Any], player: str | None, players: str | None,
                reports: list[dict[str, Any]]) -> str:
    """One named report as a table, with its chart and its filters."""
    name, cols, rows = result["report"], result["columns"], result["rows"]
    numeric = [all(isinstance(r[c], (int, float)) or r[c] is None for r in rows) and bool(rows)
               for c in cols]
    table = _table(cols, ([_cell(r[c]) for c in cols] for r in rows), caption=result["description"],
                   numeric=numeric, attrs=' id="report"')
    chart = ""
    if name in CHARTS and rows:
        labels, value = CHARTS[name]
        chart = bar_chart(f"{value} by {' and '.join(labels)}",
                          [" ".join(_cell(r[c]) for c in labels) for r in rows],
                          [r[value] for r in rows])
    others = " · ".join(f'<a href="/reports/{quote(r["name"])}"'
                        f'{" aria-current=page" if r["name"] == name else ""}>{escape(r["name"])}</a>'
                        for r in reports)
    body = (f"<h1>Statistics: {escape(name)}</h1><nav aria-label='Reports'>{others}</nav>"
            f"{_filter_form('/reports/' + quote(name), player, players)}{table}{chart}")
    return layout(f"Statistics: {name}", body)


# ---------------------------------------------------------------- score calculator

#: the calculator's rulesets (``seasalt score --ruleset``)
RULESETS = ("base", "extra-salt")


def calculator_page(counts: dict[str, int], laid: str, result: dict[str, Any] | None,
                    error: str | None, *, ruleset: str = "base", events: Sequence[str] = (),
                    face_down: str = "") -> str:
    """The score calculator: a count per card code, the laid-down pairs and trios, the
    ruleset, the events in effect and the face-down shells; the breakdown is
    ``seasalt score``'s (:func:`seasalt_log.hand.score_hand`)."""
    def picks(codes):
        return "".join(
            f'<label>{card(code)}<input type="number" min="0" max="9" name="{escape(code)}" '
            f'value="{counts.get(code, 0) or ""}" aria-label="{escape(KIND[code])}, '
            f'{escape(COLOR[code])}: cards in hand"></label>' for code in codes)
    rules = "".join(f'<option value="{r}"{" selected" if r == ruleset else ""}>{r}</option>'
                    for r in RULESETS)
    boxes = "".join(f'<label><input type="checkbox" name="event" value="{e}"'
                    f'{" checked" if e in events else ""}> {escape(e)}</label>' for e in EVENT_CODES)
    form = (
        '<form class="calc" method="get" action="/calculator">'
        f'<fieldset><legend>Cards in hand</legend><div class="pick">{picks(CODES)}</div></fieldset>'
        '<fieldset><legend>Extra Salt cards (ruleset extra-salt)</legend>'
        f'<div class="pick">{picks(EXTRA_CODES)}</div></fieldset>'
        '<fieldset><legend>Laid-down pairs and trios</legend><label>Each two codes joined by a '
        'comma (three for a trio, the starfish last), separated by spaces (e.g. '
        '<code>crab:black,crab:yellow</code>) '
        f'<input name="laid" size="50" value="{escape(laid)}"></label></fieldset>'
        f'<fieldset><legend>Ruleset and events</legend><label>Ruleset <select name="ruleset">{rules}'
        f'</select></label><div class="pick">{boxes}</div>'
        '<label>Face-down shells (Coral Reef), codes separated by spaces '
        f'<input name="face_down" size="30" value="{escape(face_down)}"></label></fieldset>'
        "<button>Score</button></form>")
    out = ""
    if error:
        out = f'<p class="err" role="alert">{escape(error)}</p>'
    elif result is not None:
        fields: tuple[str, ...] = ("pairs", "collectors", "multipliers", "mermaids", "card_points",
                                   "color_bonus")
        if "trios" in result:                  # the expansions' breakdown (RULES.md §12)
            fields = ("pairs", "rodeo_pairs", "trios", "starfish", "collectors", "seahorse",
                      "seahorse_points", "multipliers", "cast", "mermaids", "card_points",
                      "color_bonus", "face_down")
        units = result["laid"]
        cards = " ".join(card(c) for c in result["cards"]) + " " + " ".join(
            f'<span class="pair">{"".join(card(c) for c in u)}</span>' for u in units)
        n = cards_scored(result)
        rows = [(f, _cell(result[f])) for f in fields]
        if result.get("tables"):
            rows.append(("tables", escape(", ".join(result["tables"]))))
        out = (f"<h2>Breakdown</h2><p>{cards}</p>"
               + _table(("source", "points"), rows, caption=f"{n} cards",
                        numeric=(False, True), attrs=' id="breakdown"'))
    return layout("Score calculator", f"<h1>Score calculator</h1>{out}{form}")
