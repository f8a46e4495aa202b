-- Points scored by source: pairs, collectors, multipliers, mermaids (when card points counted) and colour bonus (when it counted).
WITH g AS (
    SELECT game_id
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
rr AS (
    SELECT rr.*
    FROM round_results rr
    JOIN g USING (game_id)
    JOIN seats s USING (game_id, seat)
    WHERE ($player IS NULL OR s.name = $player)
),
t AS (
    SELECT
        coalesce(sum(pairs) FILTER (WHERE card_points_scored), 0)       AS pairs,
        coalesce(sum(collectors) FILTER (WHERE card_points_scored), 0)  AS collectors,
        coalesce(sum(multipliers) FILTER (WHERE card_points_scored), 0) AS multipliers,
        coalesce(sum(mermaids) FILTER (WHERE card_points_scored), 0)    AS mermaids,
        coalesce(sum(color_bonus) FILTER (WHERE color_bonus_scored), 0) AS color_bonus,
        coalesce(sum(points), 0)                                        AS total,
        count(*)                                                        AS seat_rounds
    FROM rr
),
s AS (
    SELECT 1 AS o, 'pairs' AS source, pairs AS points FROM t
    UNION ALL SELECT 2, 'collectors', collectors FROM t
    UNION ALL SELECT 3, 'multipliers', multipliers FROM t
    UNION ALL SELECT 4, 'mermaids', mermaids FROM t
    UNION ALL SELECT 5, 'color_bonus', color_bonus FROM t
    UNION ALL SELECT 6, 'all', total FROM t
)
SELECT
    s.source,
    s.points::BIGINT                                     AS points,
    round(s.points / nullif(t.seat_rounds, 0), 3)        AS per_seat_round,
    round(s.points / nullif(t.total, 0), 3)              AS share
FROM s, t
ORDER BY s.o;
