"""Read models derived from a checked game's events and states (DESIGN.md: projections).

:func:`project` turns one game into rows for every per-game projection table (:data:`TABLES`).
The store writes them in the same transaction as the game's events; ``seasalt rebuild``
recomputes them from the events table alone. The ``cards`` catalog table is written once, by
the migration. The columns use the vocabulary of RULES.md and LOG_FORMAT.md.

The schema is data (:data:`SCHEMA`): the DDL (:data:`PROJECTIONS_DDL`, with a comment on
every table and column, also stored with ``COMMENT ON`` so ``duckdb_columns()`` shows it) and
the reference in docs/SQL.md are generated from it.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import Any, Callable, NamedTuple, Sequence

import msgspec

from .. import events as ev
from ..cards import COPIES, DUO_PAIRS, EXTRA_COPIES, EXTRA_FAMILIES, FAMILIES
from ..engine.state import BOAT_TAKE, TAKE, State
from ..engine.core import player_breakdown, round_breakdowns
from ..scoring import (CAST, MULTIPLIERS, ExtraBreakdown, as_breakdown, event_scoring,
                       last_chance_outcome, points_and_bonus, seat_extra_scored,
                       seat_points_and_bonus, seat_records)
from .expansions import event_outcomes, round_event_rows, seat_effects
from .literals import sql_literal
from .fetch import first_row

#: bump when a read model's shape or content changes: stores with another version are
#: rebuilt from their events when next opened for writing
#: (:func:`seasalt_log.store.rebuild.migrate_projections`)
PROJECTIONS_VERSION = 4     # 3: no primary-key indexes; 4: the expansions' read models


class Col(NamedTuple):
    """One column: name, SQL type (with NOT NULL where it applies) and what it holds."""

    name: str
    type: str
    doc: str


class TableDef(NamedTuple):
    """One read-model table."""

    name: str
    doc: str
    columns: tuple[Col, ...]
    #: the columns that identify a row: unique, not enforced (an index would cost bulk loads
    #: time and the store about 3 bytes per event; the events' own key guards every write)
    key: tuple[str, ...] = ()

    @property
    def order(self) -> tuple[str, ...]:
        """The columns that identify a row (for a stable ORDER BY)."""
        return self.key


class ViewDef(NamedTuple):
    """One convenience view: its name, what a row is, and its query."""

    name: str
    doc: str
    sql: str


_GAME = Col("game_id", "VARCHAR NOT NULL", "the game (events.game_id)")
_ROUND = Col("round", "SMALLINT NOT NULL", "round number, 1, 2, ...")
_TURN = Col("turn", "SMALLINT NOT NULL", "turn number within the round, 1, 2, ... (LOG_FORMAT.md: Turns)")
_SEAT = Col("seat", "TINYINT NOT NULL", "0-based seat of the player (games.players[seat + 1] is the name)")

SCHEMA: tuple[TableDef, ...] = (
    TableDef("games", "One row per stored game.", (
        Col("game_id", "VARCHAR NOT NULL", "the game's id (game_started.game_id, or derived from the content)"),
        Col("players", "VARCHAR[] NOT NULL", "player names by seat"),
        Col("n_players", "TINYINT NOT NULL", "number of players, 2 to 4"),
        Col("target", "SMALLINT NOT NULL", "target score (R-SETUP-2, or game_started.target)"),
        Col("ruleset", "VARCHAR NOT NULL", "ruleset name: 'base' | 'extra-salt' (R-X-RULESET-1)"),
        Col("meta", "JSON", "game_started.meta, as given (NULL if absent)"),
        Col("status", "VARCHAR NOT NULL", "'in_progress' | 'ended'"),
        Col("rounds_played", "SMALLINT NOT NULL", "rounds with a round_scored (deck-outs included)"),
        Col("events", "INTEGER NOT NULL", "stored events (= last seq)"),
        Col("end_reason", "VARCHAR", "'target' | 'mermaids'; NULL while in progress"),
        Col("winners", "TINYINT[]", "winning seats, ascending (several on a shared win); NULL while in progress"),
        Col("totals", "SMALLINT[] NOT NULL", "per seat, after the last scored round"),
        Col("started_at", "VARCHAR", "game_started.at, if given"),
        Col("ended_at", "VARCHAR", "game_ended.at, if given"),
        Col("event_setting", "VARCHAR", "game_started.events: 'pepper' (the events of Extra Pepper, "
                                        "R-X-RULESET-2); NULL for a game without events"),
    ), ("game_id",)),
    TableDef("seats", "One row per seat of each game.", (
        _GAME, _SEAT,
        Col("name", "VARCHAR NOT NULL", "the player's name"),
        Col("winner", "BOOLEAN", "the seat is among the winners; NULL while in progress"),
        Col("total", "SMALLINT NOT NULL", "the seat's total after the last scored round"),
    ), ("game_id", "seat")),
    TableDef("rounds", "One row per round started.", (
        _GAME, _ROUND,
        Col("first_player", "TINYINT NOT NULL", "seat that played turn 1 (R-SETUP-4)"),
        Col("deck_recorded", "BOOLEAN NOT NULL", "round_started carried the deck order"),
        Col("ending", "VARCHAR", "'stop' | 'last_chance' | 'deck_out' | 'mermaids' (four-mermaid win, "
                                 "round not scored) | NULL (in play)"),
        Col("caller", "TINYINT", "seat that called STOP or LAST CHANCE; NULL for a deck-out, a "
                                 "mermaid win or a round in play"),
        Col("caller_won", "BOOLEAN", "LAST CHANCE only: the caller had at least as many card points as "
                                     "every other player (R-LAST-4)"),
        Col("outcome", "VARCHAR", "LAST CHANCE only: 'won' | 'tied' (won on a tie) | 'lost'"),
        Col("caller_card_points", "SMALLINT", "the caller's card points at the end of the round"),
        Col("turns", "SMALLINT NOT NULL", "turns played in the round (a turn in play counts)"),
        Col("deck_left", "TINYINT NOT NULL", "cards left in the deck at the end (0 after a deck-out)"),
    ), ("game_id", "round")),
    TableDef("round_results", "One row per seat per scored round: the score breakdown at the end "
                              "of the round (R-SCORE-*) and what the seat scored.", (
        _GAME, _ROUND, _SEAT,
        Col("pairs", "SMALLINT NOT NULL", "card points from pairs, laid down or in hand (R-SCORE-DUO)"),
        Col("collectors", "SMALLINT NOT NULL", "card points from shells, octopuses, penguins, sailors "
                                               "(R-SCORE-COLLECT)"),
        Col("multipliers", "SMALLINT NOT NULL", "card points from lighthouse, shoal, colony, captain "
                                                "(R-SCORE-MULT)"),
        Col("mermaids", "SMALLINT NOT NULL", "card points from mermaids (R-SCORE-MERMAID)"),
        Col("card_points", "SMALLINT NOT NULL", "pairs + collectors + multipliers + mermaids"),
        Col("color_bonus", "SMALLINT NOT NULL", "size of the largest colour group (R-SCORE-BONUS)"),
        Col("points", "SMALLINT NOT NULL", "points scored this round (round_scored.points)"),
        Col("total", "SMALLINT NOT NULL", "total after this round (round_scored.totals)"),
        Col("card_points_scored", "BOOLEAN NOT NULL", "the seat's card points count in points (STOP; "
                                                      "LAST CHANCE: the caller if won, the others "
                                                      "if lost; never after a deck-out)"),
        Col("color_bonus_scored", "BOOLEAN NOT NULL", "the seat's colour bonus counts in points (LAST "
                                                      "CHANCE only: the caller always, the others "
                                                      "when the caller won)"),
    ), ("game_id", "round", "seat")),
    TableDef("turns", "One row per turn (LOG_FORMAT.md: Turns), the turn in play included. "
                      "Unique key (game_id, round, turn).", (
        _GAME, _ROUND, _TURN, _SEAT,
        Col("take", "VARCHAR NOT NULL", "the turn's take: 'deck' (deck_drawn) | 'discard' "
                                        "(discard_taken) | 'forced' (forced_drawn, "
                                        "R-X-JELLYFISH-TURN) | 'none' (nothing to take, R-TAKE-4)"),
        Col("drawn", "VARCHAR[]", "deck take: the cards drawn, in draw order (1 or 2 codes)"),
        Col("kept", "VARCHAR", "the card the take put in the hand: the kept card of a deck draw, "
                               "the card taken from a pile, or a forced turn's card"),
        Col("discarded", "VARCHAR", "deck take of two cards: the card put on a discard pile"),
        Col("discard_pile", "TINYINT", "deck take of two cards: the pile it went on (0/1)"),
        Col("pile", "TINYINT", "discard take: the pile taken from (0/1)"),
        Col("boat_takes", "TINYINT NOT NULL", "extra takes made thanks to boat pairs (R-DUO-BOAT)"),
        Col("boat_kept", "VARCHAR[] NOT NULL", "the card each boat take put in the hand, in order"),
        Col("duos", "TINYINT NOT NULL", "pairs played this turn (rows in duos)"),
        Col("ended", "VARCHAR", "how the turn ended: 'turn_ended' | 'stop' | 'last_chance'; NULL "
                                "while the turn is in play"),
        Col("final", "BOOLEAN NOT NULL", "a final turn after a LAST CHANCE call (R-LAST-1)"),
        Col("hand_size", "TINYINT NOT NULL", "cards in the player's hand at the end of the turn"),
        Col("card_points", "SMALLINT NOT NULL", "the player's card points at the end of the turn "
                                                "(hand and laid-down pairs, R-SCORE)"),
        Col("color_bonus", "SMALLINT NOT NULL", "the player's colour bonus at the end of the turn"),
        Col("deck_left", "TINYINT NOT NULL", "cards left in the deck at the end of the turn"),
        Col("first_seq", "INTEGER NOT NULL", "seq of the turn's first event (events.seq)"),
        Col("last_seq", "INTEGER NOT NULL", "seq of the turn's last event so far"),
    ), ("game_id", "round", "turn")),
    TableDef("duos", "One row per pair played (R-DUO-*, R-X-PAIRS, R-EV-WATER-RODEO). Unique "
                     "key (game_id, seq).", (
        _GAME, _ROUND, _TURN, _SEAT,
        Col("seq", "INTEGER NOT NULL", "the event's seq (events.seq)"),
        Col("kind", "VARCHAR NOT NULL", "'crab' | 'boat' | 'fish' | 'shark' (shark + swimmer); "
                                        "Extra Salt: 'lobster' (crab + lobster) | 'jellyfish' "
                                        "(swimmer + jellyfish); Water Rodeo: 'swimmers' | 'sharks'"),
        Col("cards", "VARCHAR[] NOT NULL", "the two cards laid down, as logged"),
        Col("effect", "BOOLEAN NOT NULL", "the effect happened: crab took a card, boat gave a take, "
                                          "fish drew a card, shark stole a card (R-DUO-NOEFFECT); "
                                          "lobster kept a card, jellyfish locked a player, "
                                          "swimmers swapped a card, sharks took a pair"),
        Col("card", "VARCHAR", "the card gained: crab took / fish drew / shark stole / lobster "
                               "kept / swimmers got; NULL for a boat, a jellyfish, sharks or no "
                               "effect"),
        Col("pile", "TINYINT", "crab: the discard pile looked through"),
        Col("victim", "TINYINT", "shark, swimmers, sharks: the seat stolen from"),
        Col("pair", "VARCHAR[]", "sharks (Water Rodeo): the victim's laid-down pair taken; NULL "
                                 "otherwise"),
    ), ("game_id", "seq")),
    TableDef("trios", "One row per starfish laid on a pair (R-X-TRIO); Extra Salt games only. "
                      "Unique key (game_id, seq).", (
        _GAME, _ROUND, _TURN, _SEAT,
        Col("seq", "INTEGER NOT NULL", "the starfish_played event's seq (events.seq)"),
        Col("cards", "VARCHAR[] NOT NULL", "the pair the starfish joined, as logged"),
        Col("starfish", "VARCHAR NOT NULL", "the starfish card"),
    ), ("game_id", "seq")),
    TableDef("face_down_shells", "One row per shell placed face down under the Coral Reef "
                                 "(R-EV-CORAL-REEF); games with events only. Unique key "
                                 "(game_id, seq).", (
        _GAME, _ROUND, _TURN, _SEAT,
        Col("seq", "INTEGER NOT NULL", "the shell_face_down event's seq (events.seq)"),
        Col("card", "VARCHAR NOT NULL", "the shell placed face down (scores nothing)"),
    ), ("game_id", "seq")),
    TableDef("round_events", "One row per seat per round started in a game with events "
                             "(R-EV-ROUND, R-EV-APPLY, R-EV-AWARD).", (
        _GAME, _ROUND, _SEAT,
        Col("table_event", "VARCHAR NOT NULL", "the round's table event (round_started.event)"),
        Col("held", "VARCHAR[] NOT NULL", "the events the seat held during the round (0 or 1)"),
        Col("effects", "VARCHAR[] NOT NULL", "the events in effect for the seat this round, "
                                             "sorted: the table event and those held (R-EV-APPLY)"),
        Col("held_after", "VARCHAR[]", "the events the seat holds after the round's award "
                                       "(event_awarded, then event_kept); NULL until the "
                                       "award, and after the game's last round"),
    ), ("game_id", "round", "seat")),
    TableDef("event_awards", "One row per event_awarded (R-EV-AWARD), with the event_kept "
                             "that may follow it.", (
        _GAME, _ROUND,
        Col("event", "VARCHAR NOT NULL", "the round's table event"),
        Col("to_seat", "TINYINT", "the seat that received it (R-EV-PLACE); NULL: discarded"),
        Col("discarded_by", "TINYINT[] NOT NULL", "the seats whose held event was discarded "
                                                  "(step 1), in seat order"),
        Col("discarded", "VARCHAR[] NOT NULL", "those events, in the same order"),
        Col("kept", "VARCHAR", "event_kept: the event to_seat kept of its two; NULL if it held "
                               "one"),
        Col("dropped", "VARCHAR", "event_kept: the other event, discarded"),
    ), ("game_id", "round")),
    TableDef("round_extra", "One row per seat per scored round of a game scored by RULES.md §12 "
                            "(an Extra Salt game or a game with events): the parts of the "
                            "card points the base tables do not have (R-X-SCORE), as the "
                            "engine scores them with the seat's events in effect.", (
        _GAME, _ROUND, _SEAT,
        Col("trios", "TINYINT NOT NULL", "laid-down trios (R-X-TRIO)"),
        Col("starfish", "SMALLINT NOT NULL", "card points from starfish: 2 per laid starfish "
                                             "and per hand starfish matched to a hand pair "
                                             "(R-X-SCORE-STARFISH)"),
        Col("seahorse", "VARCHAR", "the collector kind the seahorse joined (R-X-SCORE-SEAHORSE); "
                                   "NULL without a seahorse or when it joined none"),
        Col("seahorse_points", "SMALLINT NOT NULL", "card points the seahorse added"),
        Col("cast_of_crabs", "SMALLINT NOT NULL", "card points from the cast of crabs (R-X-SCORE-CAST)"),
        Col("rodeo_pairs", "TINYINT NOT NULL", "pairs in hand only the Water Rodeo makes "
                                               "(R-X-SCORE-DUO)"),
        Col("face_down", "TINYINT NOT NULL", "face-down shells left out (R-EV-CORAL-REEF)"),
        Col("tables", "VARCHAR[] NOT NULL", "events in effect that changed a scoring table "
                                            "(R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN, R-EV-TORNADO)"),
        Col("card_points", "SMALLINT NOT NULL", "the seat's card points (round_scored.card_points)"),
    ), ("game_id", "round", "seat")),
    TableDef("event_outcomes", "One row per scored round of a game with events per event in "
                               "effect for some seat: the round's winners as played, and as "
                               "they would be without that event's effect on the final scoring "
                               "(the play itself as it happened).", (
        _GAME, _ROUND,
        Col("event", "VARCHAR NOT NULL", "the event (the table event, or one a seat held)"),
        Col("seats", "TINYINT[] NOT NULL", "the seats it was in effect for (R-EV-APPLY)"),
        Col("winners", "TINYINT[] NOT NULL", "the seats with the most points this round "
                                             "(round_scored.points), ascending"),
        Col("winners_without", "TINYINT[] NOT NULL", "the same, with the round rescored by the "
                                                     "engine's scoring after removing the event "
                                                     "from every seat's effects"),
        Col("changes_winner", "BOOLEAN NOT NULL", "winners differs from winners_without"),
    ), ("game_id", "round", "event")),
)

CARDS = TableDef("cards", "The card catalog (RULES.md §1, RULES.md §10), one row per card "
                          "code; written once by the migration, not per game.", (
    Col("code", "VARCHAR NOT NULL", "canonical card code kind:colour"),
    Col("kind", "VARCHAR NOT NULL", "crab, boat, fish, swimmer, shark, shell, octopus, penguin, "
                                    "sailor, lighthouse, shoal, colony, captain, mermaid; Extra "
                                    "Salt: lobster, jellyfish, starfish, seahorse, castofcrabs"),
    Col("family", "VARCHAR NOT NULL", "'duo' | 'collector' | 'multiplier' | 'mermaid' | 'special' "
                                      "(starfish, seahorse)"),
    Col("color", "VARCHAR NOT NULL", "the card's colour (white for mermaids)"),
    Col("copies", "TINYINT NOT NULL", "copies of this code in a deck that has it"),
    Col("pairs_with", "VARCHAR", "duo cards: the kind that makes a pair with it (a crab's: "
                                 "crab; the lobster's: crab; the jellyfish's: swimmer)"),
    Col("multiplies", "VARCHAR", "multipliers: the kind it counts (R-SCORE-MULT, R-X-SCORE-CAST)"),
    Col("ruleset", "VARCHAR NOT NULL", "'base': in every deck (58 cards); 'extra-salt': only in "
                                       "the 66-card deck of that ruleset (R-X-CARDS-1)"),
), ("code",))

_PLAYER_GAMES = """
SELECT s.game_id, s.seat, s.name, g.n_players, g.status, g.end_reason, s.winner,
       len(g.winners) > 1 AS shared_win, s.total, g.rounds_played, g.target
