"""Replay a stored game: fold its event stream again and stop where asked.

Every function here is pure and works on a game's full event list as stored (derived
``round_scored`` / ``game_ended`` events included, ``game_started`` first):

- :func:`replay` — the state after an event (``seq``), after a turn (``round``/``turn``) or
  the latest state;
- :func:`steps` and :func:`turns` — every event with the state before and after it, and the
  events grouped by turn; :func:`iter_turn_states` — the state after every turn of a round;
- :func:`rescore` — a round's scoring recomputed by today's engine, next to what was
  stored, with the what-if of the other call;
- :func:`describe` — one readable line per event, for everyone or as one seat saw it
  (RULES.md §7);
- :func:`render_state` and :func:`render_report` — plain-text blocks for terminals and
  golden transcripts.

Turns are numbered as in LOG_FORMAT.md: 1, 2, … within a round, a turn running from its
first take to its ``turn_ended`` / call. The derived events that follow a turn's last event
directly belong to that turn; ``round_started`` is turn 0 of its round.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from msgspec import Struct

from .digits import is_digits
from . import events as ev
from .engine import RULESETS, State, apply, boats_give_take
from .engine.state import BETWEEN, BOAT_TAKE, ENDED, NEW, PLAY, ROUND, TAKE, Flow
from .errors import UsageError
from .engine.core import player_breakdown
from .scoring import Breakdown, as_breakdown, effect_notes, last_chance_outcome, round_points
from .view import TableView, as_viewer, sees_private

__all__ = ["Step", "Turn", "LogLine", "PlayerRound", "WhatIf", "RoundReport", "steps", "turns",
           "replay", "replay_stored", "iter_turn_states", "rescore", "describe", "log_lines", "render_state",
           "render_report", "resolve_seat", "game_id_of"]


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
    from .importers.jsonl import derive_game_id
    return derive_game_id(events)


def steps(events: Iterable[ev.Event], *, game_id: str | None = None) -> Iterator[Step]:
    """Apply ``events`` in order and yield a :class:`Step` for each.

    ``game_id`` names the game in the states when its ``game_started`` carries none (the
    store's derived id). Events are checked by the engine as they are applied.
    """
    from msgspec.structs import replace
    s = State()
    for seq, e in enumerate(events, 1):
        before = s
        s = apply(s, e)
        if seq == 1 and s.game_id is None and game_id is not None:
            s = replace(s, game_id=game_id)
        f = before.flow
        if isinstance(e, ev.GameStarted):
            rnd, turn = 0, 0
        elif isinstance(e, ev.RoundStarted):
            rnd, turn = e.round, 0
        else:   # a turn event, or a derived event that follows the turn's last event
            rnd, turn = f.round, f.turn
        yield Step(seq=seq, round=rnd, turn=turn, event=e, before=before, after=s)


def _all_steps(events: Sequence[ev.Event], game_id: str | None) -> tuple[list[Step], str]:
    events = list(events)
    if not events:
        raise UsageError(f"game {game_id or '?'} has no events")
    gid = game_id or game_id_of(events) or "?"
    return list(steps(events, game_id=gid)), gid


def _rounds(all_steps: list[Step]) -> int:
    return max((st.round for st in all_steps), default=0)


def _check_round(all_steps: list[Step], gid: str, round: int) -> list[Step]:
    """The steps of ``round`` (round_started first), or a UsageError naming what exists."""
    n = _rounds(all_steps)
    if round < 1 or round > n:
        have = "no round has started" if n == 0 else f"{n} round{'s' if n != 1 else ''}"
        raise UsageError(f"game {gid} has no round {round} ({have})")
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
    all_steps, gid = _all_steps(events, game_id)
    return _turns_of(_check_round(all_steps, gid, round))


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
    all_steps, gid = _all_steps(events, game_id)
    if seq is not None:
        if seq < 1 or seq > len(all_steps):
            raise UsageError(f"game {gid} has {len(all_steps)} event{'s' if len(all_steps) != 1 else ''}"
                             f" (seq 1..{len(all_steps)}); there is no seq {seq}")
        return all_steps[seq - 1].after
    if round is None:
        return all_steps[-1].after
    round_steps = _check_round(all_steps, gid, round)
    if turn is None:
        return round_steps[-1].after
    last = max(st.turn for st in round_steps)
    if turn < 0 or turn > last:
        raise UsageError(f"game {gid}: round {round} has {last} turn{'s' if last != 1 else ''}; "
                         f"there is no turn {turn}")
    return [st for st in round_steps if st.turn == turn][-1].after


_ROUND_STARTED = '{"type":"round_started"'


def replay_stored(texts: Sequence[str], *, round: int | None = None, turn: int | None = None,
                  seq: int | None = None, game_id: str | None = None) -> State:
    """:func:`replay` of a stored game given as its events' JSON, in seq order.

    The state after turn T of round R is found by folding round R alone, from the state
    between rounds R-1 and R (built from ``game_started`` and round R-1's
    ``round_scored``: what the engine carries from one round to the next), so that only
    that round's events are decoded. The stored JSON is the canonical encoding (the type
    tag first), which is how a round's start is found without decoding. Anything else,
    or a point the game does not have, is :func:`replay` of every event.
    """
    if round is not None and turn is not None and seq is None and texts:
        found = _fold_round(texts, round, turn, game_id)
        if found is not None:
            return found
    events = [ev.decode(t) for t in texts]
    return replay(events, round=round, turn=turn, seq=seq,
                  game_id=game_id or game_id_of(events))


def _fold_round(texts: Sequence[str], round: int, turn: int, game_id: str | None) -> State | None:
    from msgspec.structs import replace
    starts = [i for i, t in enumerate(texts) if t.startswith(_ROUND_STARTED)]
    if not 1 <= round <= len(starts):
        return None
    first = starts[round - 1]
    start = ev.decode(texts[0])
    if type(start) is not ev.GameStarted:
        return None
    s = apply(State(), start)
    if s.game_id is None:
        s = replace(s, game_id=game_id or game_id_of([start, ev.decode(texts[starts[0]])]))
    if round > 1:
        scored = ev.decode(texts[first - 1])
        if type(scored) is not ev.RoundScored or scored.round != round - 1:
            return None
        # what _round_scored leaves (R-SETUP-4's check of the first player was made when
        # the game was stored: ender None skips it here)
        s = replace(s, phase=BETWEEN, totals=tuple(scored.totals),
                    last_points=tuple(scored.points), rounds_played=round - 1, seq=first,
                    flow=Flow(round=round - 1))
    elif first != 1:
        return None
    found = None
    end = starts[round] if round < len(starts) else len(texts)
    for k in range(first, end):
        e = ev.decode(texts[k])
        f = s.flow
        at = (round, 0) if k == first else (f.round, f.turn)
        if at > (round, turn):
            break
        s = apply(s, e)
        if at == (round, turn):
            found = s
    return found


# ---------------------------------------------------------------- rescoring a round

class PlayerRound(Struct, frozen=True, omit_defaults=True):
    """One player's result in a :class:`RoundReport`."""

    seat: int
    name: str
    hand: tuple[str, ...]                 # at the end of the round
    laid: tuple[tuple[str, str], ...]
    breakdown: Breakdown                  # today's scoring of hand + laid (R-SCORE)
    points: int | None                    # recomputed; None when the round was not scored
    stored_points: int | None             # from the stored round_scored
    total: int | None                     # total before the round + recomputed points
    stored_total: int | None
    what_if_points: int | None            # had the caller made the other call
    #: the events in effect for the player this round (R-EV-APPLY); empty without events
    effects: tuple[str, ...] = ()
    #: what each of them changed in the breakdown (scoring.effect_notes)
    effect_notes: tuple[str, ...] = ()


