-- Duo effects used: pairs played by kind, with and without their effect (R-DUO-NOEFFECT), and per game.
WITH g AS (
    SELECT game_id
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
)
SELECT
    CASE WHEN grouping(d.kind) = 1 THEN 'all' ELSE d.kind END          AS kind,
    count(*)                                                            AS played,
    count(*) FILTER (WHERE d.effect)                                    AS with_effect,
    count(*) FILTER (WHERE NOT d.effect)                                AS without_effect,
    round(count(*) FILTER (WHERE d.effect) / nullif(count(*), 0), 3)               AS effect_rate,
    round(count(*) / nullif((SELECT count(*) FROM g), 0), 3)                       AS per_game
FROM duos d
JOIN g USING (game_id)
JOIN seats s USING (game_id, seat)
WHERE ($player IS NULL OR s.name = $player)
GROUP BY ROLLUP (d.kind)
ORDER BY grouping(d.kind), list_position(['crab', 'boat', 'fish', 'shark', 'lobster', 'jellyfish', 'swimmers', 'sharks'], d.kind);
