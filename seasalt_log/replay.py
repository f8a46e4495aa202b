"""Replay a stored game: fold its event stream again and stop where asked.

Every function here is pure and works on a game's full event list as stored (derived
``round_scored`` / ``game_ended`` events included, ``game_started`` first):

- :func:`replay` — the state after an event (``seq``), after a turn (``round``/``turn``) or
  the latest state; :func:`replay_stored` — the same from the stored JSON texts;
- :func:`steps` and :func:`turns` — every event with the state before and after it, and the
  events grouped by turn; :func:`iter_turn_states` — the state after every turn of a round;
- :func:`resolve_seat` — the seat a player's name or number gives.

A round's rescoring is :mod:`seasalt_log.rescore`, the words of ``seasalt log``
:mod:`seasalt_log.narration`, the plain-text blocks :mod:`seasalt_log.render`.

Turns are numbered as in LOG_FORMAT.md: 1, 2, … within a round, a turn running from its
first take to its ``turn_ended`` / call. The derived events that follow a turn's last event
directly belong to that turn; ``round_started`` is turn 0 of its round.
"""

from __future__ import annotations

from itertools import compress, islice, repeat
from typing import Iterable, Iterator, Sequence

import msgspec
from msgspec import Struct

from .digits import is_digits
from . import events as ev
from .engine import State, apply, fold
from .engine.state import BETWEEN, Flow
from .errors import UsageError

__all__ = ["Step", "Turn", "steps", "stream_steps", "round_steps_of", "no_round", "no_seq",
           "turns", "replay", "replay_stored", "iter_turn_states", "resolve_seat", "game_id_of"]


# ---------------------------------------------------------------- walking the stream

class Step(Struct, frozen=True):
    """One event of a game with its position and the states around it."""

    seq: int            # 1-based position in the game (game_started is 1)
    round: int          # the round it belongs to (0 for game_started)
    turn: int           # the turn it belongs to (0 for game_started / round_started)
    event: ev.Event
    before: State
    after: State


class Turn(Struct, frozen=True):
    """One turn of a round: its events (derived ones that follow it included) and the
    state after them."""

    round: int
    turn: int
    steps: tuple[Step, ...]

    @property
    def state(self) -> State:
        """The state after the turn's last event."""
        return self.steps[-1].after


def game_id_of(events: Sequence[ev.Event]) -> str | None:
    """The game id a stream names in its ``game_started``, else the id the store derives
    from its content (the same rule as the importer's)."""
    if not events:
        return None
    first = events[0]
    if isinstance(first, ev.GameStarted) and first.game_id:
        return first.game_id
    return ev.derive_game_id(events)


def steps(events: Iterable[ev.Event], *, game_id: str | None = None,
          start: State | None = None) -> Iterator[Step]:
    """Apply ``events`` in order and yield a :class:`Step` for each.

    ``game_id`` names the game in the states when its ``game_started`` carries none (the
    store's derived id). ``start``: the state the events follow (a game's state after its
    first ``start.seq`` events; default the empty state). Events are checked by the engine
    as they are applied.
    """
    s = State() if start is None else start
    for seq, e in enumerate(events, s.seq + 1):
        before = s
        s = apply(s, e)
        if seq == 1 and s.game_id is None and game_id is not None:
            s = s.changed(game_id=game_id)
        f = before.flow
        if isinstance(e, ev.GameStarted):
            rnd, turn = 0, 0
        elif isinstance(e, ev.RoundStarted):
            rnd, turn = e.round, 0
        else:   # a turn event, or a derived event that follows the turn's last event
            rnd, turn = f.round, f.turn
        yield Step(seq=seq, round=rnd, turn=turn, event=e, before=before, after=s)


def stream_steps(events: Sequence[ev.Event], game_id: str | None) -> tuple[list[Step], str]:
    """Every :class:`Step` of a whole game, and its id (given, named or derived); a
    :class:`UsageError` for an empty stream."""
    events = list(events)
    if not events:
        raise UsageError(f"game {game_id or '?'} has no events")
    gid = game_id or game_id_of(events) or "?"
    return list(steps(events, game_id=gid)), gid


