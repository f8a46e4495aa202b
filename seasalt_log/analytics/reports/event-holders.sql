-- Events held (R-EV-AWARD): per event, the rounds a player held it and how often that player won the round (most points, ties count for each), and the games they held it in and how often they won the game (ended games).
WITH g AS (
    SELECT game_id, status
    FROM games
    WHERE event_setting IS NOT NULL
      AND ($players IS NULL OR n_players = $players)
      AND ($player IS NULL OR list_contains(players, $player))
),
top AS (
    SELECT game_id, round, max(points) AS best FROM round_results GROUP BY game_id, round
),
h AS (
    SELECT re.game_id, re.round, re.seat, g.status, unnest(re.held) AS event
    FROM round_events re
    JOIN g USING (game_id)
    JOIN seats s USING (game_id, seat)
    WHERE ($player IS NULL OR s.name = $player)
),
r AS (      -- scored rounds a seat held the event in
    SELECT h.event, rr.points = top.best AS won
    FROM h
    JOIN round_results rr USING (game_id, round, seat)
    JOIN top USING (game_id, round)
),
gh AS (     -- ended games a seat held the event in (at least one round)
    SELECT DISTINCT h.event, h.game_id, h.seat, s.winner
    FROM h JOIN seats s USING (game_id, seat)
    WHERE h.status = 'ended'
),
rs AS (SELECT event, count(*) AS rounds, count(*) FILTER (WHERE won) AS round_wins FROM r GROUP BY event),
gs AS (SELECT event, count(*) AS games, count(*) FILTER (WHERE winner) AS game_wins FROM gh GROUP BY event)
SELECT
    event,
    coalesce(rs.rounds, 0)                                     AS rounds_held,
    coalesce(rs.round_wins, 0)                                 AS round_wins,
    round(rs.round_wins / nullif(rs.rounds, 0), 3)             AS round_win_rate,
    coalesce(gs.games, 0)                                      AS games_held,
    coalesce(gs.game_wins, 0)                                  AS game_wins,
    round(gs.game_wins / nullif(gs.games, 0), 3)               AS game_win_rate
FROM rs FULL JOIN gs USING (event)
ORDER BY event;
