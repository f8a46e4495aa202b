-- STOP vs LAST CHANCE: calls of scored rounds by player count, the share of each, and how often LAST CHANCE won.
WITH g AS (
    SELECT game_id, n_players
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
c AS (
    SELECT g.n_players, r.ending, r.caller_won
    FROM rounds r
    JOIN g USING (game_id)
    JOIN seats s ON s.game_id = r.game_id AND s.seat = r.caller
    WHERE r.ending IN ('stop', 'last_chance')
      AND ($player IS NULL OR s.name = $player)
)
SELECT
    n_players AS players,
    count(*)                                                        AS calls,
    count(*) FILTER (WHERE ending = 'stop')                         AS stop,
    count(*) FILTER (WHERE ending = 'last_chance')                  AS last_chance,
    round(count(*) FILTER (WHERE ending = 'stop') / nullif(count(*), 0), 3)    AS stop_share,
    round(count(*) FILTER (WHERE ending = 'last_chance') / nullif(count(*), 0), 3) AS last_chance_share,
    count(*) FILTER (WHERE caller_won)                              AS last_chance_won,
    count(*) FILTER (WHERE NOT caller_won)                          AS last_chance_lost,
    round(count(*) FILTER (WHERE caller_won)
          / nullif(count(*) FILTER (WHERE ending = 'last_chance'), 0), 3) AS last_chance_success
FROM c
GROUP BY ROLLUP (n_players)
ORDER BY grouping(n_players), n_players;
