"""The one check for "a whole number typed as text" the CLI and the service accept."""

from __future__ import annotations


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits 0-9. ``str.isdigit()`` alone also
    accepts characters such as '²' or '٣', which ``int()`` then refuses (or reads)."""
    return text.isascii() and text.isdigit()
