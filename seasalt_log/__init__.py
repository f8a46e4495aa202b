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

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("seasalt-log")
except PackageNotFoundError:        # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