class WhatIf(Struct, frozen=True):
    """The points had the caller made the other call at the same moment.

    The cards are those held when the call was made: for STOP they are the cards scored;
    for a LAST CHANCE round, STOP would have ended the round before the final turns. For
    STOP turned into LAST CHANCE, the final turns that would have followed are unknown, so
    nobody's cards change.
    """

    call: str                             # the other call: "stop" or "last_chance"
    caller_won: bool | None
    outcome: str                          # "won"/"tied"/"lost" for last_chance; "stop"
    card_points: tuple[int, ...]          # at the moment of the call
    color_bonus: tuple[int, ...]
    points: tuple[int, ...]


class RoundReport(Struct, frozen=True):
    """A round rescored by today's engine, next to what the log stored (``seasalt rescore``)."""

    game_id: str
    round: int
    ending: str                           # "stop", "last_chance", "deck_out" or "mermaids"
    caller: int | None                    # who called (None for a deck-out or a mermaid win)
    caller_name: str | None
    outcome: str                          # "won"/"tied"/"lost", "stop", "deck_out", "mermaids"
    caller_won: bool | None
    ended_by: int                         # the seat whose turn ended the round
    turns: int
    players: tuple[PlayerRound, ...]
    points: tuple[int, ...] | None        # recomputed
    stored_points: tuple[int, ...] | None
    totals: tuple[int, ...] | None        # recomputed, after the round
    stored_totals: tuple[int, ...] | None
    matches: bool | None                  # recomputed == stored (None when not scored)
    what_if: WhatIf | None
    mermaid_winner: int | None = None
    note: str | None = None


