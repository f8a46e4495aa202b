"""What every Parquet export must hold: each game whole, in seq order, in one events file,
in the bucket the documented hash gives (recomputed here with hashlib, not the library)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq


def assert_export_keeps_games_whole(directory: Path, store: Path | None = None) -> None:
    """Check the events files of an export in ``directory`` (and, given the ``store`` it
    came from, that they hold exactly its events)."""
    files = sorted((directory / "events").glob("*/*.parquet"))
    seen: dict[str, Path] = {}
    for f in files:
        meta = pq.read_schema(f).metadata
        assert meta[b"seasalt.layout"] == b"whole-games", f
        buckets = int(meta[b"seasalt.buckets"])
        rows = pq.read_table(f, columns=["game_id", "seq"])
        rows = rows.append_column("i", pa.array(range(rows.num_rows), pa.int64()))  # noqa: F841
        # each row against the one before it in the file (DuckDB, not a loop over the rows)
        steps = duckdb.sql("SELECT game_id, seq, lag(game_id) OVER w IS DISTINCT FROM game_id "
                           "AS starts, lag(seq) OVER w AS prev FROM rows WINDOW w AS (ORDER BY i)")
        bad = duckdb.sql("SELECT game_id, seq, prev FROM steps WHERE starts AND seq <> 1 "
                         "OR NOT starts AND seq <= prev LIMIT 1").fetchall()
        assert not bad, f"game {bad[0][0]}: seq {bad[0][1]} after {bad[0][2]} in {f}"
        starts = duckdb.sql("SELECT game_id, count(*) FROM steps WHERE starts GROUP BY 1"
                            ).fetchall()
        for gid, n in starts:
            assert n == 1, f"game {gid}: its rows are split in {f}"
            assert gid not in seen, f"game {gid} is in {seen.get(gid)} and again in {f}"
            seen[gid] = f
            bucket = int(hashlib.md5(gid.encode()).hexdigest()[:8], 16) % buckets
            assert f.name == f"data_{bucket}.parquet", (gid, f, bucket)
    if store is not None:
        con = duckdb.connect(str(store), read_only=True)
        want = con.execute("SELECT game_id, count(*), max(seq) FROM events GROUP BY 1").fetchall()
        con.close()
        got = duckdb.sql(f"SELECT game_id, count(*), max(seq) FROM read_parquet('{directory}/events/*/*.parquet')"
                         " GROUP BY 1").fetchall()
        assert sorted(got) == sorted(want)


def assert_read_models_in_number_order(directory: Path, store: Path) -> None:
    """Each read model's file in ``directory`` holds the rows of its table in ``store``, by
    the game's number (the first write of the game: ``min(commits.game)``), then by the
    table's key; the rows of a game without a number last, by their key."""
    keys = {"games": "game_id", "seats": "game_id, seat", "rounds": "game_id, round",
            "round_results": "game_id, round, seat", "turns": "game_id, round, turn",
            "duos": "game_id, seq", "trios": "game_id, seq", "face_down_shells": "game_id, seq",
            "round_events": "game_id, round, seat", "event_awards": "game_id, round",
            "round_extra": "game_id, round, seat", "event_outcomes": "game_id, round, event"}
    con = duckdb.connect()
    con.execute(f"ATTACH '{store}' AS s (READ_ONLY)")
    for table, key in keys.items():
        cols = ", ".join(f'"{r[0]}"' for r in con.execute(
            f"SELECT column_name FROM duckdb_columns() WHERE database_name = 's' "
            f"AND table_name = '{table}' ORDER BY column_index").fetchall())
        numbered = (f"SELECT {cols}, row_number() OVER (ORDER BY n NULLS LAST, "
                    f"{', '.join('t.' + k for k in key.split(', '))}) - 1 AS i FROM s.{table} t "
                    "LEFT JOIN (SELECT game_id, min(game) AS n FROM s.commits GROUP BY game_id) "
                    "USING (game_id)")
        stored = (f"SELECT {cols}, file_row_number AS i FROM "
                  f"read_parquet('{directory / (table + '.parquet')}', file_row_number = true)")
        for a, b in ((numbered, stored), (stored, numbered)):
            extra = con.execute(f"SELECT * FROM ({a}) EXCEPT ALL SELECT * FROM ({b}) LIMIT 1"
                                ).fetchall()
            assert not extra, f"{table}: row {extra[0]} is not where the order puts it"
        n = con.execute(f"SELECT count(*) FROM s.{table}").fetchall()[0][0]
        assert con.execute(f"SELECT count(*) FROM ({stored})").fetchall()[0][0] == n, table
    con.close()
