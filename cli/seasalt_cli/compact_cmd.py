"""``seasalt compact``: rewrite the store's tables in game order (store maintenance)."""

from __future__ import annotations

from pathlib import Path

from seasalt_log.store import Store
from seasalt_log.store.compact import compact as compact_store

from .app import app, db_path, handles_errors, log, print_json
from .options import DbOption, JsonOption


@app.command()
@handles_errors
def compact(db: Path = DbOption, as_json: bool = JsonOption):
    """Rewrite the events, the commits and the read models in game order into a new file
    that replaces the store (without the free blocks): a store recorded live by `seasalt
    serve` then reads a game as fast as an imported one.

    No row changes: verify and export give what they gave. The store's
    file is never written in place: a failure or a kill leaves it as it
    was (or replaced by the whole new file). It needs free disk space
    for the new file. A store already in game order is left as it is.
    The store may not be open in another process (stop `seasalt serve`
    first). See docs/RELIABILITY.md, "Compacting a store recorded live"."""
    with Store.open(db_path(db), create=False) as store:
        summary = compact_store(store)
    log.debug(f"compact: {summary.passes} rewrite(s); rows: "
              + ", ".join(f"{t} {n}" for t, n in summary.rows.items())
              + f"; {summary.free_bytes:,} bytes of the file are free blocks")
    if as_json:
        print_json({**{f: getattr(summary, f) for f in summary.__struct_fields__},
                    "bytes_per_event_before": round(summary.bytes_per_event_before, 1),
                    "bytes_per_event_after": round(summary.bytes_per_event_after, 1)})
        return
    head = f"{summary.path}: {summary.games} game(s), {summary.events} events"
    if not summary.passes:
        log.info(f"{head}, already in game order: nothing rewritten; {summary.bytes_after:,} "
                 f"bytes ({summary.bytes_per_event_after:.1f} bytes/event)")
        return
    log.info(f"compacted {head}, {sum(summary.rows.values())} rows rewritten; "
             f"{summary.bytes_before:,} -> {summary.bytes_after:,} bytes "
             f"({summary.bytes_per_event_before:.1f} -> "
             f"{summary.bytes_per_event_after:.1f} bytes/event) in {summary.seconds:.2f} s")