def _rounds(all_steps: list[Step]) -> int:
    return max((st.round for st in all_steps), default=0)


def no_round(gid: str, round: int, rounds: int) -> str:
    """What a game of ``rounds`` started rounds lacks when asked for ``round`` (the
    library's error and the service's 404 say the same)."""
    return f"game {gid} has {rounds} round{'s' if rounds != 1 else ''}; there is no round {round}"


def no_seq(gid: str, seq: int, events: int) -> str:
    """What a game of ``events`` events lacks when asked for ``seq`` (as :func:`no_round`)."""
    return (f"game {gid} has {events} event{'s' if events != 1 else ''} (seq 1..{events}); "
            f"there is no seq {seq}")


def round_steps_of(all_steps: list[Step], gid: str, round: int) -> list[Step]:
    """The steps of ``round`` (round_started first), or a UsageError naming what exists."""
    n = _rounds(all_steps)
    if round < 1 or round > n:
        raise UsageError(no_round(gid, round, n))
    return [st for st in all_steps if st.round == round]


def _turns_of(round_steps: list[Step]) -> list[Turn]:
    out: list[Turn] = []
    cur: list[Step] = []
    for st in round_steps:
        if st.turn == 0:
            continue
        if cur and cur[-1].turn != st.turn:
            out.append(Turn(round=cur[0].round, turn=cur[0].turn, steps=tuple(cur)))
            cur = []
        cur.append(st)
    if cur:
        out.append(Turn(round=cur[0].round, turn=cur[0].turn, steps=tuple(cur)))
    return out


def turns(events: Sequence[ev.Event], round: int, *, game_id: str | None = None) -> list[Turn]:
    """Every turn of ``round`` (played so far), in order.

    Raises :class:`UsageError` if the game has no such round.
    """
    all_steps, gid = stream_steps(events, game_id)
    return _turns_of(round_steps_of(all_steps, gid, round))


def iter_turn_states(events: Sequence[ev.Event], round: int, *,
                     game_id: str | None = None) -> Iterator[tuple[int, State]]:
    """``(turn, state)`` after every turn of ``round`` (the state after the turn's last
    event and the derived events that follow it)."""
    for t in turns(events, round, game_id=game_id):
        yield t.turn, t.state


def replay(events: Sequence[ev.Event], *, round: int | None = None, turn: int | None = None,
           seq: int | None = None, game_id: str | None = None) -> State:
    """The state of a game at one point of its stream.

    - ``seq=N``: after the N-th event (1-based: ``game_started`` is seq 1);
    - ``round=R, turn=T``: after turn T of round R — after the turn's ``turn_ended`` / call
      and the ``round_scored`` / ``game_ended`` that follow it directly; ``turn=0`` is the
      state right after the round's ``round_started``;
    - ``round=R`` alone: after the last event of round R (its result included);
    - nothing: the latest state.

    A point the game does not have raises :class:`UsageError` with what it does have.
    """
    if seq is not None and (round is not None or turn is not None):
        raise UsageError("give either a seq or a round and turn, not both")
    if turn is not None and round is None:
        raise UsageError(f"turn {turn} needs its round (a round and a turn name a point)")
    if round is not None and turn is not None and events:
        # fast path: fold only up to the point; a missing point falls through to the
        # full walk below, which says what the game has
        found = None
        for st in steps(events, game_id=game_id or game_id_of(events)):
            if (st.round, st.turn) > (round, turn):
                break
            if (st.round, st.turn) == (round, turn):
                found = st.after
        if found is not None:
            return found
    all_steps, gid = stream_steps(events, game_id)
    if seq is not None:
        if seq < 1 or seq > len(all_steps):
            raise UsageError(no_seq(gid, seq, len(all_steps)))
        return all_steps[seq - 1].after
    if round is None:
        return all_steps[-1].after
    round_steps = round_steps_of(all_steps, gid, round)
    if turn is None:
        return round_steps[-1].after
    last = max(st.turn for st in round_steps)
    if turn < 0 or turn > last:
        raise UsageError(f"game {gid}: round {round} has {last} turn{'s' if last != 1 else ''}; "
                         f"there is no turn {turn}")
    return [st for st in round_steps if st.turn == turn][-1].after


