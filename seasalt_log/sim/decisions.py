"""Decisions: the legal moves of :func:`seasalt_log.engine.legal_moves` grouped so that a
bot never chooses between chance outcomes it could not see.

A :class:`Decision` is what a player decides *before* any hidden card is known:

- at the take step, ``draw`` (the deck) or ``take`` (the top of pile ``pile``);
- after ``draw`` with two cards, the drawer sees them and decides ``keep`` (``card`` kept,
  the other one onto ``pile``);
- in the play step, a pair to lay down: ``crab`` (on pile ``pile``, or None when both piles
  are empty), ``boat``, ``fish`` (the drawn card is the deck's top, resolved by the
  simulator), ``shark`` (the ``victim`` is chosen; the card stolen is drawn at random by the
  simulator);
- after ``crab`` on a pile, the player looks through it and decides ``crab_take``;
- ``end``, ``stop``, ``last_chance``.

Each decision keeps the legal events it stands for (``events``), so the simulator resolves
it to one of them and the engine stays the only judge of legality.
"""

from __future__ import annotations

from msgspec import Struct

from .. import events as ev

DRAW = "draw"
TAKE = "take"
KEEP = "keep"
CRAB = "crab"
CRAB_TAKE = "crab_take"
BOAT = "boat"
FISH = "fish"
SHARK = "shark"
END = "end"
STOP = "stop"
LAST_CHANCE = "last_chance"

#: kinds of the decisions that follow another one (the card(s) seen after committing)
SECOND_PHASE = frozenset({KEEP, CRAB_TAKE})


class Decision(Struct, frozen=True):
    """One choice open to the player to act, with chance left out (see the module doc).

    ``cards``: the pair laid down, or the two drawn cards for ``keep``; ``card``: the pile
    top for ``take``, the card kept for ``keep``, the card taken for ``crab_take``;
    ``pile``: the pile taken from / discarded onto / looked through; ``victim``: the seat a
    shark pair steals from. ``events``: the legal events this decision stands for (one of
    them is played; which one is chance, or the next decision).
    """

    kind: str
    cards: tuple[str, ...] = ()
    card: str | None = None
    pile: int | None = None
    victim: int | None = None
    events: tuple[ev.Event, ...] = ()

    def public(self) -> "Decision":
        """The decision without its events (what tests compare across hidden states)."""
        return Decision(self.kind, self.cards, self.card, self.pile, self.victim)


_DT = ev.DeckDrawn
_TK = ev.DiscardTaken
_CR = ev.CrabsPlayed
_BO = ev.BoatsPlayed
_FI = ev.FishPlayed
_SH = ev.SharkPlayed
_EN = ev.TurnEnded
_ST = ev.StopCalled
_LC = ev.LastChanceCalled


def group(moves: list[ev.Event]) -> list[Decision]:
    """Group legal ``moves`` into the decisions a player makes before chance is resolved.

    Order is stable: decisions appear in the order of their first move.
    """
    out: list[Decision] = []
    draws: list[ev.Event] = []
    keyed: dict[tuple, list[ev.Event]] = {}
    for m in moves:
        t = type(m)
        if t is _DT:
            if not draws:
                out.append(None)  # type: ignore[arg-type]  # placeholder, filled below
                draw_at = len(out) - 1
            draws.append(m)
        elif t is _TK:
            out.append(Decision(TAKE, card=m.card, pile=m.pile, events=(m,)))
        elif t is _CR:
            key = (CRAB, m.cards, m.pile)
            if key in keyed:
                keyed[key].append(m)
            else:
                keyed[key] = [m]
                out.append(key)  # type: ignore[arg-type]
        elif t is _FI:
            key = (FISH, m.cards, None)
            if key in keyed:
                keyed[key].append(m)
            else:
                keyed[key] = [m]
                out.append(key)  # type: ignore[arg-type]
        elif t is _SH:
            key = (SHARK, m.cards, m.victim)
            if key in keyed:
                keyed[key].append(m)
            else:
                keyed[key] = [m]
                out.append(key)  # type: ignore[arg-type]
        elif t is _BO:
            out.append(Decision(BOAT, cards=m.cards, events=(m,)))
        elif t is _EN:
            out.append(Decision(END, events=(m,)))
        elif t is _ST:
            out.append(Decision(STOP, events=(m,)))
        elif t is _LC:
            out.append(Decision(LAST_CHANCE, events=(m,)))
        else:  # pragma: no cover - legal_moves lists input turn events only
            raise TypeError(f"not a turn event: {m!r}")
    if draws:
        out[draw_at] = Decision(DRAW, events=tuple(draws))
    if keyed:
        for i, d in enumerate(out):
            if type(d) is tuple:
                kind, cards, x = d
                evs = tuple(keyed[d])
                if kind == SHARK:
                    out[i] = Decision(SHARK, cards=cards, victim=x, events=evs)
                elif kind == CRAB:
                    out[i] = Decision(CRAB, cards=cards, pile=x, events=evs)
                else:
                    out[i] = Decision(FISH, cards=cards, events=evs)
    return out


def keep_options(draw: Decision) -> list[Decision]:
    """The ``keep`` decisions after a two-card ``draw`` (the drawer now sees both cards)."""
    return [Decision(KEEP, cards=e.cards, card=e.kept, pile=e.discard_pile, events=(e,))
            for e in draw.events]


def crab_options(crab: Decision) -> list[Decision]:
    """The ``crab_take`` decisions after a ``crab`` on a pile (the player looks through it)."""
    return [Decision(CRAB_TAKE, cards=crab.cards, card=e.took, pile=e.pile, events=(e,))
            for e in crab.events]
