"""seasalt-log: record, check, replay and analyse games of Sea Salt & Paper.

The library under the ``seasalt`` command, typed (``py.typed``) and usable on its own:

- :mod:`seasalt_log.events` — the log format's events (``decode``, ``encode``);
- :mod:`seasalt_log.engine` — the rules: ``apply(state, event)``, ``check``,
  ``legal_moves``, ``next_derived``; an illegal event raises ``IllegalMoveError``;
- :mod:`seasalt_log.replay` — a game's state at any point of its events;
- :class:`seasalt_log.store.Store` — the DuckDB event store: ``Store.open(path,
  read_only=True)``, ``store.replay(game_id, round=, turn=)``, ``store.sql(query)``;
- :mod:`seasalt_log.service` — importing logs and exporting games, as the CLI does.

``__version__`` is the installed distribution's version.
"""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed distribution when first asked for (reading
    it costs a process about 0.06 s of CPU: worker processes never need it)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version
    try:
        found = version("seasalt-log")
    except PackageNotFoundError:    # imported from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
