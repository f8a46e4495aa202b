-- Win rate by player count and seat over ended games (NULL = every seat / count); a shared win counts for each winner.
WITH g AS (
    SELECT game_id, n_players, len(winners) > 1 AS shared
    FROM games
    WHERE status = 'ended'
      AND ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
)
SELECT
    g.n_players AS players,
    s.seat           AS seat,
    count(*)                                                  AS games,
    count(*) FILTER (WHERE s.winner)                          AS wins,
    count(*) FILTER (WHERE s.winner AND NOT g.shared)         AS sole_wins,
    round(count(*) FILTER (WHERE s.winner) / nullif(count(*), 0), 3)     AS win_rate
FROM seats s JOIN g USING (game_id)
WHERE ($player IS NULL OR s.name = $player)
GROUP BY GROUPING SETS ((g.n_players, s.seat), (g.n_players), ())
ORDER BY grouping(g.n_players), g.n_players, grouping(s.seat), s.seat;