FROM seats s JOIN games g USING (game_id)"""

VIEWS: tuple[ViewDef, ...] = (
    ViewDef("v_player_games", "One row per player per game: name, seat, player count, status, "
                              "win flag (winner, shared_win), total, rounds played.", _PLAYER_GAMES),
    ViewDef("v_round_results", "round_results with the player's name, the game's player count and "
                               "the round's ending, caller and whether this seat called.", """
SELECT rr.*, s.name, g.n_players, r.ending, r.caller, r.caller_won, r.outcome,
       rr.seat = r.caller AS is_caller
FROM round_results rr
JOIN seats s USING (game_id, seat)
JOIN games g USING (game_id)
JOIN rounds r USING (game_id, round)"""),
    ViewDef("v_calls", "One row per STOP or LAST CHANCE call: who called, on which turn, with how "
                       "many card points, and how the round ended.", """
SELECT t.game_id, g.n_players, t.round, t.turn, t.seat, s.name, t.ended AS call,
       t.card_points, r.ending, r.caller_won, r.outcome
FROM turns t
JOIN games g USING (game_id)
JOIN seats s USING (game_id, seat)
JOIN rounds r USING (game_id, round)
WHERE t.ended IN ('stop', 'last_chance')"""),
    ViewDef("v_turns", "turns with the player's name and the game's player count.", """