def rescore(events: Sequence[ev.Event], round: int, *, game_id: str | None = None) -> RoundReport:
    """Rescore ``round`` with today's scoring and compare with the stored ``round_scored``.

    A round ended by a four-mermaid win (R-MERMAID-WIN) has no ``round_scored``: the report
    says so (``ending`` "mermaids", points None) and still shows every player's cards.
    A round still in play raises :class:`UsageError`.
    """
    all_steps, gid = _all_steps(events, game_id)
    round_steps = _check_round(all_steps, gid, round)
    end = next((st for st in round_steps if st.after.flow.due and st.before.flow.due is None), None)
    if end is None:
        last = round_steps[-1]
        raise UsageError(f"game {gid}: round {round} is still in play (turn {last.after.flow.turn}); "
                         "it has no result yet")
    s = end.after
    f, t = s.flow, s.table
    names = s.players
    scores = [as_breakdown(player_breakdown(s, p)) for p in range(s.n)]
    effects = [tuple(sorted(s.effects(p))) for p in range(s.n)]
    notes = [effect_notes(t.hands[p], t.laid[p], s.ruleset, s.effects(p),
                          int(bool(t.face_down) and t.face_down[p] is not None))
             for p in range(s.n)]
    card_pts = [b.card_points for b in scores]
    bonus = [b.color_bonus for b in scores]
    totals_before = s.totals
    n_turns = max(st.turn for st in round_steps)
    if f.mermaid_winner is not None:
        w = f.mermaid_winner
        players = tuple(PlayerRound(seat=p, name=names[p], hand=t.hands[p], laid=t.laid[p],
                                    breakdown=scores[p], points=None, stored_points=None,
                                    total=None, stored_total=None, what_if_points=None,
                                    effects=effects[p], effect_notes=notes[p])
                        for p in range(s.n))
        return RoundReport(
            game_id=gid, round=round, ending="mermaids", caller=None, caller_name=None,
            outcome="mermaids", caller_won=None, ended_by=w, turns=n_turns, players=players,
            points=None, stored_points=None, totals=None, stored_totals=None, matches=None,
            what_if=None, mermaid_winner=w,
            note=(f"round {round} was not scored: {names[w]} held four mermaids at the end of "
                  f"turn {end.turn} and won the game at once (R-MERMAID-WIN); totals stay "
                  + _per_seat(names, totals_before)))
    ending = f.ending
    caller = None if ending == "deck_out" else f.caller
    points, won = round_points(ending, caller, card_pts, bonus)
    totals = tuple(a + b for a, b in zip(totals_before, points))
    stored = next((st.event for st in round_steps if isinstance(st.event, ev.RoundScored)), None)
    stored_points = tuple(stored.points) if stored else None
    stored_totals = tuple(stored.totals) if stored else None
    if ending == "last_chance":
        outcome = last_chance_outcome(caller, card_pts)
    else:
        outcome = ending
    what_if = None
    if caller is not None:
        call_step = next(st for st in round_steps
                         if isinstance(st.event, (ev.StopCalled, ev.LastChanceCalled)))
        at_call = [player_breakdown(call_step.after, p) for p in range(s.n)]
        cp = tuple(b.card_points for b in at_call)
        cb = tuple(b.color_bonus for b in at_call)
        other = "stop" if ending == "last_chance" else "last_chance"
        wpoints, wwon = round_points(other, caller, cp, cb)
        what_if = WhatIf(call=other, caller_won=wwon,
                         outcome=last_chance_outcome(caller, cp) if other == "last_chance" else "stop",
                         card_points=cp, color_bonus=cb, points=tuple(wpoints))
    players = tuple(PlayerRound(
        seat=p, name=names[p], hand=t.hands[p], laid=t.laid[p], breakdown=scores[p],
        points=points[p], stored_points=stored_points[p] if stored_points else None,
        total=totals[p], stored_total=stored_totals[p] if stored_totals else None,
        what_if_points=what_if.points[p] if what_if else None,
        effects=effects[p], effect_notes=notes[p]) for p in range(s.n))
    note = None
    if stored is None:
        note = f"round {round} has no round_scored event in this stream"
    elif tuple(points) != stored_points or totals != stored_totals:
        note = "today's engine scores this round differently from the stored round_scored"
    return RoundReport(
        game_id=gid, round=round, ending=ending, caller=caller,
        caller_name=names[caller] if caller is not None else None, outcome=outcome,
        caller_won=won, ended_by=f.player, turns=n_turns, players=players,
        points=tuple(points), stored_points=stored_points, totals=totals,
        stored_totals=stored_totals,
        matches=(tuple(points) == stored_points and totals == stored_totals) if stored else None,
        what_if=what_if, note=note)


