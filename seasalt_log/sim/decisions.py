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

The expansions (RULES_EXTRA) add: ``lobster`` (then ``lobster_keep`` among the cards
seen), ``jellyfish``, ``starfish`` (a trio: ``cards`` the pair, ``card`` the starfish),
``forced`` (a forced turn's draw), ``angelfish`` (``card`` from ``pile``), ``shell`` (the
face-down shell ``card``), ``swimmers`` on a ``victim`` (then ``swap`` after seeing the
hand: ``cards`` the card given or empty, ``card`` the card got), ``sharks`` (``other``: the
laid pair taken from ``victim``) and ``keep_event`` (``card``: the event code kept). A
Hermit Crab ``crab`` lays the pair first; its ``crab_take`` lists the ``takes``.

:func:`group` also returns the legal events each decision stands for; they stay with the
simulator, which resolves a decision to one of them, so the engine stays the only judge of
legality and a bot never holds an event that names a hidden card.
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
LOBSTER = "lobster"
LOBSTER_KEEP = "lobster_keep"
JELLYFISH = "jellyfish"
STARFISH = "starfish"
FORCED = "forced"
ANGELFISH = "angelfish"
SHELL = "shell"
SWIMMERS = "swimmers"
SWAP = "swap"
SHARKS = "sharks"
KEEP_EVENT = "keep_event"

#: kinds of the decisions that lay a pair (or a trio) down
PAIRS = frozenset({CRAB, BOAT, FISH, SHARK, LOBSTER, JELLYFISH, STARFISH, SWIMMERS, SHARKS})

#: kinds of the decisions that follow another one (the card(s) seen after committing)
SECOND_PHASE = frozenset({KEEP, CRAB_TAKE, LOBSTER_KEEP, SWAP})


class Decision(Struct, frozen=True):
    """One choice open to the player to act, with chance left out (see the module doc).

    ``cards``: the pair laid down, or the two drawn cards for ``keep``; ``card``: the pile
    top for ``take``, the card kept for ``keep``, the card taken for ``crab_take``;
    ``pile``: the pile taken from / discarded onto / looked through; ``victim``: the seat a
    shark pair steals from. A decision holds nothing the player may not see.
    """

    kind: str
    cards: tuple[str, ...] = ()
    card: str | None = None
    pile: int | None = None
    victim: int | None = None
    #: the laid pair a Water Rodeo shark pair takes
    other: tuple[str, ...] = ()
    #: a Hermit Crab's takes, as (pile, card)
    takes: tuple[tuple[int, str], ...] = ()


#: decisions with, for each, the legal events it stands for (chance or a second decision
#: picks one of them); the events stay with the simulator, bots only get the decisions
Grouped = tuple[list[Decision], list[tuple[ev.Event, ...]]]

_DT = ev.DeckDrawn
_TK = ev.DiscardTaken
_CR = ev.CrabsPlayed
_BO = ev.BoatsPlayed
_FI = ev.FishPlayed
_SH = ev.SharkPlayed
_EN = ev.TurnEnded
_ST = ev.StopCalled
_LC = ev.LastChanceCalled
_DRAW = Decision(DRAW)
_END = Decision(END)
_STOP = Decision(STOP)
_LAST = Decision(LAST_CHANCE)