SELECT t.*, s.name, g.n_players
FROM turns t JOIN seats s USING (game_id, seat) JOIN games g USING (game_id)"""),
)

#: projection table -> its columns, in DDL order (the appender's row layout)
TABLES: dict[str, tuple[str, ...]] = {t.name: tuple(c.name for c in t.columns) for t in SCHEMA}


def _wrap(text: str, prefix: str = "-- ", width: int = 96) -> list[str]:
    import textwrap
    return [prefix + line for line in textwrap.wrap(text, width - len(prefix))]


def _table_ddl(t: TableDef, *, comments: bool = True) -> str:
    width = max(len(c.name) for c in t.columns)
    body = [f"    {c.name.ljust(width)} {c.type}" for c in t.columns]
    body = [line + ("," if i < len(body) - 1 else "") for i, line in enumerate(body)]
    pad = max(len(line) for line in body)
    lines = (_wrap(t.doc) if comments else []) + [f"CREATE TABLE IF NOT EXISTS {t.name} ("]
    for i, line in enumerate(body):
        doc = t.columns[i].doc if comments and i < len(t.columns) else None
        lines.append(f"{line.ljust(pad)}  -- {doc}" if doc else line)
    lines.append(");")
    return "\n".join(lines)


def _comments_ddl(t: TableDef) -> str:
    out = [f"COMMENT ON TABLE {t.name} IS {sql_literal(t.doc)};"]
    out += [f"COMMENT ON COLUMN {t.name}.{c.name} IS {sql_literal(c.doc)};" for c in t.columns]
    return "\n".join(out)


def cards_rows() -> list[tuple]:
    """The rows of the ``cards`` table: the catalog of RULES.md §1 and RULES.md §10, as the
    engine knows it."""
    partner = {}
    for a, b in DUO_PAIRS.values():
        partner[a], partner[b] = b, a
    base = [(f"{k}:{c}", k, FAMILIES[k], c, n, partner.get(k),
             MULTIPLIERS[k][0] if k in MULTIPLIERS else None, "base")
            for (k, c), n in COPIES.items()]
    from ..engine.rulings import EXTRA_SALT
    extra_pairs = {k: o for _, kinds in EXTRA_SALT.pairs for pair in kinds        # R-X-PAIRS
                   for k, o in (pair, pair[::-1]) if k in EXTRA_FAMILIES}
    return base + [(f"{k}:{c}", k, EXTRA_FAMILIES[k], c, n, extra_pairs.get(k),
                    CAST[1] if k == CAST[0] else None, "extra-salt")
                   for (k, c), n in EXTRA_COPIES.items()]


def _cards_seed() -> str:
    values = ",\n    ".join(
        "(" + ", ".join("NULL" if v is None else str(v) if isinstance(v, int) else sql_literal(v)
                        for v in row) + ")" for row in cards_rows())
    return (f"INSERT INTO cards SELECT * FROM (VALUES\n    {values}\n) "
            "WHERE NOT EXISTS (SELECT 1 FROM cards);")


def _view_ddl(v: ViewDef) -> str:
    return "\n".join(_wrap(v.doc) + [f"CREATE OR REPLACE VIEW {v.name} AS{v.sql};",
                                      f"COMMENT ON VIEW {v.name} IS {sql_literal(v.doc)};"])


PROJECTIONS_DDL = "\n\n".join(
    [_table_ddl(t) + "\n" + _comments_ddl(t) for t in SCHEMA]
    + [_table_ddl(CARDS) + "\n" + _comments_ddl(CARDS) + "\n" + _cards_seed()]
    + [_view_ddl(v) for v in VIEWS]) + "\n"
"""Every read model's DDL: the per-game tables, the card catalog (with its rows) and the views.
Idempotent: it creates what is missing and replaces the views."""

DROP_DDL = "\n".join([f"DROP VIEW IF EXISTS {v.name};" for v in VIEWS]
                     + [f"DROP TABLE IF EXISTS {t.name};" for t in (*SCHEMA, CARDS)]) + "\n"
"""Drops every read model (views first); the events table is never touched."""


# ---------------------------------------------------------------- version

def set_version(con) -> None:
    """Record that the read models are those of this :data:`PROJECTIONS_VERSION`."""
    con.execute("DELETE FROM store_meta WHERE key = 'projections_version'")
    con.execute("INSERT INTO store_meta VALUES ('projections_version', ?)", [str(PROJECTIONS_VERSION)])


def stored_version(con) -> str | None:
    """The read models' version recorded in the store, or None."""
    import duckdb
    try:
        row = first_row(con, "SELECT value FROM store_meta WHERE key = 'projections_version'")
    except duckdb.CatalogException:     # no store_meta table (a damaged store raises on)
        return None
    return row[0] if row else None