# ---------------------------------------------------------------- describing events

_CALLS = {"stop": "STOP", "last_chance": "LAST CHANCE"}


def _per_seat(names: Sequence[str], values: Sequence[int]) -> str:
    return ", ".join(f"{n} {v}" for n, v in zip(names, values))


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sees(viewer: int | None, *seats: int | None) -> bool:
    return sees_private(as_viewer(viewer), *seats)


def describe(event: ev.Event, state_before: State, viewer: int | None = None) -> str:
    """One readable line for ``event``, applied to ``state_before``, with players' names.

    With ``viewer`` (a seat), the line says only what that seat could see (RULES.md §7):
    another player's drawn and kept cards, the card another player's crab pair took or fish
    pair drew, and a card stolen between two other players are left out; discarded cards,
    pile takes, laid-down pairs and calls are public.
    """
    s = state_before
    names = s.players

    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and seat < len(names) else f"seat {seat}"

    if isinstance(event, ev.GameStarted):
        gid = event.game_id or s.game_id
        seats = ", ".join(f"{p} (seat {i})" for i, p in enumerate(event.players))
        target = event.target or RULESETS[event.ruleset or "base"].target_for(len(event.players))
        tail = f"; target {target}"
        if event.ruleset not in (None, "base"):     # a plain base game reads as before
            tail += f"; ruleset {event.ruleset}"
        if event.events is not None:
            tail += f"; events {event.events}"
        return f"Game {gid + ' ' if gid else ''}started: {seats}{tail}"
    if isinstance(event, ev.RoundStarted):
        table = f"; table event {event_name(event.event)}" if event.event is not None else ""
        return (f"Round {event.round} started: {name(event.first_player)} plays first; "
                f"discard piles {event.discards[0]} | {event.discards[1]}{table}")
    if isinstance(event, ev.DeckDrawn):
        who = name(event.player)
        see = _sees(viewer, event.player)
        if len(event.cards) == 1:
            if see:
                return f"{who} drew {event.cards[0]}, the deck's last card"
            return f"{who} drew the deck's last card"
        other = event.cards[1] if event.cards[0] == event.kept else event.cards[0]
        where = f"discarded {other} on pile {event.discard_pile}"
        if event.dolphins_drew is not None:                       # R-EV-DOLPHINS
            where += (f"; the Dolphins drew {event.dolphins_drew if see else 'a card'} "
                      "from the deck")
        if see:
            return (f"{who} drew {event.cards[0]} and {event.cards[1]}, kept {event.kept}, "
                    f"{where}")
        return f"{who} drew two cards, kept one, {where}"
    if isinstance(event, ev.DiscardTaken):
        return f"{name(event.player)} took {event.card} from pile {event.pile}"
    if isinstance(event, ev.CrabsPlayed):
        head = f"{name(event.player)} played crabs ({event.cards[0]}, {event.cards[1]})"
        if event.takes is not None:                               # R-EV-HERMIT-CRAB
            if not event.takes:
                return f"{head} (Hermit Crab); both discard piles are empty, nothing taken"
            took = " and ".join(f"{t.card if _sees(viewer, event.player) else 'a card'} from "
                                f"pile {t.pile}" for t in event.takes)
            return f"{head} (Hermit Crab) and took {took}"
        if event.pile is None:
            return f"{head}; both discard piles are empty, nothing taken"
        card = event.took if _sees(viewer, event.player) else "a card"
        return f"{head} and took {card} from pile {event.pile}"
    if isinstance(event, ev.BoatsPlayed):
        head = f"{name(event.player)} played boats ({event.cards[0]}, {event.cards[1]})"
        return (f"{head} for another take" if boats_give_take(s)
                else f"{head}; nothing is left to take")
    if isinstance(event, ev.FishPlayed):
        head = f"{name(event.player)} played fish ({event.cards[0]}, {event.cards[1]})"
        if event.drew is None:
            return f"{head}; the deck is empty, nothing drawn"
        card = event.drew if _sees(viewer, event.player) else "a card"
        if event.also_drew is not None:                           # R-EV-SUNFISH
            also = event.also_drew if _sees(viewer, event.player) else "another"
            return f"{head} and drew {card} and {also} from the deck (Sunfish)"
        return f"{head} and drew {card} from the deck"
    if isinstance(event, ev.SharkPlayed):
        a, b = sorted(event.cards, key=lambda c: not c.startswith("shark:"))
        head = f"{name(event.player)} played {a} + {b}"
        if event.victim is None:
            return f"{head}; no hand could be stolen from"
        card = event.stole if _sees(viewer, event.player, event.victim) else "a card"
        return f"{head} and stole {card} from {name(event.victim)}"
    if isinstance(event, ev.TurnEnded):
        return f"{name(event.player)} ended the turn"
    if isinstance(event, ev.StopCalled):
        return f"{name(event.player)} called STOP"
    if isinstance(event, ev.LastChanceCalled):
        return f"{name(event.player)} called LAST CHANCE"
    if isinstance(event, ev.RoundScored):
        if event.ending == "deck_out":
            return (f"Round {event.round} scored (deck_out): nobody scores; totals "
                    f"{_per_seat(names, event.totals)}")
        if event.ending == "stop":
            how = f"stop, called by {name(event.caller)}"
        else:
            outcome = last_chance_outcome(event.caller, event.card_points)
            how = "last_chance, " + name(event.caller) + {
                "won": " won", "tied": " won on a tie", "lost": " lost"}[outcome]
        return (f"Round {event.round} scored ({how}): points {_per_seat(names, event.points)}; "
                f"totals {_per_seat(names, event.totals)}")
    if isinstance(event, ev.GameEnded):
        winners = [name(w) for w in event.winners]
        result = f"{winners[0]} wins" if len(winners) == 1 else f"{_and(winners)} share the win"
        return f"Game over ({event.reason}): {result}"
    text = _describe_extra(event, s, viewer, name)
    if text is not None:
        return text
    return ev.TAGS.get(type(event), type(event).__name__)   # pragma: no cover


