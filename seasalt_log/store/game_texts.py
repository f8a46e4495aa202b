"""An in-memory copy of a read-only store's events: each game's JSON texts, LZ4-compressed
together, read from the file a block of games at a time.

A query costs DuckDB about 1 ms of CPU however few rows it returns (planning, finding the
game's row group, decompressing a whole zstd vector), and folding a game to a point costs
a fraction of that: a process that reads many games (a server of read requests, a
benchmark, a notebook) would spend most of its time asking. This cache asks once for
:data:`BLOCK` games, keeps each game's texts joined and compressed (about 22 bytes per
event: 50 MB for 10,000 games of 225 events), and gives a game's texts back in about
30 µs. LZ4 rather than zstd: it keeps 1.7 times the bytes, but decompresses a game in a
third of the time (8 µs instead of 23-26 µs) and compresses a block in half, and a point
read pays the decompression every time. It is only for a store opened read-only: DuckDB then lets no process write to the
file while it is open, so what it holds can never go stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

#: how many game numbers one query reads: about 29,000 events of base games, 15 ms of CPU
#: to read and compress (as cheap per event as larger blocks), and a small peak of memory
#: while it is read (1,024 games at once raised a process's peak by 185 MB)
BLOCK = 128

#: one game's events: their JSON joined by newlines, compressed; its length in bytes
_Packed = tuple[bytes, int]

# JSON texts hold no raw newline (a string's control characters are escaped), so a newline
# separates two events; each game is checked for that before it is kept
_QUERY = ("SELECT game, string_agg(event, chr(10) ORDER BY seq), count(*), "
          "count(DISTINCT seq), min(seq), max(seq) FROM events WHERE game BETWEEN ? AND ? "
          "GROUP BY game")


class GameTexts:
    """Games' event texts by game number, loaded :data:`BLOCK` numbers at a time."""

    def __init__(self) -> None:
        self._games: dict[int, _Packed | None] = {}     # None: read it from the file
        self._blocks: set[int] = set()
        import pyarrow as pa        # for its LZ4 codec; only a process reading many games
        self._codec = pa.Codec("lz4")

    def texts(self, con: duckdb.DuckDBPyConnection, game: int) -> list[str] | None:
        """The JSON texts of game number ``game``'s events in seq order (its block is read
        first if it is not yet), or None when the cache does not hold it (not stored, or
        stored in a way the cache does not keep: ask the file)."""
        block = (game - 1) // BLOCK
        if block not in self._blocks:
            self._load(con, block)
        packed = self._games.get(game)
        if packed is None:
            return None
        blob, size = packed
        raw: bytes = self._codec.decompress(blob, decompressed_size=size, asbytes=True)
        return raw.decode().split("\n")

    def _load(self, con: duckdb.DuckDBPyConnection, block: int) -> None:
        first = block * BLOCK + 1
        compress = self._codec.compress
        for game, joined, count, distinct, low, high in con.execute(
                _QUERY, [first, first + BLOCK - 1]).fetchall():
            if count == distinct == high and low == 1 and joined.count("\n") == count - 1:
                data = joined.encode()
                self._games[game] = (compress(data, asbytes=True), len(data))
            else:   # seqs not 1..n, or a text with a newline: never served from here
                self._games[game] = None
        self._blocks.add(block)

    def nbytes(self) -> int:
        """The bytes of compressed texts held (the dictionary's own overhead aside)."""
        return sum(len(p[0]) for p in self._games.values() if p is not None)