# ---------------------------------------------------------------- projection

_DUO_KIND: dict[type[ev.Event], str]
_DUO_KIND = {ev.CrabsPlayed: "crab", ev.BoatsPlayed: "boat", ev.FishPlayed: "fish",
             ev.SharkPlayed: "shark", ev.LobsterPlayed: "lobster", ev.JellyfishPlayed: "jellyfish",
             ev.SwimmersPlayed: "swimmers", ev.SharksPlayed: "sharks"}


def _sharks_row(e: ev.SharksPlayed, s) -> tuple:
    pair = e.pair
    return pair is not None, None, None, e.victim, list(pair) if pair is not None else None


#: a pair's ``duos`` columns effect, card, pile, victim and pair, by its event type (``s``:
#: the state after it)
_DUO_ROW: dict[type[ev.Event], Callable[[Any, Any], tuple]]
_DUO_ROW = {ev.CrabsPlayed: lambda e, s: (e.took is not None, e.took, e.pile, None, None),
            ev.BoatsPlayed: lambda e, s: (s.flow.step == BOAT_TAKE, None, None, None, None),
            ev.FishPlayed: lambda e, s: (e.drew is not None, e.drew, None, None, None),
            ev.SharkPlayed: lambda e, s: (e.stole is not None, e.stole, None, e.victim, None),
            ev.LobsterPlayed: lambda e, s: (e.kept is not None, e.kept, None, None, None),
            # R-X-JELLYFISH: the lock always holds
            ev.JellyfishPlayed: lambda e, s: (True, None, None, None, None),
            ev.SwimmersPlayed: lambda e, s: (e.got is not None, e.got, None, e.victim, None),
            ev.SharksPlayed: _sharks_row}
