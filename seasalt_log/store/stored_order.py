"""The events table read in the order it is stored, when that order is the games' own.

An import appends whole games, so a store filled by imports holds its events game after
game (by the game's number, ``events.game``: the order games were first written), each
game in seq order. A reader that wants that order can then stream the table as it lies
instead of sorting 2 GB of text (``seasalt export --all``, ``seasalt export --parquet``).
A game extended by a later write (a second import, the HTTP service) breaks that order;
:func:`in_game_order` then says so and the reader sorts as before.
"""

from __future__ import annotations

from typing import Any

import pyarrow.compute as pc


def in_game_order(con: Any, batch: int = 1 << 20, table: str = "events") -> bool:
    """Whether a plain scan of the events table (or ``commits``, which has the same two
    columns; DuckDB keeps the stored order while ``preserve_insertion_order`` is on, its
    default) gives the rows by ``(game, seq)`` strictly rising: one pass over those two
    integer columns, no text read."""
    if not con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]:
        return False
    reader = con.sql(f"SELECT (game::BIGINT << 32) | seq FROM {table}").to_arrow_reader(batch)
    last = None
    try:
        for chunk in reader:
            keys, n = chunk.column(0), chunk.num_rows
            if n == 0:
                continue
            if last is not None and keys[0].as_py() <= last:
                return False
            if n > 1 and not pc.all(pc.greater(keys.slice(1), keys.slice(0, n - 1))).as_py():
                return False
            last = keys[n - 1].as_py()
    finally:
        reader.close()
    return True


def ids_by_number(con: Any) -> list[str]:
    """Every stored game's id, by its number (the order games were first written)."""
    return [r[0] for r in con.execute(
        "SELECT game_id FROM commits GROUP BY game_id ORDER BY min(game)").fetchall()]


def stored_batches(con: Any, columns: str, batch: int) -> Any:
    """An Arrow record batch reader of ``SELECT columns FROM events``, rows as stored (in
    game order when :func:`in_game_order` says so)."""
    return con.sql(f"SELECT {columns} FROM events").to_arrow_reader(batch)