def event_name(code: str) -> str:
    """An event card's name in words (R-EV-CARDS): ``water-rodeo`` -> ``Water Rodeo``."""
    small = ("of", "the")
    return " ".join(w if w in small else w.capitalize() for w in code.split("-"))


def _describe_extra(event: ev.Event, s: State, viewer: int | None, name) -> str | None:
    """The words for the event types of the expansions (RULES_EXTRA §1-§5), hiding from
    ``viewer`` what R-X-VIEW hides: the lobster's cards, a forced take, a face-down shell's
    colour, the Hermit Crab, Sunfish and Dolphins cards, and the cards two swimmers swap
    (seen by the two players only). Everything else, the events included, is public."""
    who = name(getattr(event, "player", None))
    own = _sees(viewer, getattr(event, "player", None))
    if isinstance(event, ev.LobsterPlayed):
        head = f"{who} played a lobster ({event.cards[0]}, {event.cards[1]})"
        if not event.seen:
            return f"{head}; the deck is empty, nothing seen"
        n = len(event.seen)
        if own:
            return (f"{head}, looked at the top {n} card{'s' if n != 1 else ''} of the deck "
                    f"({', '.join(event.seen)}), kept {event.kept} and shuffled the rest back")
        return (f"{head}, looked at the top {n} card{'s' if n != 1 else ''} of the deck, kept "
                f"one and shuffled the rest back")
    if isinstance(event, ev.JellyfishPlayed):
        return (f"{who} played a jellyfish ({event.cards[0]}, {event.cards[1]}): every other "
                f"player is locked until {who}'s next turn")
    if isinstance(event, ev.ForcedDrawn):
        if event.card is None:
            return f"{who}'s forced turn: the deck is empty, nothing drawn"
        card = event.card if own else "a card"
        return f"{who}'s forced turn (jellyfish lock): drew {card} from the deck"
    if isinstance(event, ev.StarfishPlayed):
        return (f"{who} laid down a trio ({event.cards[0]}, {event.cards[1]} and "
                f"{event.starfish}), without the pair's effect")
    if isinstance(event, ev.AngelfishTaken):
        return f"{who} took {event.card} from pile {event.pile} (Angelfish)"
    if isinstance(event, ev.ShellFaceDown):
        card = f" ({event.card})" if own else ""
        return (f"{who} placed a shell face down{card} (Coral Reef) and is protected for the "
                f"rest of the round")
    if isinstance(event, ev.SwimmersPlayed):
        head = f"{who} played two swimmers ({event.cards[0]}, {event.cards[1]}) (Water Rodeo)"
        if event.victim is None:
            return f"{head}; no hand could be looked at"
        victim = name(event.victim)
        if event.gave is None:
            return f"{head}, looked at {victim}'s hand and swapped nothing"
        if _sees(viewer, event.player, event.victim):
            return (f"{head}, looked at {victim}'s hand and swapped {event.gave} for "
                    f"{event.got}")
        return f"{head}, looked at {victim}'s hand and swapped a card with {victim}"
    if isinstance(event, ev.SharksPlayed):
        head = f"{who} played two sharks ({event.cards[0]}, {event.cards[1]}) (Water Rodeo)"
        if event.victim is None or event.pair is None:
            return f"{head}; no laid-down pair could be taken"
        return (f"{head} and took {name(event.victim)}'s laid-down pair "
                f"({event.pair[0]}, {event.pair[1]})")
    if isinstance(event, ev.EventKept):
        held = s.held[event.player] if s.held else ()
        other = [c for c in held if c != event.event][:1]
        gone = f" and discarded {event_name(other[0])}" if other else ""
        return f"{who} kept the event {event_name(event.event)}{gone}"
    if isinstance(event, ev.EventAwarded):
        parts = [f"{name(d.player)} discarded {event_name(d.event)}" for d in event.discarded]
        if event.to is None:
            parts.append(f"{event_name(event.event)} goes to the event discards (no place)")
        else:
            parts.append(f"{event_name(event.event)} goes to {name(event.to)}")
        return f"Round {event.round} event: " + "; ".join(parts)
    return None


