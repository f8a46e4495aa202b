"""Every point of a game as one viewer saw it: the frames the replay viewer steps through.

A frame is the :class:`~seasalt_log.view.TableView` after one event (as the viewer may see
it, RULES.md §7) with the event told in words (:func:`seasalt_log.narration.describe`, as the
viewer saw it) and ``looked_at``: the hand the Water Rodeo swimmers' player looked at during
that event, in that player's frame of it (:func:`seasalt_log.view.looked_at`; a look, not a
reveal: the next frame hides the hand again), else None. The deck order and the cards under the pile tops are left out: the viewer
shows the deck size and the tops. Round reports are :func:`seasalt_log.rescore.rescore`'s,
cut down in a player's view to what that player saw at the end of the round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import msgspec

from .. import events as ev
from ..engine.state import State
from ..errors import UsageError
from ..narration import describe
from ..replay import steps
from ..rescore import rescore
from ..view import Viewer, as_viewer, looked_at, table_view

_to = msgspec.to_builtins


def frame(state: State, event: ev.Event, before: State, seq: int, rnd: int, turn: int,
          viewer: Viewer | int | None) -> dict[str, Any]:
    """The frame after ``event`` (applied to ``before``, giving ``state``) as ``viewer``
    (a :class:`~seasalt_log.view.Viewer`; None the table, an int a seat) may see it."""
    view = _to(table_view(state, viewer))
    view.pop("deck", None)
    for pile in view["piles"]:
        pile.pop("cards", None)
    view.update(seq=seq, round=rnd, turn=turn, type=ev.TAGS[type(event)],
                text=describe(event, before, viewer), looked_at=None)
    if type(event) is ev.SwimmersPlayed:
        who = as_viewer(viewer)
        # the table sees every hand already: as in its events, nothing is looked at
        hand = looked_at(event, who, before) if who.role == "seat" else None
        if hand is not None:
            view["looked_at"] = {"seat": event.victim, "hand": list(hand)}
    return view


def frames(events: Sequence[ev.Event], viewer: Viewer | int | None = None, *,
           game_id: str | None = None) -> list[dict[str, Any]]:
    """The frames of a game's events (seq 1 is game_started)."""
    return [frame(st.after, st.event, st.before, st.seq, st.round, st.turn, viewer)
            for st in steps(events, game_id=game_id)]


@dataclass(frozen=True)
class FrameSet:
    """A game's first ``len(frames)`` events as one viewer saw them: the frames, the same
    as changes (:func:`deltas`), the reports of the rounds ended, and the engine's state
    after them, from which :func:`frame_set` extends them as the game goes on. Its lists
    are never changed once made (an extension makes new ones)."""

    frames: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    reports: dict[int, dict[str, Any]]
    state: State


def frame_set(events: Sequence[ev.Event], viewer: Viewer | int | None = None, *,
              game_id: str | None = None, prev: FrameSet | None = None) -> FrameSet:
    """The :class:`FrameSet` of ``events`` for ``viewer``; ``prev``, the set of a shorter
    start of the same events, is extended (only the new events are applied, only the rounds
    ended since are rescored)."""
    n = len(prev.frames) if prev else 0
    state = prev.state if prev else State()
    new = []
    for st in steps(events[n:], game_id=game_id, start=state):
        new.append(frame(st.after, st.event, st.before, st.seq, st.round, st.turn, viewer))
        state = st.after
    fr = (prev.frames if prev else []) + new
    playing = state.flow.round if state.flow.phase == "round" and not state.flow.due else None
    # the reports made for rounds before the one prev was in were complete then
    known = {r: v for r, v in prev.reports.items() if r < prev.state.flow.round} if prev else None
    reports = round_reports(events, viewer, game_id=game_id, last_frames=last_frame_of_rounds(fr),
                            known=known, playing=playing)
    return FrameSet(fr, (prev.changes if prev else []) + deltas(fr, n), reports, state)


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


def round_reports(events: Sequence[ev.Event], viewer: Viewer | int | None = None, *,
                  game_id: str | None = None, last_frames: dict[int, dict] | None = None,
                  known: dict[int, dict] | None = None, playing: int | None = None
                  ) -> dict[int, dict[str, Any]]:
    """Each ended round's :func:`rescore` report by round number.

    In a seat's or a spectator's view a report keeps the hands and breakdowns of the
    players whose hands that viewer saw at the end of the round (``last_frames``: the last
    frame of each round, as that viewer saw it, so :func:`seasalt_log.view.sees_hand`
    decides) and drops the what-if (it needs the cards held at the call). Rounds still in
    play have no report. ``known``: reports of complete rounds (the next one had started
    when they were made, so they cannot change), kept as they are; ``playing``: the round
    known to be in play (not rescored).
    """
    partial = not as_viewer(viewer).is_table
    out: dict[int, dict[str, Any]] = {}
    starts = [i for i, e in enumerate(events) if type(e) is ev.RoundStarted]
    for rnd in range(1, len(starts) + 1):
        if known and rnd in known:
            out[rnd] = known[rnd]
            continue
        if rnd == playing:
            continue
        # the events up to the next round's start hold the whole round (and its derived
        # events): rescore replays only those, not the whole game for every round
        end = starts[rnd] if rnd < len(starts) else len(events)
        try:
            report = _to(rescore(events[:end], rnd, game_id=game_id))
        except UsageError:            # the round is still in play
            continue
        if partial:
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
