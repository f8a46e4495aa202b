-- Round length in turns and deck-out rate by player count, over rounds that ended (NULL = every count).
WITH g AS (
    SELECT game_id, n_players
    FROM games
    WHERE ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
)
SELECT
    g.n_players AS players,
    count(*)                                                        AS rounds,
    round(avg(r.turns), 2)                                          AS avg_turns,
    quantile_cont(r.turns, 0.5)                                     AS median_turns,
    min(r.turns)                                                    AS min_turns,
    max(r.turns)                                                    AS max_turns,
    count(*) FILTER (WHERE r.ending = 'deck_out')                   AS deck_outs,
    round(count(*) FILTER (WHERE r.ending = 'deck_out') / nullif(count(*), 0), 3) AS deck_out_rate
FROM rounds r JOIN g USING (game_id)
WHERE r.ending IS NOT NULL
GROUP BY ROLLUP (g.n_players)
ORDER BY grouping(g.n_players), g.n_players;