_ENDED = {ev.TurnEnded: "turn_ended", ev.StopCalled: "stop", ev.LastChanceCalled: "last_chance"}
_ENDS = frozenset(_ENDED)


def _scored_parts(e: ev.RoundScored, n: int) -> tuple[list[bool], list[bool]]:
    """Per seat: do card points / colour bonus count in ``e.points`` (R-STOP, R-LAST-4, R-DECKOUT)."""
    if e.ending == "stop":
        return [True] * n, [False] * n
    if e.ending == "deck_out":
        return [False] * n, [False] * n
    won = bool(e.caller_won)
    return ([(p == e.caller) == won for p in range(n)],
            [won or p == e.caller for p in range(n)])


def _seat_scoring(effects: list[frozenset[str]], hand_starfish: bool) -> list[Any]:
    """Each seat's :func:`~seasalt_log.scoring.event_scoring` of its events in effect
    ``effects`` and the starfish ruling ``hand_starfish``, by seat."""
    return [event_scoring(codes, hand_starfish) for codes in effects]


def project(game_id: str, events, states, types: bytes | None = None
            ) -> dict[str, list[tuple]]:
    """Rows of every projection table for one game (``states[i]`` follows ``events[i]``;
    ``types``: the events' type codes, as :meth:`Projector.feed` takes them)."""
    p = Projector(game_id, events[0], memo=False)     # each state is scored once
    p.feed(events, states, types)
    return _with_open(p.final, p.open_rows())


def _with_open(final: dict[str, list[tuple]], open_rows: dict[str, list[tuple]]
               ) -> dict[str, list[tuple]]:
    """``final`` (the final rows by table) with the ``open_rows`` added."""
    for t, r in open_rows.items():
        final[t].extend(r)
    return final


