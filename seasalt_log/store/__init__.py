"""The DuckDB event store (append-only events + read models).

The names below load the store's module (and DuckDB) when first asked for: a worker
process that only builds rows (:mod:`seasalt_log.importers.chunks`) starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import GameWrite, Store, chain, event_rows, genesis_hash, plan_write

__all__ = ["Store", "GameWrite", "plan_write", "event_rows", "chain", "genesis_hash"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import store
        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
