-- Games, rounds, turns and events by player count (NULL = every count), with averages per game and per round.
WITH g AS (
    SELECT game_id, n_players, status, events
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
r AS (
    SELECT game_id, count(*) AS rounds, sum(turns) AS turns
    FROM rounds
    WHERE game_id IN (SELECT game_id FROM g)
    GROUP BY game_id
)
SELECT
    n_players AS players,
    count(*)                                              AS games,
    count(*) FILTER (WHERE status = 'ended')              AS ended,
    count(*) FILTER (WHERE status = 'in_progress')        AS in_progress,
    coalesce(sum(r.rounds), 0)::BIGINT                    AS rounds,
    coalesce(sum(r.turns), 0)::BIGINT                     AS turns,
    coalesce(sum(events), 0)::BIGINT                      AS events,
    round(coalesce(sum(r.rounds), 0) / nullif(count(*), 0), 2)       AS rounds_per_game,
    round(sum(r.turns) / nullif(sum(r.rounds), 0), 2)     AS turns_per_round
FROM g LEFT JOIN r USING (game_id)
GROUP BY ROLLUP (n_players)
ORDER BY grouping(n_players), n_players;