class Projector:
    """One game's read-model rows, kept up to date as its events come (the service's
    writer feeds it each append; :func:`project` feeds it a whole game at once).

    A row is *final* once no later event can change it (a closed turn, a pair played, a
    round's results, the rows of a round once the next one starts); the others are *open*
    (the turn in play, the latest round's ``rounds``, ``round_events`` and ``event_awards``
    rows, the ``games`` and ``seats`` rows) and are made again from their parts when asked
    for. :meth:`rows` gives what :func:`project` gives for the events fed; :meth:`changes`
    the rows to delete and to insert since its last call, without comparing the rows
    that cannot have changed."""

    __slots__ = ("game_id", "first", "seq", "prev", "last", "scores", "counted", "final",
                 "open_round", "seat_events", "awards", "turn", "last_turn", "flushed", "shown")

    def __init__(self, game_id: str, first: ev.GameStarted, *, memo: bool = True):
        """``memo``: keep the breakdowns by holding across the appends (:class:`ScoreMemo`)."""
        self.game_id, self.first = game_id, first
        self.seq = 0                     # events fed (the next one to feed is events[seq])
        self.prev: Any = None            # the state after the last event fed
        self.last: ev.Event | None = None  # the last event fed
        self.scores = ScoreMemo(memo)
        #: by seat, the record of its holding at its last closed turn, scored on from it
        #: (:func:`scoring.seat_points_and_bonus`): the game's own, so no thread shares it
        self.counted = seat_records(len(first.players))
        self.final: dict[str, list[tuple]] = {t: [] for t in TABLES}
        self.open_round: list | None = None     # the latest round's rounds row
        self.seat_events: list[list] = []       # its round_events rows
        self.awards: list[list] = []            # its event_awards rows
        self.turn: list | None = None    # the turn being collected (a turns row, as a list)
        #: (type, state after) of the round's latest turn event; (None, None) before the first
        self.last_turn: tuple[type[ev.Event] | None, State | None] = (None, None)
        self.flushed = dict.fromkeys(TABLES, 0)  # final rows :meth:`changes` has given
        self.shown: dict[str, dict[tuple, tuple]] = {}  # open rows it gave, by key

    def feed(self, events, states, types: bytes | None = None) -> None:
        """Take ``events[self.seq:]`` (``states[i]`` follows ``events[i]``). ``types``: each
        event's type code (:data:`events.TYPE_CODES`), of all ``events`` or of those taken,
        if known (an import's reader made them for the whole log: ``events.event_codes``);
        else made here."""
        if self.seq >= len(events):
            return
        game_id, scores = self.game_id, self.scores
        final = self.final
        turns, duos = final["turns"], final["duos"]
        open_round, seat_events, awards = self.open_round, self.seat_events, self.awards
        prev = self.prev
        n = states[-1].n
        start = self.seq
        in_play: Sequence[Any] = self.turn if self.turn is not None else _NO_TURN
        # the turn in play, column by column (:data:`_TURN_COLUMNS` less game_id, ended and
        # what its close fills); first_seq 0: no turn in play
        (_, rnd, turn_no, seat, take, drawn, kept, discarded, discard_pile, pile, boat_takes,
         boat_kept, pairs, _, final_turn, _, _, _, _, first_seq, _
         ) = in_play
        # the round in play: a turn's round is its flow's, which a round's start alone changes
        rnd = prev.flow.round if prev is not None else None
        in_turn, ended_by, counted = _IN_TURN, _ENDED_BY, self.counted
        new = events[start:] if start else events
        if types is None:
            types = ev.type_codes(new)
        elif len(types) != len(new):
            types = types[start:]
        # a closed turn's points, counted on from the seat's last count, by the game's
        # scoring: R-SCORE, or R-X-SCORE with the seat's events in effect
        rules = states[-1].ruleset
        extra, hand_starfish = rules.extra_scoring, rules.starfish_in_hand_scores
        # the scoring of the seats' events in effect (R-EV-APPLY) with the starfish ruling,
        # the same all round: the events change hands between rounds only (event_awarded,
        # event_kept, round_started)
        round_effects = seat_effects(prev) if extra and prev is not None else None
        round_scoring = _seat_scoring(round_effects, hand_starfish) if round_effects else []
        # the table at the start of the turn in play while only its take and its units laid
        # changed its seat's hand (the scorers' ``start``); None: a card came or went
        # otherwise (an event's), or the turn started before this feed
        turn_start = None
        # an event's seq is its state's (``State.seq``: the events applied), read where a row
        # needs it
        # each event's kind (:data:`_KIND`) from its type code, all in C: a look-up of its
        # type per event costs more than this loop's third item
        for e, s, k in zip(new, states[start:] if start else states,
                           types.translate(_KIND_BY_CODE)):
            if in_turn[k]:                              # a turn event
                if not first_seq:
                    f = prev.flow
                    # the seat: the flow's player (R-FLOW-PLAYER), read from one type (a read
                    # of ``e.player`` sees a dozen: this interpreter does not specialise it)
                    turn_no, seat = f.turn, f.player
                    take = "none" if f.step != TAKE else None
                    drawn = kept = discarded = discard_pile = pile = None
                    boat_takes = pairs = 0
                    boat_kept = _NO_BOAT_TAKES
                    final_turn = f.call is not None and f.call == "last_chance"   # (None: most)
                    first_seq = s.seq
                    turn_start = prev.table
                ended = ended_by[k]
                if ended is not None:           # the turn's last event: its row, closed
                    table = s.table
                    hand = table.hands[seat]
                    due = s.flow.due            # None: most turns (a cheaper test first)
                    if due is not None and due == "round_scored":   # the round's end, scored once
                        b = round_breakdowns(s)[seat]
                        card_points, color_bonus = b.card_points, b.color_bonus
                    elif extra:
                        card_points, color_bonus = seat_extra_scored(
                            counted, seat, hand, table.laid[seat], round_scoring[seat],
                            turn_start)
                    else:
                        try:
                            card_points, color_bonus = seat_points_and_bonus(
                                counted, seat, hand, table.laid[seat], turn_start)
                        except KeyError:        # Extra Salt cards: scored by breakdown
                            card_points, color_bonus = points_and_bonus(hand, table.laid[seat])
                    turns.append((game_id, rnd, turn_no, seat, take, drawn, kept, discarded,
                                  discard_pile, pile, boat_takes, boat_kept, pairs, ended,
                                  final_turn, len(hand), card_points, color_bonus,
                                  table.left, first_seq, s.seq))
                    first_seq = 0
                elif k <= _FORCED:                      # a take
                    if pairs and prev.flow.step == BOAT_TAKE:   # (boats played this turn)
                        boat_takes += 1
                        # a new list: rows of the turn in play already given keep theirs
                        boat_kept = [*boat_kept, e.kept if k == _DECK else e.card]
                    elif k == _DECK:
                        if e.dolphins_drew is not None:     # R-EV-DOLPHINS: a card more
                            turn_start = None
                        cards = e.cards
                        take, drawn, kept = "deck", [*cards], e.kept     # (a display: no call)
                        if len(cards) == 2:
                            discarded = cards[1] if cards[0] == kept else cards[0]
                            discard_pile = e.discard_pile
                    elif k == _DISCARD:
                        take, kept, pile = "discard", e.card, e.pile
                    else:
                        take, kept = "forced", e.card
                elif k == _DUO:
                    pairs += 1
                    t = type(e)
                    duos.append((game_id, rnd, turn_no, seat, s.seq, _DUO_KIND[t],
                                 [*e.cards]) + _DUO_ROW[t](e, s))
                elif k == _TRIO:
                    final["trios"].append((game_id, rnd, turn_no, seat, s.seq,
                                           [*e.cards], e.starfish))
                elif k == _FACE_DOWN:
                    final["face_down_shells"].append((game_id, rnd, turn_no, seat,
                                                      s.seq, e.card))
                    turn_start = None                # a shell out of the hand
                else:                           # the Angelfish's take (R-EV-ANGELFISH)
                    turn_start = None
            elif k == _ROUND_STARTED:
                if open_round is not None:              # the round before is final now
                    _progress(open_round, *_latest_turn_event(events, states, s.seq - 2))
                    final["rounds"].append(tuple(open_round))
                    final["round_events"].extend(map(tuple, seat_events))
                    final["event_awards"].extend(map(tuple, awards))
                    awards = []
                    scores.memo.clear()                 # no hand of that round comes back
                open_round = [game_id, e.round, e.first_player, e.deck is not None, None, None,
                              None, None, None, 0, s.table.left]
                rnd = s.flow.round
                if extra:
                    round_effects = seat_effects(s)
                    round_scoring = _seat_scoring(round_effects, hand_starfish)
                if s.game.table_event is not None:
                    seat_events = round_event_rows(game_id, s, round_effects)
                elif seat_events:
                    seat_events = []
            elif k == _SCORED:
                if open_round is not None:
                    _round_scored(game_id, prev, e, n, open_round, final, counted,
                                  round_effects)
            elif k == _AWARDED or k == _KEPT:
                held = s.game.held
                for row in seat_events:     # held_after: as it stands after this event
                    row[6] = list(held[row[2]])
                if k == _AWARDED:
                    awards.append([game_id, e.round, e.event, e.to,
                                   [d.player for d in e.discarded],
                                   [d.event for d in e.discarded], None, None])
                elif awards:
                    held = prev.held[e.player]
                    awards[-1][6:8] = [e.event, held[0] if held[1] == e.event else held[1]]
            elif k == _GAME_ENDED and e.reason == "mermaids" and open_round is not None:
                open_round[4] = "mermaids"
            prev = s
        seq = prev.seq
        self.last = events[seq - 1]
        self.seq, self.prev = seq, prev
        self.open_round, self.seat_events, self.awards = open_round, seat_events, awards
        self.last_turn = _, last = _latest_turn_event(events, states, seq - 1)
        # the turn in play in the same columns, ended and what its close fills left out; its
        # last event is the round's latest turn event (a turn in play has one)
        self.turn = ([game_id, rnd, turn_no, seat, take, drawn, kept, discarded, discard_pile,
                      pile, boat_takes, boat_kept, pairs, None, final_turn, 0, 0, 0, 0,
                      first_seq, last.seq] if first_seq and last is not None else None)

    def open_rows(self) -> dict[str, list[tuple]]:
        """The open rows as the events fed leave them, by table."""
        game_id, first, last = self.game_id, self.first, self.prev
        g = last.game
        n = len(g.players)
        open_round, turn = self.open_round, self.turn
        _progress(open_round, *self.last_turn)
        ended = last.phase == "ended"
        end = self.last if ended else None
        return {
            "rounds": [tuple(open_round)] if open_round is not None else [],
            "round_events": list(map(tuple, self.seat_events)),
            "event_awards": list(map(tuple, self.awards)),
            # the turn in play
            "turns": [_close_turn(turn, last, self.scores.points)] if turn is not None else [],
            "games": [(
                game_id, list(first.players), n, g.target, g.ruleset.name,
                bytes(first.meta).decode() if first.meta is not msgspec.UNSET else None,
                "ended" if ended else "in_progress", g.rounds_played, last.seq,
                g.reason if ended else None, list(g.winners) if ended else None,
                list(g.totals), first.at, end.at if end is not None else None,
                g.ruleset.events)],
            "seats": [(game_id, p, first.players[p], (p in g.winners) if ended else None,
                       g.totals[p]) for p in range(n)]}

    def rows(self) -> dict[str, list[tuple]]:
        """Every row of the events fed, by table, in the order :func:`project` gives."""
        return _with_open({t: list(r) for t, r in self.final.items()}, self.open_rows())

    def changes(self, keys: dict[str, list[tuple]], insert: dict[str, list[tuple]]) -> None:
        """Add to ``keys[table]`` the keys of the rows to delete and to ``insert[table]``
        the rows to insert to bring the rows given by the last call (none before the first)
        up to date: the final rows made since, and the open rows that changed."""
        final, flushed, shown = self.final, self.flushed, self.shown
        for t, now in self.open_rows().items():
            if now or t in shown:
                _changed_rows(t, final[t], flushed[t], shown.pop(t, {}), now, keys[t], insert[t])
                flushed[t] = len(final[t])
                if now:
                    shown[t] = {ROW_KEY[t](r): r for r in now}
        for t, rows in final.items():
            done = flushed[t]
            if done < len(rows):
                insert[t].extend(rows[done:])
                flushed[t] = len(rows)


