"""The web app (issue 17): pages served by ``seasalt serve`` beside the JSON API, and the
one-file HTML export.

- :mod:`.timeline` — every point of a game as one viewer saw it, computed on the server
  through :func:`seasalt_log.view.table_view` (a player's page never holds a hidden card);
- :mod:`.pages` — the HTML of every page, one template for the table (viewer, live page,
  exported file); the table itself is drawn by ``static/viewer.js``;
- :mod:`.routes` — the Starlette routes, mounted by :func:`seasalt_log.http.app.create_app`;
- :func:`export_html` — a game as one self-contained HTML file.
"""

from .pages import export_html

__all__ = ["export_html"]