class LogLine(Struct, frozen=True, omit_defaults=True):
    """One event of a game as a readable line (``seasalt log``); ``event`` (the event
    itself) only in the whole-truth log, never in a player's view."""

    seq: int
    round: int
    turn: int
    type: str
    player: int | None
    text: str
    event: ev.Event | None = None


def log_lines(events: Sequence[ev.Event], *, viewer: int | None = None,
              game_id: str | None = None) -> list[LogLine]:
    """Every event of a game described by :func:`describe` (as ``viewer`` saw it, if given)."""
    all_steps, _ = _all_steps(events, game_id)
    return [LogLine(seq=st.seq, round=st.round, turn=st.turn, type=ev.TAGS[type(st.event)],
                    player=getattr(st.event, "player", None),
                    text=describe(st.event, st.before, viewer),
                    event=st.event if viewer is None else None)
            for st in all_steps]


# ---------------------------------------------------------------- plain-text rendering

def _status(view: TableView) -> str:
    names = [seat.name for seat in view.seats]
    if view.phase == NEW:
        return "The game has not started"
    if view.phase == ENDED:
        winners = [names[w] for w in view.winners]
        if not winners:
            return "Game over"
        return "Game over: " + (f"{winners[0]} wins" if len(winners) == 1
                                else f"{_and(winners)} share the win")
    if view.phase == ROUND and view.player is not None:
        who = names[view.player]
        return {TAKE: f"{who} to play: take a card",
                BOAT_TAKE: f"{who} to play: the boat pair's extra take",
                PLAY: f"{who} to play: duos, then end the turn"}.get(view.step, f"{who} to play")
    if view.phase == ROUND:
        return f"Round {view.round} is over: its result is due"
    if view.round == 0:
        return "Round 1 is about to start"
    if view.totals and max(view.totals) >= view.target:
        return f"Round {view.round} is over and a total has reached {view.target}: the game ends"
    return f"Round {view.round} is over; round {view.round + 1} is about to start"


