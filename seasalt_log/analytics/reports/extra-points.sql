-- Points from the Extra Salt scoring (R-X-SCORE): starfish (trios and hand starfish), the seahorse and the cast of crabs, counted when the seat's card points counted in its round points.
WITH g AS (
    SELECT game_id
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
x AS (
    SELECT x.*
    FROM round_extra x
    JOIN round_results rr USING (game_id, round, seat)
    JOIN g USING (game_id)
    JOIN seats s USING (game_id, seat)
    WHERE rr.card_points_scored AND ($player IS NULL OR s.name = $player)
),
t AS (
    SELECT 1 AS o, 'starfish' AS source, count(*) FILTER (WHERE starfish > 0) AS seat_rounds,
           coalesce(sum(starfish), 0) AS points, coalesce(sum(trios), 0) AS trios FROM x
    UNION ALL
    SELECT 2, 'seahorse', count(*) FILTER (WHERE seahorse_points > 0),
           coalesce(sum(seahorse_points), 0), NULL FROM x
    UNION ALL
    SELECT 3, 'cast_of_crabs', count(*) FILTER (WHERE cast_of_crabs > 0), coalesce(sum(cast_of_crabs), 0), NULL FROM x
)
SELECT
    source,
    seat_rounds                                                  AS seat_rounds_scoring,
    points::BIGINT                                               AS points,
    trios::BIGINT                                                AS laid_trios,
    round(points / nullif((SELECT count(*) FROM x), 0), 3)       AS per_seat_round
FROM t
ORDER BY o;