def group(moves: list[ev.Event]) -> Grouped:
    """Group legal ``moves`` into the decisions a player makes before chance is resolved,
    in the order of their first move; returns ``(decisions, events of each decision)``."""
    out: list[Decision] = []
    evs: list[list[ev.Event]] = []
    keyed: dict[tuple, int] = {}
    for m in moves:
        t = type(m)
        if t is _DT:
            key = (DRAW,)
            if key in keyed:
                evs[keyed[key]].append(m)
                continue
            d = _DRAW
        elif t is _TK:
            d = Decision(TAKE, card=m.card, pile=m.pile)
        elif t is _CR:
            key = (CRAB, m.cards, m.pile)
            if key in keyed:
                evs[keyed[key]].append(m)
                continue
            d = Decision(CRAB, cards=m.cards, pile=m.pile)
        elif t is _FI:
            key = (FISH, m.cards)
            if key in keyed:
                evs[keyed[key]].append(m)
                continue
            d = Decision(FISH, cards=m.cards)
        elif t is _SH:
            key = (SHARK, m.cards, m.victim)
            if key in keyed:
                evs[keyed[key]].append(m)
                continue
            d = Decision(SHARK, cards=m.cards, victim=m.victim)
        elif t is _BO:
            out.append(Decision(BOAT, cards=m.cards))
            evs.append([m])
            continue
        elif t in _EXTRA:
            key = _EXTRA[t](m)
            if key in keyed:
                evs[keyed[key]].append(m)
                continue
            keyed[key] = len(out)
            out.append(_decision(key))
            evs.append([m])
            continue
        elif t is _EN:
            d = _END
        elif t is _ST:
            d = _STOP
        elif t is _LC:
            d = _LAST
        else:  # pragma: no cover - legal_moves lists input turn events only
            raise TypeError(f"not a turn event: {m!r}")
        if t in _GROUPED:
            keyed[key] = len(out)
        out.append(d)
        evs.append([m])
    return out, [tuple(e) for e in evs]


_GROUPED = frozenset((_DT, _CR, _FI, _SH))

#: the expansions' input events -> the key of the decision a move belongs to, as
#: (kind, cards, card, pile, victim, other): only what the player sees before choosing
_EXTRA = {
    ev.LobsterPlayed: lambda m: (LOBSTER, m.cards, None, None, None, ()),
    ev.JellyfishPlayed: lambda m: (JELLYFISH, m.cards, None, None, None, ()),
    ev.StarfishPlayed: lambda m: (STARFISH, m.cards, m.starfish, None, None, ()),
    ev.ForcedDrawn: lambda m: (FORCED, (), None, None, None, ()),
    ev.AngelfishTaken: lambda m: (ANGELFISH, (), m.card, m.pile, None, ()),
    ev.ShellFaceDown: lambda m: (SHELL, (), m.card, None, None, ()),
    ev.SwimmersPlayed: lambda m: (SWIMMERS, m.cards, None, None, m.victim, ()),
    ev.SharksPlayed: lambda m: (SHARKS, m.cards, None, None, m.victim, m.pair or ()),
    ev.EventKept: lambda m: (KEEP_EVENT, (), m.event, None, None, ()),
}


def _decision(key: tuple) -> Decision:
    kind, cards, card, pile, victim, other = key
    return Decision(kind, cards=cards, card=card, pile=pile, victim=victim, other=other)


def keep_options(draws: tuple[ev.Event, ...]) -> Grouped:
    """The ``keep`` decisions after a two-card draw (the drawer now sees both cards)."""
    return ([Decision(KEEP, cards=e.cards, card=e.kept, pile=e.discard_pile) for e in draws],
            [(e,) for e in draws])


def crab_options(crabs: tuple[ev.Event, ...]) -> Grouped:
    """The ``crab_take`` decisions after a crab pair on a pile (the player looks through it)."""
    return ([Decision(CRAB_TAKE, cards=e.cards, card=e.took, pile=e.pile,
                      takes=tuple((t.pile, t.card) for t in e.takes or ())) for e in crabs],
            [(e,) for e in crabs])


def lobster_options(plays: tuple[ev.Event, ...]) -> Grouped:
    """The ``lobster_keep`` decisions once the lobster has looked at the deck's top cards."""
    return ([Decision(LOBSTER_KEEP, cards=e.seen or (), card=e.kept) for e in plays],
            [(e,) for e in plays])


def swap_options(plays: tuple[ev.Event, ...]) -> Grouped:
    """The ``swap`` decisions once a Water Rodeo swimmer pair has looked at the hand."""
    return ([Decision(SWAP, cards=(e.gave,) if e.gave else (), card=e.got, victim=e.victim)
             for e in plays], [(e,) for e in plays])