def render_state(view: TableView) -> str:
    """A plain-text block (no colour codes) of one :class:`~seasalt_log.view.TableView`:
    position, whose turn and step, the call in force, deck, discard piles, then per seat
    the hand (or its size when hidden), laid-down pairs, card points and game total."""
    names = [seat.name for seat in view.seats]
    lines = []
    where = f"round {view.round}, turn {view.turn}" if view.round else "before round 1"
    lines.append(f"Game {view.game_id or '?'}: {where} (seq {view.seq})")
    if view.viewer is not None:
        lines.append(f"As seen by {names[view.viewer]} (seat {view.viewer})")
    lines.append(_status(view))
    if view.call:
        lines.append(f"Call: {_CALLS.get(view.call, view.call)} by {names[view.caller]}")
    if view.extra and view.extra.table_event is not None:          # R-EV-ROUND
        x = view.extra
        lines.append(f"Table event: {event_name(x.table_event)}; event deck "
                     f"{x.event_deck_size}, discards "
                     f"{', '.join(map(event_name, x.event_discards)) or '-'}")
        if x.keep_due is not None:
            lines.append(f"{names[x.keep_due]} keeps one of two events (R-EV-AWARD)")
    if view.phase == ROUND:
        deck = f"Deck: {view.deck_size} card{'s' if view.deck_size != 1 else ''}"
        if view.deck:
            nxt = ", ".join(view.deck[:4]) + (", ..." if len(view.deck) > 4 else "")
            deck += f" (next: {nxt})"
        elif view.viewer is None and view.deck_size:
            deck += " (order not recorded)"
        lines.append(deck)
        for p in view.piles:
            size = f"{p.size} card{'s' if p.size != 1 else ''}"
            if p.top is None:
                lines.append(f"Pile {p.pile}: empty")
            elif p.cards is not None and p.size > 1:
                lines.append(f"Pile {p.pile}: top {p.top} ({size}; bottom to top: "
                             f"{', '.join(p.cards)})")
            else:
                lines.append(f"Pile {p.pile}: top {p.top} ({size})")
    width = max(len(n) for n in names) if names else 0
    for seat in view.seats:
        mark = ">" if view.phase == ROUND and view.player == seat.seat else " "
        pts = "?" if seat.card_points is None else str(seat.card_points)
        flags = []
        if seat.revealed and view.phase == ROUND:
            flags.append("revealed")
        if view.caller == seat.seat and view.call:
            flags.append("caller")
        x = view.extra
        if x:                                             # R-X-JELLYFISH, R-EV-PROTECT
            flags += [w for w, seats in (("jellyfish lock", x.locks), ("locked", x.locked),
                                         ("protected", x.protected)) if seat.seat in seats]
        tail = f"  [{', '.join(flags)}]" if flags else ""
        lines.append(f"{mark} {seat.name:<{width}} (seat {seat.seat})  total {seat.total}  "
                     f"card points {pts}{tail}")
        if seat.hand is None:
            lines.append(f"    hand ({seat.hand_size}): hidden")
        else:
            lines.append(f"    hand ({seat.hand_size}): {', '.join(seat.hand) if seat.hand else '-'}")
        if seat.laid:
            lines.append("    laid: " + ", ".join("+".join(u) for u in seat.laid))
        if x:
            lines.extend(_extra_seat_lines(x, seat.seat))
    lines.append(f"Totals: {_per_seat(names, view.totals)} (target {view.target})")
    return "\n".join(lines)