_ROUND_STARTED = '{"type":"round_started"'
_ROUND_SCORED = '{"type":"round_scored"'


def replay_stored(texts: Sequence[str], *, round: int | None = None, turn: int | None = None,
                  seq: int | None = None, game_id: str | None = None) -> State:
    """:func:`replay` of a stored game given as its events' JSON, in seq order.

    A stored game was checked when it was written (``seasalt verify`` checks it again), so
    only the round that holds the point is decoded and folded, from the state between that
    round and the one before (built from ``game_started`` and the previous round's
    ``round_scored``: what the engine carries from one round to the next; with the Extra
    Pepper events also each earlier round's start and event awards): after turn T of
    round R, after event ``seq``, or the latest state (nothing given: the last round to the
    end). The stored JSON is the canonical encoding (the type tag first), which is how a
    round's start is found without decoding. Anything else (a round alone), or a point the
    game does not have, is :func:`replay` of every event.
    """
    found = None
    if texts and seq is None and (round is None) == (turn is None):
        found = _fold_round(texts, round, turn, game_id)
    elif texts and seq is not None and round is None and turn is None:
        found = _fold_to(texts, seq, game_id)
    if found is not None:
        return found
    events = [ev.decode(t) for t in texts]
    return replay(events, round=round, turn=turn, seq=seq,
                  game_id=game_id or game_id_of(events))


def _starts(texts: Sequence[str], stop: int, most: int | None = None) -> list[int]:
    """The indices from 1 up to ``stop`` (excluded) of the texts that start a round, the
    first ``most`` of them (None: all): one test of each text's start, looped in C, that
    stops at the last one wanted."""
    return list(islice(compress(range(1, stop), map(str.startswith, islice(texts, 1, stop),
                                                    repeat(_ROUND_STARTED))), most))


def _between_rounds(texts: Sequence[str], first: int, game_id: str | None,
                    starts: list[int] | None = None) -> State | None:
    """The state just before the ``round_started`` at index ``first`` (None: a stream that
    is not as stored); ``starts``: the index of every round's start up to ``first``, if
    known. What is needed of the earlier rounds is decoded with one call."""
    start = _decode_all([texts[0]])[0]
    if type(start) is not ev.GameStarted:
        return None
    s = apply(State(), start)
    if s.game_id is None:
        # the id the store derives from game_started and the first round_started
        s = s.changed(game_id=game_id or game_id_of([ev.decode(texts[0]), ev.decode(texts[1])]))
    if s.ruleset.events is None or first == 1:
        begun, result = _decode_all([texts[first], texts[first - 1]])
        if type(begun) is not ev.RoundStarted:
            return None
        if begun.round == 1:
            return s if first == 1 else None
        return _after_scored(s, result, first - 1, begun.round - 1, None)
    # Extra Pepper: the event cards pass from round to round (R-EV-ROUND, R-EV-AWARD), so
    # each earlier round's round_started, round_scored, event_awarded and event_kept are
    # applied (and checked), its turns are not
    if starts is None:
        starts = _starts(texts, first + 1)
    wanted, scores = [first], []        # the texts to decode, the round's start first
    for at, end in zip(starts, starts[1:]):
        scored = next((k for k in range(end - 1, at, -1)
                       if texts[k].startswith(_ROUND_SCORED)), None)
        if scored is None:
            return None
        scores.append(scored)
        wanted += [at, *range(scored, end)]
    got = dict(zip(wanted, _decode_all([texts[k] for k in wanted])))
    begun = got[first]
    if type(begun) is not ev.RoundStarted or begun.round != len(starts):
        return None
    for rnd, (at, end, scored) in enumerate(zip(starts, starts[1:], scores), 1):
        after = _after_scored(apply(s, got[at]), got[scored], scored, rnd, "event_awarded")
        if after is None:
            return None
        s = after
        for k in range(scored + 1, end):
            s = apply(s, got[k])
    return s


