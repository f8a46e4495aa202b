-- How often each event changes the round's winner: scored rounds with the event in effect, and those whose winners (most points) differ once the engine rescores the final hands without the event (the play as it happened).
WITH g AS (
    SELECT game_id
    FROM games
    WHERE event_setting IS NOT NULL
      AND ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
o AS (
    SELECT o.*
    FROM event_outcomes o
    JOIN g USING (game_id)
    WHERE $player IS NULL
       OR list_contains(o.seats, (SELECT s.seat FROM seats s
                                  WHERE s.game_id = o.game_id AND s.name = $player LIMIT 1))
)
SELECT
    CASE WHEN grouping(event) = 1 THEN 'all' ELSE event END          AS event,
    count(*)                                                          AS rounds,
    count(*) FILTER (WHERE changes_winner)                            AS changed,
    round(count(*) FILTER (WHERE changes_winner) / nullif(count(*), 0), 3) AS change_rate
FROM o
GROUP BY ROLLUP (event)
ORDER BY grouping(event), event;
