-- Per-player record: games, wins (shared wins included), win rate over ended games, rounds and average points per round.
WITH g AS (
    SELECT game_id, status
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
pr AS (
    SELECT game_id, seat, count(*) AS rounds, sum(points) AS points
    FROM round_results
    WHERE game_id IN (SELECT game_id FROM g)
    GROUP BY game_id, seat
)
SELECT
    s.name                                                          AS player,
    count(*)                                                        AS games,
    count(*) FILTER (WHERE g.status = 'ended')                      AS ended,
    count(*) FILTER (WHERE s.winner)                                AS wins,
    round(count(*) FILTER (WHERE s.winner)
          / nullif(count(*) FILTER (WHERE g.status = 'ended'), 0), 3) AS win_rate,
    coalesce(sum(pr.rounds), 0)::BIGINT                             AS rounds,
    round(sum(pr.points) / nullif(sum(pr.rounds), 0), 2)            AS points_per_round
FROM seats s
JOIN g USING (game_id)
LEFT JOIN pr USING (game_id, seat)
WHERE ($player IS NULL OR s.name = $player)
GROUP BY s.name
ORDER BY wins DESC, player;
