"""What every Parquet export must hold: each game whole, in seq order, in one events file,
in the bucket the documented hash gives (recomputed here with hashlib, not the library)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
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
        rows = pq.read_table(f, columns=["game_id", "seq"]).to_pylist()
        prev = None
        for r in rows:
            gid, seq = r["game_id"], r["seq"]
            if gid != (prev or {}).get("game_id"):
                assert gid not in seen, f"game {gid} is in {seen.get(gid)} and again in {f}"
                seen[gid] = f
                assert seq == 1, f"game {gid} starts at seq {seq} in {f}"
                bucket = int(hashlib.md5(gid.encode()).hexdigest()[:8], 16) % buckets
                assert f.name == f"data_{bucket}.parquet", (gid, f, bucket)
            else:
                assert seq > prev["seq"], f"game {gid}: seq {seq} after {prev['seq']} in {f}"
            prev = r
    if store is not None:
        con = duckdb.connect(str(store), read_only=True)
        want = con.execute("SELECT game_id, count(*), max(seq) FROM events GROUP BY 1").fetchall()
        con.close()
        got = duckdb.sql(f"SELECT game_id, count(*), max(seq) FROM read_parquet('{directory}/events/*/*.parquet')"
                         " GROUP BY 1").fetchall()
        assert sorted(got) == sorted(want)
