-- LAST CHANCE success rate by the caller's card points (NULL = every value); a tie counts as a win (R-LAST-4).
WITH g AS (
    SELECT game_id
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
)
SELECT
    r.caller_card_points                      AS card_points,
    count(*)                                                         AS calls,
    count(*) FILTER (WHERE r.outcome = 'won')                        AS won,
    count(*) FILTER (WHERE r.outcome = 'tied')                       AS tied,
    count(*) FILTER (WHERE r.outcome = 'lost')                       AS lost,
    round(count(*) FILTER (WHERE r.caller_won) / nullif(count(*), 0), 3)        AS success_rate
FROM rounds r
JOIN g USING (game_id)
JOIN seats s ON s.game_id = r.game_id AND s.seat = r.caller
WHERE r.ending = 'last_chance'
  AND ($player IS NULL OR s.name = $player)
GROUP BY ROLLUP (r.caller_card_points)
ORDER BY grouping(r.caller_card_points), r.caller_card_points;