def _after_scored(s: State, scored: ev.Event, at: int, round: int,
                  due: str | None) -> State | None:
    """What _round_scored leaves after ``scored``, the ``round_scored`` of ``round`` at
    index ``at`` (R-SETUP-4's check of the next first player was made when the game was
    stored: ender None skips it here)."""
    if type(scored) is not ev.RoundScored or scored.round != round:
        return None
    return s.changed(totals=tuple(scored.totals), last_points=tuple(scored.points),
                     last_card_points=tuple(scored.card_points), rounds_played=scored.round,
                     seq=at + 1,
                     flow=Flow(round=scored.round, due=due, phase=BETWEEN))


def _fold_to(texts: Sequence[str], seq: int, game_id: str | None) -> State | None:
    """The state after event ``seq``, folded from the start of its round."""
    if not 1 <= seq <= len(texts):
        return None
    first = next((k for k in range(seq - 1, 0, -1) if texts[k].startswith(_ROUND_STARTED)), None)
    if first is None:
        return None
    s = _between_rounds(texts, first, game_id)
    if s is None:
        return None
    return fold(_decoded(texts, first, seq), s)


_RUN_DECODER = msgspec.json.Decoder(list[ev.AnyEvent])


def _decode_all(chunk: Sequence[str]) -> Sequence[ev.Event]:
    """The texts of ``chunk`` decoded with one call (about a third of the cost of one call
    each; a ``game_started``'s meta is left as it is stored). A text that does not decode
    is decoded alone, for :func:`~seasalt_log.events.decode`'s error."""
    try:
        run: Sequence[ev.Event] = _RUN_DECODER.decode("[" + ",".join(chunk) + "]")
    except msgspec.DecodeError:
        return [ev.decode(t) for t in chunk]
    return run


def _decoded(texts: Sequence[str], start: int, end: int) -> Sequence[ev.Event]:
    """``texts[start:end]`` decoded (a round's events) with :func:`_decode_all`."""
    run = _decode_all(texts[start:end])
    if ev.GameStarted in map(type, run):       # decode() normalises its meta
        return [ev.decode(texts[k]) for k in range(start, end)]
    return run


def _decoded_by_parts(texts: Sequence[str], start: int, end: int) -> Iterator[ev.Event]:
    """``texts[start:end]`` decoded :data:`_PART` at a time, as they are consumed: a fold
    that stops at a turn decodes little of the rest of its round."""
    for at in range(start, end, _PART):
        yield from _decoded(texts, at, min(at + _PART, end))


#: the texts decoded with one call by :func:`_decoded_by_parts`: a turn is 2-5 events
_PART = 16


def _fold_round(texts: Sequence[str], round: int | None, turn: int | None,
                game_id: str | None) -> State | None:
    """The state after turn ``turn`` of round ``round``, or with neither the latest."""
    if round is None:
        return _fold_to(texts, len(texts), game_id)
    starts = _starts(texts, len(texts), round + 1)
    if not 1 <= round <= len(starts):
        return None
    first = starts[round - 1]
    s = _between_rounds(texts, first, game_id, starts[:round])
    if s is None:
        return None
    found = None
    end = starts[round] if round < len(starts) else len(texts)
    for k, e in enumerate(_decoded_by_parts(texts, first, end), first):
        f = s.flow
        at = (round, 0) if k == first else (f.round, f.turn)
        if at > (round, turn):
            break
        s = apply(s, e)
        if at == (round, turn):
            found = s
    return found


# ---------------------------------------------------------------- players

def resolve_seat(state: State, who: str) -> int:
    """The seat named by ``who``: a player's name (exact, else case-insensitive) or a seat
    number. Raises :class:`UsageError` naming the players when nobody matches."""
    names = state.players
    if who in names:
        return names.index(who)
    if is_digits(who.strip()) and int(who) < len(names):
        return int(who)
    folded = [i for i, n in enumerate(names) if n.casefold() == who.strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    known = ", ".join(f"{i} {n}" for i, n in enumerate(names))
    gid = f"game {state.game_id} has " if state.game_id else ""
    raise UsageError(f"no player {who!r}: {gid}players {known} (give a name or a seat number)")
