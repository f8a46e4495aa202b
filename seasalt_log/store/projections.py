"""Read models derived from a checked game's events and states (DESIGN.md: projections).

:func:`project` turns one game into rows for every projection table. The store writes them
in the same transaction as the game's events; ``seasalt rebuild`` recomputes them from the
events table alone. The columns use the vocabulary of RULES.md and LOG_FORMAT.md.
"""

from __future__ import annotations

import msgspec

from .. import events as ev
from ..scoring import breakdown, last_chance_outcome

PROJECTIONS_DDL = """
-- One row per stored game.
CREATE TABLE IF NOT EXISTS games (
    game_id        VARCHAR PRIMARY KEY,
    players        VARCHAR[] NOT NULL,  -- names by seat
    n_players      TINYINT  NOT NULL,
    target         SMALLINT NOT NULL,
    ruleset        VARCHAR  NOT NULL,
    meta           JSON,                -- game_started.meta, as given
    status         VARCHAR  NOT NULL,   -- 'in_progress' | 'ended'
    rounds_played  SMALLINT NOT NULL,   -- rounds with a round_scored
    events         INTEGER  NOT NULL,   -- stored events (= last seq)
    end_reason     VARCHAR,             -- 'target' | 'mermaids' | NULL while in progress
    winners        TINYINT[],           -- seats; NULL while in progress
    totals         SMALLINT[] NOT NULL, -- per seat, after the last scored round
    started_at     VARCHAR,             -- game_started.at, if given
    ended_at       VARCHAR              -- game_ended.at, if given
);

-- One row per seat of each game.
CREATE TABLE IF NOT EXISTS seats (
    game_id  VARCHAR NOT NULL,
    seat     TINYINT NOT NULL,
    name     VARCHAR NOT NULL,
    winner   BOOLEAN,                   -- NULL while in progress
    total    SMALLINT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- One row per round started.
CREATE TABLE IF NOT EXISTS rounds (
    game_id       VARCHAR  NOT NULL,
    round         SMALLINT NOT NULL,
    first_player  TINYINT  NOT NULL,
    deck_recorded BOOLEAN  NOT NULL,    -- round_started carried the deck order
    ending        VARCHAR,              -- 'stop' | 'last_chance' | 'deck_out' | 'mermaids' | NULL (in play)
    caller        TINYINT,
    caller_won    BOOLEAN,              -- LAST CHANCE only
    outcome       VARCHAR,              -- 'won' | 'tied' | 'lost' (LAST CHANCE only)
    caller_card_points SMALLINT,        -- the caller's card points at the end of the round
    turns         SMALLINT NOT NULL,    -- turns played
    deck_left     TINYINT  NOT NULL,    -- cards left in the deck at the end
    PRIMARY KEY (game_id, round)
);

-- One row per seat per scored round: the score breakdown (R-SCORE-*) and the result.
CREATE TABLE IF NOT EXISTS round_results (
    game_id      VARCHAR  NOT NULL,
    round        SMALLINT NOT NULL,
    seat         TINYINT  NOT NULL,
    pairs        SMALLINT NOT NULL,
    collectors   SMALLINT NOT NULL,
    multipliers  SMALLINT NOT NULL,
    mermaids     SMALLINT NOT NULL,
    card_points  SMALLINT NOT NULL,
    color_bonus  SMALLINT NOT NULL,
    points       SMALLINT NOT NULL,     -- this round
    total        SMALLINT NOT NULL,     -- after this round
    PRIMARY KEY (game_id, round, seat)
);
"""

#: projection table -> its columns, in DDL order (the appender's row layout)
TABLES: dict[str, tuple[str, ...]] = {
    "games": ("game_id", "players", "n_players", "target", "ruleset", "meta", "status",
              "rounds_played", "events", "end_reason", "winners", "totals", "started_at",
              "ended_at"),
    "seats": ("game_id", "seat", "name", "winner", "total"),
    "rounds": ("game_id", "round", "first_player", "deck_recorded", "ending", "caller",
               "caller_won", "outcome", "caller_card_points", "turns", "deck_left"),
    "round_results": ("game_id", "round", "seat", "pairs", "collectors", "multipliers",
                      "mermaids", "card_points", "color_bonus", "points", "total"),
}


def project(game_id: str, events, states) -> dict[str, list[tuple]]:
    """Rows of every projection table for one game (``states[i]`` follows ``events[i]``)."""
    rows: dict[str, list[tuple]] = {t: [] for t in TABLES}
    start: ev.GameStarted = events[0]
    last = states[-1]
    n = last.n
    rounds = rows["rounds"]
    open_round: list | None = None
    prev = None
    for e, s in zip(events, states):
        t = type(e)
        if t is ev.RoundStarted:
            open_round = [game_id, e.round, e.first_player, e.deck is not None, None, None,
                          None, None, None, 0, len(s.table.deck)]
            rounds.append(open_round)  # type: ignore[arg-type]
        elif t is ev.RoundScored and open_round is not None:
            table = prev.table
            b = [breakdown(table.hands[p], table.laid[p]) for p in range(n)]
            open_round[4:9] = [e.ending, e.caller, e.caller_won,
                               last_chance_outcome(e.caller, e.card_points)
                               if e.ending == "last_chance" else None,
                               e.card_points[e.caller] if e.caller is not None else None]
            rows["round_results"].extend(
                (game_id, e.round, p, b[p].pairs, b[p].collectors, b[p].multipliers,
                 b[p].mermaids, b[p].card_points, b[p].color_bonus, e.points[p], e.totals[p])
                for p in range(n))
        elif t is ev.GameEnded and e.reason == "mermaids" and open_round is not None:
            open_round[4] = "mermaids"
        if open_round is not None and t in ev.TURN_TYPES:
            open_round[9] = s.flow.turn if s.flow.due else s.flow.turn - (t in _ENDS)
            open_round[10] = len(s.table.deck)
        prev = s
    ended = last.phase == "ended"
    end = events[-1] if ended else None
    rows["rounds"] = [tuple(r) for r in rounds]
    rows["games"].append((
        game_id, list(start.players), n, last.target, last.ruleset.name,
        msgspec.json.encode(start.meta).decode() if start.meta is not None else None,
        "ended" if ended else "in_progress", last.rounds_played, last.seq,
        last.reason if ended else None, list(last.winners) if ended else None,
        list(last.totals), start.at, end.at if end is not None else None))
    rows["seats"].extend((game_id, p, start.players[p], (p in last.winners) if ended else None,
                          last.totals[p]) for p in range(n))
    return rows


_ENDS = frozenset((ev.TurnEnded, ev.StopCalled, ev.LastChanceCalled))
