"""Scratch tables: the fast way to move many Python rows into DuckDB.

DuckDB's appender converts plain INTEGER and VARCHAR values several times faster than
narrow integers or Python lists, so rows are appended to scratch tables of those types
(card lists as text) and cast to the store's types when they leave, either straight into
the store's tables or into Parquet files that another process loads (the parallel import
and rebuild do the Python work in worker processes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .projections import SCHEMA, TABLES
from .schema import COMMIT_COLUMNS, EVENT_COLUMNS

FLUSH_ROWS = 200_000           # rows buffered before an appender flush

#: card-code lists appended as text (DuckDB list literals) and cast back when the rows leave
#: the scratch tables; card codes hold no comma, bracket or quote, so the literal is exact
_TEXT_LISTS = {"turns": ("drawn", "boat_kept"), "duos": ("cards",)}

#: slim events (:func:`~seasalt_log.store.store.event_rows` ``slim``): their columns, the
#: game ids by number, and the query that gives the store's events back (the type is the
#: canonical JSON's first value: ``{"type":"<tag>",...``)
_SLIM_EVENTS = [c for c in EVENT_COLUMNS if c[0] not in ("game_id", "type")]
_IDS = [("game", "INTEGER"), ("game_id", "VARCHAR")]
_SLIM_EVENTS_QUERY = ("SELECT i.game_id, e.seq, e.game, e.round, e.turn, e.player, "
                      "split_part(e.event, '\"', 4) AS type, e.event "
                      "FROM scratch_events e JOIN scratch_ids i USING (game) ORDER BY e.game, e.seq")

#: (table, [(column, store type), ...]) of every table a sink can fill
_TABLES: dict[str, list[tuple[str, str]]] = {
    "events": list(EVENT_COLUMNS),
    "commits": list(COMMIT_COLUMNS),
    **{t.name: [(c.name, c.type.replace(" NOT NULL", "")) for c in t.columns] for t in SCHEMA},
}


def sql_path(p: Path | str) -> str:
    """A file path as an SQL string literal."""
    return "'" + str(p).replace("'", "''") + "'"


def _scratch_columns(table: str) -> list[tuple[str, str, str]]:
    """(name, scratch type, expression giving the store's type) of each column."""
    out = []
    for name, base in _TABLES[table]:
        if base in ("TINYINT", "SMALLINT"):
            out.append((name, "INTEGER", f"CAST({name} AS {base}) AS {name}"))
        elif name in _TEXT_LISTS.get(table, ()):
            out.append((name, "VARCHAR", f"CAST({name} AS {base}) AS {name}"))
        else:
            out.append((name, base, name))
    return out


def _list_text(cards) -> str | None:
    return None if cards is None else "[" + ", ".join(cards) + "]"


def _text_lists(table: str):
    """A function turning the card lists of ``table``'s rows into text, or None."""
    names = _TEXT_LISTS.get(table)
    if not names:
        return None
    idx = [[n for n, _ in _TABLES[table]].index(n) for n in names]

    def convert(rows: list[tuple]) -> list[list]:
        out = []
        for r in rows:
            r = list(r)
            for i in idx:
                r[i] = _list_text(r[i])
            out.append(r)
        return out
    return convert


class ScratchSink:
    """Buffers rows of some of the store's tables and appends them, in batches, to scratch
    tables on ``con``; with ``into_store`` each batch then moves to the store's table of the
    same name, else they wait for :meth:`copy_to` (a Parquet file).

    With ``slim_events`` the events rows are slim (no ``game_id``, no ``type``) and the
    rows of a pseudo-table ``ids`` give each game number's id; only for :meth:`copy_to`."""

    def __init__(self, con, tables: Sequence[str] = tuple(TABLES), *, into_store: bool,
                 temp: bool, slim_events: bool = False):
        self.con = con
        self.into_store = into_store
        self.tables = tuple(tables)
        if slim_events:
            tables = (*tables, "ids")
        self.buf: dict[str, list] = {t: [] for t in tables}
        self.pending = 0
        self.counts = {t: 0 for t in tables}
        self.convert = {t: _text_lists(t) for t in tables}
        #: table -> the query giving its rows in the store's columns and types
        self.query: dict[str, str] = {}
        for t in tables:
            if slim_events and t in ("events", "ids"):
                cols = [(n, ty, n) for n, ty in (_SLIM_EVENTS if t == "events" else _IDS)]
            else:
                cols = _scratch_columns(t)
            con.execute(f"CREATE OR REPLACE {'TEMP ' if temp else ''}TABLE scratch_{t} ("
                        + ", ".join(f"{n} {ty}" for n, ty, _ in cols) + ")")
            self.query[t] = f"SELECT {', '.join(expr for _, _, expr in cols)} FROM scratch_{t}"
        if slim_events:
            self.query["events"] = _SLIM_EVENTS_QUERY

    def add(self, rows: dict[str, list[tuple]]) -> None:
        """Buffer rows (table name -> rows in the store's column order)."""
        for t, r in rows.items():
            if r:
                conv = self.convert[t]
                self.buf[t].extend(conv(r) if conv is not None else r)
                self.pending += len(r)
        if self.pending >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Append the buffered rows to the scratch tables (and on to the store's)."""
        for t, r in self.buf.items():
            if r:
                with self.con.appender(f"scratch_{t}") as a:
                    a.append_rows(r)
                self.counts[t] += len(r)
                self.buf[t] = []
                if self.into_store:
                    self.con.execute(f"INSERT INTO {t} {self.query[t]}")
                    self.con.execute(f"DELETE FROM scratch_{t}")
        self.pending = 0

    def copy_to(self, table: str, path: Path) -> None:
        """Write the scratch rows of ``table``, in the store's types, as a Parquet file."""
        self.con.execute(f"COPY ({self.query[table]}) TO {sql_path(path)} (FORMAT parquet)")

    def clear(self) -> None:
        """Empty the scratch tables (after :meth:`copy_to`), to fill them again."""
        for t in self.buf:
            self.con.execute(f"DELETE FROM scratch_{t}")
        self.counts = {t: 0 for t in self.buf}

    def drop(self) -> None:
        for t in self.buf:
            self.con.execute(f"DROP TABLE IF EXISTS scratch_{t}")
