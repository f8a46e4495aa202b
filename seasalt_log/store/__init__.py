"""The DuckDB event store (append-only events + read models)."""

from .store import GameWrite, Store, chain, event_rows, genesis_hash, plan_write

__all__ = ["Store", "GameWrite", "plan_write", "event_rows", "chain", "genesis_hash"]
