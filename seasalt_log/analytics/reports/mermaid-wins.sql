-- Four-mermaid wins (R-MERMAID-WIN) among ended games by player count, and the round they came in.
WITH g AS (
    SELECT game_id, n_players, players, end_reason, winners
    FROM games
    WHERE status = 'ended'
      AND ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
m AS (
    SELECT g.game_id, g.n_players,
           g.end_reason = 'mermaids'
             AND ($player IS NULL OR g.players[g.winners[1] + 1] = $player) AS mermaid_win,
           r.round AS win_round
    FROM g LEFT JOIN rounds r ON r.game_id = g.game_id AND r.ending = 'mermaids'
)
SELECT
    n_players AS players,
    count(*)                                                  AS games,
    count(*) FILTER (WHERE mermaid_win)                       AS mermaid_wins,
    round(count(*) FILTER (WHERE mermaid_win) / nullif(count(*), 0), 4)  AS share,
    round(avg(win_round) FILTER (WHERE mermaid_win), 2)       AS avg_round,
    min(win_round) FILTER (WHERE mermaid_win)                 AS first_round,
    max(win_round) FILTER (WHERE mermaid_win)                 AS last_round
FROM m
GROUP BY ROLLUP (n_players)
ORDER BY grouping(n_players), n_players;
