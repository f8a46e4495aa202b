"""A round turn by turn as a reader saw it (``seasalt replay --follow`` and the service's
``GET /games/{id}/turns``): each turn's events in words and the table after it."""

from __future__ import annotations

from typing import Sequence

from msgspec import Struct

from . import events as ev
from . import replay as rp
from .errors import UsageError
from .narration import describe
from .view import TableView, Viewer, table_view


class TurnFrame(Struct, frozen=True):
    """One turn: its events as lines and the table after them, as the reader may see it."""

    round: int
    turn: int
    events: list[str]
    state: TableView


def turn_frames(events: Sequence[ev.Event], game: str, round: int | None = None,
                turn: int | None = None, viewer: Viewer | int | None = None) -> list[TurnFrame]:
    """Every turn of ``round`` (default: the round in play, or the last) from ``turn`` on
    (default: the first), for ``viewer`` (None: the table). Raises :class:`UsageError` for
    a round or turn the game does not have."""
    if round is None:
        round = rp.replay(events, game_id=game).flow.round
        if round == 0:
            raise UsageError(f"game {game} has no round yet")
    all_turns = rp.turns(events, round, game_id=game)
    if turn is not None:
        last = all_turns[-1].turn if all_turns else 0
        if turn < 0 or turn > last:
            raise UsageError(f"game {game}: round {round} has {last} turn{'s' if last != 1 else ''}; "
                             f"there is no turn {turn}")
        all_turns = [t for t in all_turns if t.turn >= turn]
    return [TurnFrame(round=t.round, turn=t.turn,
                      events=[describe(st.event, st.before, viewer) for st in t.steps],
                      state=table_view(t.state, viewer))
            for t in all_turns]