def _extra_seat_lines(x, seat: int) -> list[str]:
    """A seat's held events, events in effect and face-down shell (R-X-VIEW: its colour
    only for its owner)."""
    lines = []
    if x.held[seat]:
        lines.append("    holds: " + ", ".join(map(event_name, x.held[seat])))
    if x.effects[seat]:
        lines.append("    in effect: " + ", ".join(map(event_name, x.effects[seat])))
    if x.face_down[seat]:
        lines.append(f"    face down: {x.face_down_cards[seat] or 'a shell (hidden)'}")
    return lines


def render_report(report: RoundReport) -> str:
    """A plain-text block of a :class:`RoundReport`: the ending, a table of each player's
    breakdown and points (recomputed and stored), the what-if, and any note."""
    names = [p.name for p in report.players]
    lines = []
    if report.ending == "mermaids":
        head = (f"Round {report.round}: ended by {names[report.mermaid_winner]}'s four mermaids "
                f"after {report.turns} turns; not scored")
    elif report.ending == "deck_out":
        head = (f"Round {report.round}: deck-out in {names[report.ended_by]}'s turn after "
                f"{report.turns} turns; nobody scores")
    elif report.ending == "stop":
        head = f"Round {report.round}: {report.caller_name} called STOP after {report.turns} turns"
    else:
        verdict = {"won": "won", "tied": "won on a tie", "lost": "lost"}[report.outcome]
        head = (f"Round {report.round}: {report.caller_name} called LAST CHANCE and {verdict} "
                f"({report.turns} turns)")
    lines.append(head)
    cols = ["seat", "name", "pairs", "collectors", "multipliers", "mermaids", "card_points",
            "color_bonus", "points", "stored", "total"]
    if report.what_if:
        cols.append("if " + _CALLS[report.what_if.call])
    rows = []
    for p in report.players:
        b = p.breakdown
        row = [str(p.seat), p.name, str(b.pairs), str(b.collectors), str(b.multipliers),
               str(b.mermaids), str(b.card_points), str(b.color_bonus), _opt(p.points),
               _opt(p.stored_points), _opt(p.total)]
        if report.what_if:
            row.append(_opt(p.what_if_points))
        rows.append(row)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    for row in [cols] + rows:
        lines.append("  " + "  ".join(v.ljust(w) if i == 1 else v.rjust(w)
                                      for i, (v, w) in enumerate(zip(row, widths))).rstrip())
    for p in report.players:
        cards = ", ".join(p.hand) if p.hand else "-"
        laid = "; laid " + ", ".join("+".join(u) for u in p.laid) if p.laid else ""
        lines.append(f"  {p.name}: {cards}{laid}")
        if p.effects:
            lines.append(f"    events in effect: {', '.join(p.effects)}")
        lines.extend(f"    {n}" for n in p.effect_notes)
    if report.matches is not None:
        lines.append("Stored points and totals " + ("match today's engine" if report.matches
                                                    else "DIFFER from today's engine"))
    w = report.what_if
    if w is not None:
        if w.call == "stop":
            lines.append(f"What if {report.caller_name} had called STOP instead (cards as at the "
                         f"call, card points {_per_seat(names, w.card_points)}): points "
                         f"{_per_seat(names, w.points)}")
        else:
            verdict = {"won": "won", "tied": "won on a tie", "lost": "lost"}[w.outcome]
            lines.append(f"What if {report.caller_name} had called LAST CHANCE instead (same "
                         f"cards; {report.caller_name} would have {verdict}): points "
                         f"{_per_seat(names, w.points)}")
    if report.note:
        lines.append("Note: " + report.note)
    return "\n".join(lines)


def _opt(v: int | None) -> str:
    return "-" if v is None else str(v)


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