def _changed_rows(table: str, final: list[tuple], done: int, shown: dict[tuple, tuple],
                  now: list[tuple], keys: list[tuple], insert: list[tuple]) -> None:
    """The changes of one table of :meth:`Projector.changes`: ``final[done:]`` and ``now``
    (the open rows) against ``shown`` (the open rows last given, by key)."""
    key = ROW_KEY[table]
    for r in chain(final[done:], now):
        if shown:               # a row given before: rewritten only when it changed
            k = key(r)
            old = shown.pop(k, None)
            if old == r:
                continue
            if old is not None:
                keys.append(k)
        insert.append(r)
    keys.extend(shown)          # rows gone (none: a row, once made, stays)


#: the columns that identify a row (its table's key), by table
KEY_COLUMNS = {t.name: t.key for t in SCHEMA}


def _row_key(table: TableDef):
    idx = tuple(c.name for c in table.columns)
    cols = [idx.index(c) for c in KEY_COLUMNS[table.name]]
    if len(cols) == 1:
        i = cols[0]
        return lambda r: (r[i],)
    return itemgetter(*cols)


#: a function giving a row's key (the values of its :data:`KEY_COLUMNS`) by table
ROW_KEY = {t.name: _row_key(t) for t in SCHEMA}


#: the ``turns`` row's columns (:data:`TABLES`): a closed turn's row, the turn in play as
#: :attr:`Projector.turn` keeps it between appends and the turn in play's row all follow them
_TURN_COLUMNS = TABLES["turns"]
#: where the columns a turn's close fills are in that row (:func:`_close_turn`)
_SEAT_AT, _HAND_SIZE_AT, _CARD_POINTS_AT, _COLOR_BONUS_AT, _DECK_LEFT_AT = map(
    _TURN_COLUMNS.index, ("seat", "hand_size", "card_points", "color_bonus", "deck_left"))
#: :meth:`Projector.feed`'s turn in play when there is none (first_seq 0)
_NO_TURN: tuple[Any, ...] = tuple(0 if c.endswith("_seq") else None for c in _TURN_COLUMNS)
#: a turn's ``boat_kept`` before its first boat take: one list for every such row (a boat
#: take makes a new one; nothing changes a row's lists)
_NO_BOAT_TAKES: list[str] = []

#: what :meth:`Projector.feed` does with an event, by its type: a turn's events first (a
#: turn's end, the takes, a pair, a starfish, a face-down shell, another play), then the others
(_TURN_ENDED, _STOP, _LAST_CHANCE, _DECK, _DISCARD, _FORCED, _DUO, _TRIO, _FACE_DOWN, _PLAY,
 _ROUND_STARTED, _SCORED, _AWARDED, _KEPT, _GAME_ENDED, _OTHER) = range(16)
#: by kind: whether it is a turn's event (the kinds before _ROUND_STARTED), and a turn's
#: end's ``ended`` column (None: not a turn's end). :meth:`Projector.feed` tests these rather
#: than comparing kinds: this interpreter does not specialise a comparison whose branch jumps
#: as far as those would (an ``EXTENDED_ARG`` follows it), about 100 instructions per test
_IN_TURN = tuple(k < _ROUND_STARTED for k in range(_OTHER + 1))
_ENDED_BY = (*_ENDED.values(), *[None] * (_OTHER - _LAST_CHANCE))
_KIND: dict[type[ev.Event], int]
_KIND = {**dict.fromkeys(ev.EVENT_TYPES, _OTHER), **{t: k for k, t in enumerate(_ENDED)},
         ev.DeckDrawn: _DECK, ev.DiscardTaken: _DISCARD, ev.ForcedDrawn: _FORCED,
         **dict.fromkeys(_DUO_KIND, _DUO), ev.StarfishPlayed: _TRIO,
         ev.ShellFaceDown: _FACE_DOWN, ev.AngelfishTaken: _PLAY,
         ev.RoundStarted: _ROUND_STARTED, ev.RoundScored: _SCORED, ev.EventAwarded: _AWARDED,
         ev.EventKept: _KEPT, ev.GameEnded: _GAME_ENDED}


