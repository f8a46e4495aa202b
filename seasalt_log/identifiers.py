"""What the log format allows as a game id and as a player name, and the size limits of a
log (docs/LOG_FORMAT.md, "Identifiers, limits and meta").

A game id is a path segment of the HTTP API as it is (``/games/{id}``), so it holds no
character a URL would need to escape, and cannot be ``.`` or ``..``. A player name is shown
on one line and looked up by ``--as``: printable, trimmed, bounded.
"""

from __future__ import annotations

import re

#: the longest line a log may hold, in bytes (the newline not counted)
MAX_LINE_BYTES = 1 << 20
#: the most bytes of log a game may take, from its ``game_started`` line to the next
MAX_GAME_BYTES = 16 << 20

GAME_ID_MAX = 64
GAME_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
PLAYER_NAME_MAX = 100

_GAME_ID = re.compile(GAME_ID_PATTERN[:-1] + r"\Z")
#: a message quotes at most this many characters of a value
QUOTE_MAX = 40

GAME_ID_RULE = (f"a game_id is 1 to {GAME_ID_MAX} characters among A-Z a-z 0-9 . _ : -, "
                "the first a letter or a digit")
PLAYER_NAME_RULE = (f"a player name is 1 to {PLAYER_NAME_MAX} printable characters (no "
                    "control, format or line-break characters, no space but U+0020), "
                    "with no space at either end")


def quote(value: str) -> str:
    """``value`` quoted for a message, cut short when long (a message quotes, never echoes)."""
    if len(value) <= QUOTE_MAX:
        return repr(value)
    return repr(value[:QUOTE_MAX]) + f"... ({len(value)} characters)"


def game_id_problem(game_id: str) -> str | None:
    """Why ``game_id`` is not allowed (None: it is)."""
    if _GAME_ID.match(game_id):
        return None
    return f"game_id {quote(game_id)} is not allowed: {GAME_ID_RULE}"


def player_name_problem(name: str) -> str | None:
    """Why ``name`` is not allowed as a player name (None: it is)."""
    if (0 < len(name) <= PLAYER_NAME_MAX and name.isprintable()
            and name[0] != " " and name[-1] != " "):
        return None
    return f"player name {quote(name)} is not allowed: {PLAYER_NAME_RULE}"
