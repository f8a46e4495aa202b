"""Every point of a game as one viewer saw it: the frames the replay viewer steps through.

A frame is the :class:`~seasalt_log.view.TableView` after one event (as the viewer may see
it, RULES.md §7) with the event told in words (:func:`seasalt_log.narration.describe`, as the
viewer saw it). The deck order and the cards under the pile tops are left out: the viewer
shows the deck size and the tops. Round reports are :func:`seasalt_log.rescore.rescore`'s,
cut down in a player's view to what that player saw at the end of the round.
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec

from .. import events as ev
from ..engine.state import State
from ..errors import UsageError
from ..narration import describe
from ..replay import resolve_seat, steps
from ..rescore import rescore
from ..view import table_view

_to = msgspec.to_builtins


def frame(state: State, event: ev.Event, before: State, seq: int, rnd: int, turn: int,
          viewer: int | None) -> dict[str, Any]:
    """The frame after ``event`` (applied to ``before``, giving ``state``)."""
    view = _to(table_view(state, viewer))
    view.pop("deck", None)
    for pile in view["piles"]:
        pile.pop("cards", None)
    view.update(seq=seq, round=rnd, turn=turn, type=ev.TAGS[type(event)],
                text=describe(event, before, viewer))
    return view


def viewer_of(events: Sequence[ev.Event], who: str | None) -> int | None:
    """The seat ``who`` names (a name or a seat number) in this game, or None for everyone."""
    if who is None or who == "":
        return None
    first = events[0] if events else None
    if not isinstance(first, ev.GameStarted):
        raise UsageError("the game has no game_started event")
    from ..engine import apply
    return resolve_seat(apply(State(), first), who)


def frames(events: Sequence[ev.Event], viewer: int | None = None, *, after: int = 0,
           game_id: str | None = None) -> list[dict[str, Any]]:
    """The frames of the events with seq > ``after`` (seq 1 is game_started)."""
    return [frame(st.after, st.event, st.before, st.seq, st.round, st.turn, viewer)
            for st in steps(events, game_id=game_id) if st.seq > after]


def deltas(all_frames: Sequence[dict], after: int = 0) -> list[dict[str, Any]]:
    """The frames after the first ``after`` as changes: each frame keeps only the fields that
    differ from the frame before it, and ``seats`` has None for a seat that did not change
    (the viewer script rebuilds the frames; a game page is a fifth of the size)."""
    out = []
    for k in range(after, len(all_frames)):
        f = all_frames[k]
        if k == 0:
            out.append(f)
            continue
        prev = all_frames[k - 1]
        d = {key: v for key, v in f.items() if key != "seats" and prev.get(key) != v}
        d["seq"] = f["seq"]
        d["seats"] = [None if s == p else s for s, p in zip(f["seats"], prev["seats"])]
        out.append(d)
    return out


def round_reports(events: Sequence[ev.Event], viewer: int | None = None, *,
                  game_id: str | None = None, last_frames: dict[int, dict] | None = None
                  ) -> dict[int, dict[str, Any]]:
    """Each ended round's :func:`rescore` report by round number.

    In a player's view (``viewer`` a seat) a report keeps the hands and breakdowns of the
    players whose hands that player saw at the end of the round (``last_frames``: the last
    frame of each round, as that player saw it) and drops the what-if (it needs the cards
    held at the call). Rounds still in play have no report.
    """
    out: dict[int, dict[str, Any]] = {}
    n = sum(1 for e in events if type(e) is ev.RoundStarted)
    for rnd in range(1, n + 1):
        try:
            report = _to(rescore(events, rnd, game_id=game_id))
        except UsageError:            # the round is still in play
            continue
        if viewer is not None:
            seen = {s["seat"] for s in (last_frames or {}).get(rnd, {}).get("seats", ())
                    if s["hand"] is not None}
            for p in report["players"]:
                if p["seat"] not in seen:
                    p["hand"] = None
                    p["breakdown"] = None
                p["what_if_points"] = None
            report["what_if"] = None
        out[rnd] = report
    return out


def last_frame_of_rounds(all_frames: Sequence[dict]) -> dict[int, dict]:
    """The last frame of each round (the one after which the round is over)."""
    out: dict[int, dict] = {}
    for f in all_frames:
        if f["round"]:
            out[f["round"]] = f
    return out
