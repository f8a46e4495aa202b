"""Read-side queries over the store's read models (games list, one game's summary)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta, Struct

from .store import Store
from .store.store import natural_key
from .store.fetch import first_row, one_value


class GameRow(Struct, kw_only=True):
    """One stored game (the ``games`` read model). Keyword-only, so that the fields added
    later have defaults where they stand: a row of an older service (``GET /games``
    before the ruleset and event setting) decodes as the base game without events."""

    game_id: str
    players: list[str]
    n_players: int
    target: int
    #: 'base' or 'extra-salt' (R-X-RULESET-1); the events played with, 'pepper', or None
    ruleset: str = "base"
    event_setting: str | None = None
    status: str
    rounds_played: int
    events: int
    end_reason: str | None
    winners: list[int] | None
    totals: list[int]
    #: game_started's meta as its JSON text (msgspec.Raw), encoded as it was given
    meta: Annotated[Any, Meta(extra_json_schema={"anyOf": [{"type": "object"},
                                                            {"type": "null"}]})] = None

    def rules_words(self) -> str:
        """The rules the game is played by, in the words ``seasalt show`` and the web pages
        both use: "base", "extra-salt", "extra-salt with pepper events"."""
        return self.ruleset + (f" with {self.event_setting} events" if self.event_setting else "")


class RoundRow(Struct):
    """One round of a game with each seat's points and totals (None until scored)."""

    round: int
    first_player: int
    ending: str | None
    caller: int | None
    caller_won: bool | None
    outcome: str | None
    turns: int
    points: list[int | None]
    totals: list[int | None]
    card_points: list[int | None]
    color_bonus: list[int | None]


class GameSummary(Struct):
    game: GameRow
    rounds: list[RoundRow]


#: the ``games`` columns a :class:`GameRow` holds, named and ordered as its fields
_GAME_COLS = ", ".join(GameRow.__struct_fields__)


#: a row of :data:`_GAME_COLS`
_GameCols = tuple[str, list[str], int, int, str, str | None, str, int, int, str | None,
                  list[int] | None, list[int], str | None]


def _game_row(row: _GameCols) -> GameRow:
    fields: dict[str, Any] = dict(zip(GameRow.__struct_fields__, row))
    meta = fields.pop("meta")
    return GameRow(**fields, meta=msgspec.Raw(meta.encode()) if meta else None)


#: ``list_games(sort=...)``: the column each sort key orders by (ties: the game id)
SORTS: dict[str, str] = {"game": "game_id", "players": "n_players", "rounds": "rounds_played",
                         "events": "events", "status": "status"}


def _where(player: str | None, players: int | None) -> tuple[str, list[Any]]:
    where: list[str] = []
    args: list[Any] = []
    if player is not None:
        where.append("list_contains(players, ?)")
        args.append(player)
    if players is not None:
        where.append("n_players = ?")
        args.append(players)
    return (" WHERE " + " AND ".join(where) if where else ""), args


def count_games(store: Store, *, player: str | None = None, players: int | None = None) -> int:
    """How many stored games :func:`list_games` would list without a limit."""
    where, args = _where(player, players)
    return one_value(store.con, f"SELECT count(*) FROM games{where}", args)


def list_games(store: Store, *, player: str | None = None, players: int | None = None,
               sort: str = "game", descending: bool = False, limit: int | None = None,
               offset: int = 0) -> list[GameRow]:
    """Stored games, optionally only those with a player of that name / that many players,
    ordered by ``sort`` (a key of :data:`SORTS`; numbers inside ids by value, sim-1-2
    before sim-1-10), from ``offset``, at most ``limit`` of them.

    Only the sort column and the ids are read for every game; the whole rows only for the
    page asked for."""
    page = page_ids(store, player=player, players=players, sort=sort, descending=descending,
                    limit=limit, offset=offset)
    if not page:
        return []
    rows = {r[0]: r for r in store.con.execute(
        f"SELECT {_GAME_COLS} FROM games WHERE game_id IN (SELECT unnest(?))", [page]).fetchall()}
    return [_game_row(rows[g]) for g in page]


def page_ids(store: Store, *, player: str | None = None, players: int | None = None,
             sort: str = "game", descending: bool = False, limit: int | None = None,
             offset: int = 0) -> list[str]:
    """The ids of the games :func:`list_games` lists, in its order."""
    if sort not in SORTS:
        raise ValueError(f"sort by one of {', '.join(SORTS)}, not {sort!r}")
    where, args = _where(player, players)
    keys = store.con.execute(f"SELECT {SORTS[sort]}, game_id FROM games{where}", args).fetchall()
    return [k[1] for k in sort_keys(keys, sort, descending)[offset:None if limit is None
                                                              else offset + limit]]


def sort_keys(keys: list[tuple[Any, str]], sort: str, descending: bool = False) -> list[tuple[Any, str]]:
    """``(sort value, game id)`` pairs in the order of :func:`list_games` (``sort`` a key of
    :data:`SORTS`; a listing read from the HTTP service is ordered by it too)."""
    keys = list(keys)
    if sort == "game":
        keys.sort(key=lambda k: natural_key(k[1]), reverse=descending)
    else:
        keys.sort(key=lambda k: natural_key(k[1]))
        keys.sort(key=lambda k: (k[0] is None, k[0]), reverse=descending)
    return keys


def games_relation(store: Store, ids: list[str]):
    """The ``games`` rows of ``ids``, in that order, as a DuckDB relation (its columns those
    of :class:`GameRow`; ``meta`` its JSON text): for output written in bulk."""
    return store.con.sql(
        f"SELECT {', '.join('g.' + c for c in _GAME_COLS.split(', '))} FROM games g JOIN "
        "(SELECT unnest($ids) AS game_id, generate_subscripts($ids, 1) AS pos) o "
        "USING (game_id) ORDER BY o.pos", params={"ids": ids})


def get_game(store: Store, game_id: str) -> GameRow:
    row = first_row(store.con, f"SELECT {_GAME_COLS} FROM games WHERE game_id = ?", [game_id])
    if row is None:
        raise store.unknown_game(game_id)
    return _game_row(row)


def game_summary(store: Store, game_id: str) -> GameSummary:
    """A game round by round: ending, caller, outcome, and per seat points and totals."""
    game = get_game(store, game_id)
    results: dict[int, dict[int, tuple]] = {}
    for rnd, seat, pts, tot, cp, cb in store.con.execute(
            "SELECT round, seat, points, total, card_points, color_bonus FROM round_results "
            "WHERE game_id = ?", [game_id]).fetchall():
        results.setdefault(rnd, {})[seat] = (pts, tot, cp, cb)
    rounds = []
    for rnd, first, ending, caller, won, outcome, turns in store.con.execute(
            "SELECT round, first_player, ending, caller, caller_won, outcome, turns FROM rounds "
            "WHERE game_id = ? ORDER BY round", [game_id]).fetchall():
        per = results.get(rnd, {})
        cols = [[per[s][k] if s in per else None for s in range(game.n_players)] for k in range(4)]
        rounds.append(RoundRow(rnd, first, ending, caller, won, outcome, turns, *cols))
    return GameSummary(game=game, rounds=rounds)