#: :data:`_KIND` by type code (:data:`events.TYPE_CODES`), a ``bytes.translate`` table
_KIND_BY_CODE = bytes(_KIND[ev.EVENT_TYPES[c]] if c < len(ev.EVENT_TYPES) else _OTHER
                      for c in range(256))


def _round_scored(game_id: str, s, e: ev.RoundScored, n: int, open_round: list,
                  final: dict[str, list], counted: list[Any],
                  effects: list[frozenset[str]] | None) -> None:
    """The rows round ``e`` makes (``s``: the state before it): its ``rounds`` row's ending,
    its ``round_results`` rows and, under RULES.md §12, its ``round_extra`` and
    ``event_outcomes`` rows. The seats' breakdowns are those the engine's check of ``e``
    scored (:func:`~seasalt_log.engine.core.round_breakdowns`); ``counted``: the closed turns'
    records of the seats' holdings, which :func:`event_outcomes` rescores from; ``effects``:
    each seat's events in effect this round (None: read from ``s``)."""
    caller = e.caller
    open_round[4:9] = [e.ending, caller, e.caller_won,
                       last_chance_outcome(caller, e.card_points)
                       if e.ending == "last_chance" and caller is not None else None,
                       e.card_points[caller] if caller is not None else None]
    cards_scored, bonus_scored = _scored_parts(e, n)
    rnd, points, totals = e.round, e.points, e.totals
    parts = round_breakdowns(s)
    results = final["round_results"]
    g = s.game
    if g.ruleset.extra_scoring:
        # as_breakdown's columns (a starfish counts with the pairs), without its Breakdown,
        # and the round_extra row of the same breakdown (R-X-SCORE)
        extra_parts = final["round_extra"]
        for p, x in enumerate(parts):
            assert isinstance(x, ExtraBreakdown)    # written only under RULES.md §12
            results.append((game_id, rnd, p, x.pairs + x.starfish, x.collectors,
                            x.multipliers, x.mermaids, x.card_points, x.color_bonus,
                            points[p], totals[p], cards_scored[p], bonus_scored[p]))
            extra_parts.append((game_id, rnd, p, x.trios, x.starfish, x.seahorse,
                                x.seahorse_points, x.cast, x.rodeo_pairs, x.face_down,
                                list(x.tables), x.card_points))
        if g.table_event is not None:
            final["event_outcomes"].extend(event_outcomes(
                game_id, s, e, [(b.card_points, b.color_bonus) for b in parts], counted,
                effects))
    else:
        results.extend(
            (game_id, rnd, p, b.pairs, b.collectors, b.multipliers, b.mermaids, b.card_points,
             b.color_bonus, points[p], totals[p], cards_scored[p], bonus_scored[p])
            for p, b in enumerate(parts))


def _latest_turn_event(events, states, i: int) -> tuple[type[ev.Event] | None, State | None]:
    """(type, state after) of the latest turn event of the round in play at ``events[i]``,
    looked for from ``events[i]`` back to the round's start; (None, None) if it has none."""
    kinds = _KIND
    while i >= 0:
        t = type(events[i])
        k = kinds[t]
        if k < _ROUND_STARTED:
            return t, states[i]
        if k == _ROUND_STARTED:
            break
        i -= 1
    return None, None


def _progress(open_round: list | None, t: type | None, s) -> None:
    """A round's turns played and deck left, from its latest turn event (``t``, its type)
    and the state after it (``s``; None: no turn event yet)."""
    if open_round is None or s is None:
        return
    open_round[9] = s.flow.turn if s.flow.due else s.flow.turn - (t in _ENDS)
    open_round[10] = s.table.left


class ScoreMemo:
    """Breakdowns by hand and laid-down pairs, kept across the appends a :class:`Projector`
    takes (states are immutable, so an unchanged hand is the very same tuple; the memo holds
    them, so their ids stay theirs)."""

    __slots__ = ("memo", "keep")

    def __init__(self, keep: bool = True) -> None:
        """``keep``: False for states that are each scored once (a whole game projected at
        once): nothing is kept."""
        self.memo: dict[tuple, tuple] = {}
        self.keep = keep

    def of(self, state, seat: int):
        """The seat's breakdown in ``state`` by the engine's scoring (with the events in
        effect for the seat, R-EV-APPLY), in the columns of :class:`scoring.Breakdown`."""
        if not self.keep:
            return as_breakdown(player_breakdown(state, seat))
        table = state.table
        hand, laid = table.hands[seat], table.laid[seat]
        effects = state.effects(seat)
        key = (id(hand), id(laid), effects)
        got = self.memo.get(key)
        if got is not None and got[0] is hand and got[1] is laid:
            return got[2]
        b = as_breakdown(player_breakdown(state, seat))
        self.memo[key] = (hand, laid, b)
        return b

    def points(self, state, seat: int) -> tuple[int, int]:
        """(card points, colour bonus) of :meth:`of`."""
        b = self.of(state, seat)
        return b.card_points, b.color_bonus


def _close_turn(turn: list, s, points) -> tuple:
    """The turns row of the turn in play (``turn``: as :meth:`Projector.feed` keeps it, in
    the row's columns), with the player's hand, points and the deck as they are in ``s``
    (``points(s, seat)``: the seat's card points and colour bonus, through the
    :class:`ScoreMemo` of the calls that follow it).

    :meth:`Projector.feed` builds a closed turn's row itself, from its locals, in the same
    columns (:data:`_TURN_COLUMNS`): a builder shared with it would be a call per closed
    turn, about 360 more instructions per event of an import (bench/RESULTS.md)."""
    table = s.table
    seat = turn[_SEAT_AT]
    turn[_HAND_SIZE_AT] = len(table.hands[seat])
    turn[_CARD_POINTS_AT], turn[_COLOR_BONUS_AT] = points(s, seat)
    turn[_DECK_LEFT_AT] = table.left
    return tuple(turn)
