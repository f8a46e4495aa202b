"""``legal_moves(state)``: every input event the player to act may send next.

Moves that differ only in interchangeable cards are listed once. Chance is explicit: a
deck draw without a recorded deck order lists every unseen outcome, and a shark pair lists
each card the victim could lose. A bot or an analysis tool that wants the player's choices
without the chance outcomes uses :mod:`.decisions` (``legal_decisions``), which reaches each
of these events by exactly one decision and outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import events as ev
from ..cards import KIND
from ..scoring import card_points
from msgspec.structs import replace

from .core import player_points, shark_targets, sharks_targets, swimmer_targets
from .rulings import DOLPHIN_KINDS, PairEntry
from .state import ANGEL, BETWEEN, BOAT_TAKE, FORCED, FORCED_DONE, ROUND, TAKE, State

_DeckDrawn, _DiscardTaken = ev.DeckDrawn, ev.DiscardTaken
_CrabsPlayed, _BoatsPlayed, _FishPlayed, _SharkPlayed = (
    ev.CrabsPlayed, ev.BoatsPlayed, ev.FishPlayed, ev.SharkPlayed)


def _distinct(cards: Iterable[str]) -> list[str]:
    return sorted(set(cards))


def _same_kind_pairs(cards: list[str]) -> list[tuple[str, str]]:
    """Distinct 2-card combinations of ``cards`` (sorted), as sorted tuples, sorted."""
    cards.sort()
    n = len(cards)
    if n == 2:
        return [(cards[0], cards[1])]
    return sorted({(cards[i], cards[j]) for i in range(n) for j in range(i + 1, n)})


def _deck_outcomes(state: State, k: int) -> list[tuple[str, ...]]:
    deck = state.table.deck
    if state.table.deck_ordered:
        return [deck[:k]]
    if k == 1:
        return [(c,) for c in _distinct(deck)]
    out: list[tuple[str, ...]] = []
    for a in _distinct(deck):
        rest = list(deck)
        rest.remove(a)
        out.extend((a, b) for b in _distinct(rest))
    return out


def take_moves(state: State) -> list[ev.Event]:
    """The takes open to the player to act (R-TAKE-1..4)."""
    t, p = state.table, state.flow.player
    draws: list[ev.DeckDrawn] = []
    left = t.left
    p0, p1 = t.piles
    if left == 1 and state.ruleset.one_card_draw:
        draws += [_DeckDrawn(player=p, cards=c, kept=c[0]) for c in _deck_outcomes(state, 1)]
    elif left >= 2:
        piles = (1,) if p0 and not p1 else (0,) if p1 and not p0 else (0, 1)
        for cards in _deck_outcomes(state, 2):
            a, b = cards
            for kept in ((a,) if a == b else (a, b) if a < b else (b, a)):
                for i in piles:
                    draws.append(_DeckDrawn(player=p, cards=cards, kept=kept, discard_pile=i))
    moves: list[ev.Event]
    if state.table_event is not None and "dolphins" in state.effects(p):
        moves = _with_dolphins(state, draws)
    else:
        moves = list(draws)
    if p0:
        moves.append(_DiscardTaken(player=p, pile=0, card=p0[-1]))
    if p1:
        moves.append(_DiscardTaken(player=p, pile=1, card=p1[-1]))
    return moves


def _with_dolphins(state: State, draws: list[ev.DeckDrawn]) -> list[ev.Event]:
    """Deck draws with the Dolphins' card where they trigger (R-EV-DOLPHINS)."""
    out: list[ev.Event] = []
    deck = state.table.deck
    for m in draws:
        if m.discard_pile is None:
            out.append(m)
            continue
        a, b = m.cards
        other = b if a == m.kept else a
        if KIND[other] not in DOLPHIN_KINDS:
            out.append(m)
            continue
        rest = list(deck)
        if state.table.deck_ordered:
            rest = rest[2:]
            options = rest[:1]
        else:
            rest.remove(a)
            rest.remove(b)
            options = _distinct(rest)
        out += [replace(m, dolphins_drew=c) for c in options] or [m]
    return out


_DUO_KINDS = frozenset(("crab", "boat", "fish", "shark", "swimmer"))


def duo_moves(state: State) -> list[ev.Event]:
    """Every duo the player to act may lay down, with each possible effect (R-DUO-*)."""
    t, p = state.table, state.flow.player
    by_kind: dict[str, list[str]] = {}
    for c in t.hands[p]:
        k = KIND[c]
        if k in _DUO_KINDS:
            if k in by_kind:
                by_kind[k].append(c)
            else:
                by_kind[k] = [c]
    moves: list[ev.Event] = []
    if not by_kind and state.table_event is None:   # (the Coral Reef's shell needs no pair)
        return moves
    crabs = by_kind.get("crab")
    if crabs and len(crabs) >= 2:
        options = [(i, c) for i in (0, 1) for c in _distinct(t.piles[i])]
        for cards in _same_kind_pairs(crabs):
            if options:
                moves += [_CrabsPlayed(player=p, cards=cards, pile=i, took=c) for i, c in options]
            else:
                moves.append(_CrabsPlayed(player=p, cards=cards, pile=None, took=None))
    boats = by_kind.get("boat")
    if boats and len(boats) >= 2:
        moves += [_BoatsPlayed(player=p, cards=cards) for cards in _same_kind_pairs(boats)]
    fish = by_kind.get("fish")
    if fish and len(fish) >= 2:
        draws = [d[0] for d in _deck_outcomes(state, 1)] if t.left else [None]
        for cards in _same_kind_pairs(fish):
            moves += [_FishPlayed(player=p, cards=cards, drew=d) for d in draws]
    sharks, swimmers = by_kind.get("shark"), by_kind.get("swimmer")
    if sharks and swimmers:
        targets = shark_targets(state)
        steals: list[tuple[int | None, str | None]] = [
            (v, c) for v in targets for c in _distinct(t.hands[v])] or [(None, None)]
        ss = _distinct(swimmers)
        for a in _distinct(sharks):
            for b in ss:
                cards = (a, b)
                moves += [_SharkPlayed(player=p, cards=cards, victim=v, stole=c) for v, c in steals]
    rules = state.ruleset
    if rules.trios:                     # the Extra Salt cards are in the game
        moves += extra_salt_moves(state, by_kind)
    if state.table_event is not None:
        moves = pepper_moves(state, by_kind, moves)
    return moves


def pepper_moves(state: State, by_kind: dict[str, list[str]], moves: list[ev.Event]
                 ) -> list[ev.Event]:
    """The play-step moves as the events in effect for the player change them (R-EV-*):
    Hermit Crab takes, Sunfish draws, Water Rodeo pairs, the face-down shell."""
    t, p, rules = state.table, state.flow.player, state.ruleset
    effects = state.effects(p)
    out: list[ev.Event] = []
    hermit_done: set[tuple[str, ...]] = set()
    for m in moves:
        if type(m) is _CrabsPlayed and "hermit-crab" in effects:
            if m.cards not in hermit_done:          # once per pair, whichever piles have cards
                hermit_done.add(m.cards)
                per_pile = [[ev.HermitTake(pile=i, card=c) for c in _distinct(t.piles[i])]
                            for i in (0, 1) if t.piles[i]]
                combos: list[tuple[ev.HermitTake, ...]] = [()]
                for takes in per_pile:
                    combos = [c + (x,) for c in combos for x in takes]
                out += [_CrabsPlayed(player=p, cards=m.cards, pile=None, took=None,
                                     takes=c) for c in combos]
        elif type(m) is _FishPlayed and "sunfish" in effects and m.drew is not None:
            rest = list(t.deck)
            if t.deck_ordered:
                options = rest[1:2]
            else:
                rest.remove(m.drew)
                options = _distinct(rest)
            out += [replace(m, also_drew=c) for c in options] or [m]
        elif type(m) is ev.StarfishPlayed and not all(
                rules.pair_allowed(tag, effects) for tag, allowed in rules.pairs
                if tuple(sorted(KIND[c] for c in m.cards)) in allowed):
            continue
        else:
            out.append(m)
    if "water-rodeo" in effects:
        swimmers, sharks = by_kind.get("swimmer", []), by_kind.get("shark", [])
        for cards in _same_kind_pairs(list(swimmers)) if len(swimmers) >= 2 else []:
            hand = list(t.hands[p])
            hand.remove(cards[0])
            hand.remove(cards[1])
            targets = swimmer_targets(state)
            if not targets:
                out.append(ev.SwimmersPlayed(player=p, cards=cards, victim=None, gave=None, got=None))
            for v in targets:
                out.append(ev.SwimmersPlayed(player=p, cards=cards, victim=v, gave=None, got=None))
                out += [ev.SwimmersPlayed(player=p, cards=cards, victim=v, gave=g, got=c)
                        for g in _distinct(hand) for c in _distinct(t.hands[v])]
        for cards in _same_kind_pairs(list(sharks)) if len(sharks) >= 2 else []:
            targets = sharks_targets(state)
            if not targets:
                out.append(ev.SharksPlayed(player=p, cards=cards, victim=None, pair=None))
            for v in targets:
                pairs = sorted({tuple(sorted(u)) for u in t.laid[v] if len(u) == 2})
                out += [ev.SharksPlayed(player=p, cards=cards, victim=v, pair=pr) for pr in pairs]
    if ("coral-reef" in effects and t.face_down[p] is None
            and not state.flow.protected & (1 << p)):
        out += [ev.ShellFaceDown(player=p, card=c)
                for c in _distinct(c for c in t.hands[p] if KIND[c] == "shell")]
    return out


def extra_salt_moves(state: State, by_kind: dict[str, list[str]]) -> list[ev.Event]:
    """The lobster and jellyfish pairs and the trios open to the player (R-X-PAIRS,
    R-X-TRIO). Chance: with a recorded deck order the lobster sees the top cards and the
    move gives one new order (the remaining deck, then the returned cards); without one,
    one ``seen`` per card that may be kept (that card and the next cards of the sorted
    deck, sorted)."""
    t, p, rules = state.table, state.flow.player, state.ruleset
    hand = t.hands[p]
    moves: list[ev.Event] = []
    crabs: Sequence[str] = by_kind.get("crab", ())
    lobsters = [c for c in hand if KIND[c] == "lobster"]
    if lobsters and crabs and rules.pair_kinds("lobster_played"):
        n = min(rules.lobster_sees, t.left)
        for crab in _distinct(crabs):
            cards = (crab, lobsters[0])
            if not n:
                moves.append(ev.LobsterPlayed(player=p, cards=cards, seen=None, kept=None))
                continue
            if t.deck_ordered:
                seen = t.deck[:n]
                for kept in _distinct(seen):
                    back = list(seen)
                    back.remove(kept)
                    deck = (t.deck[n:] + tuple(back)) if back else None
                    moves.append(ev.LobsterPlayed(player=p, cards=cards, seen=seen, kept=kept,
                                                  deck=deck))
            else:
                for kept in _distinct(t.deck):
                    rest = list(t.deck)
                    rest.remove(kept)
                    moves.append(ev.LobsterPlayed(player=p, cards=cards,
                                                  seen=tuple(sorted((kept, *rest[:n - 1]))),
                                                  kept=kept))
    jellies = [c for c in hand if KIND[c] == "jellyfish"]
    swimmers = by_kind.get("swimmer")
    if jellies and swimmers and rules.pair_kinds("jellyfish_played"):
        moves += [ev.JellyfishPlayed(player=p, cards=(a, b))
                  for a in _distinct(swimmers) for b in _distinct(jellies)]
    stars = _distinct(c for c in hand if KIND[c] == "starfish")
    if stars and rules.trios:
        moves += [ev.StarfishPlayed(player=p, cards=pair, starfish=star)
                  for pair in pairs_in_hand(hand, rules.pairs) for star in stars]
    return moves


def pairs_in_hand(hand: Sequence[str], pairs: Iterable[PairEntry]) -> list[tuple[str, str]]:
    """The distinct pairs of ``hand`` of the kinds ``pairs`` lists (entries of
    ``Ruleset.pairs``), each a sorted tuple, sorted: what a starfish may join (R-X-TRIO)."""
    # kind -> code -> copies in hand: each kind pair looks at its own distinct codes only
    by_kind: dict[str, dict[str, int]] = {}
    for c in hand:
        codes = by_kind.get(KIND[c])
        if codes is None:
            by_kind[KIND[c]] = {c: 1}
        else:
            codes[c] = codes.get(c, 0) + 1
    out: set[tuple[str, str]] = set()
    for _, allowed in pairs:
        for ka, kb in allowed:
            first, second = by_kind.get(ka), by_kind.get(kb)
            if first and second:
                for a, copies in first.items():
                    for b in second:
                        if a != b or copies > 1:
                            out.add((a, b) if a <= b else (b, a))
    return sorted(out)


def forced_moves(state: State) -> list[ev.Event]:
    """A forced turn's take: the deck's top card, or null from an empty deck (R-X-JELLYFISH-TURN)."""
    p = state.flow.player
    if not state.table.deck:
        return [ev.ForcedDrawn(player=p, card=None)]
    return [ev.ForcedDrawn(player=p, card=c[0]) for c in _deck_outcomes(state, 1)]


# card points (R-SCORE, as scoring.breakdown computes them), fast: only the call check
# of end_moves needs them, on every play step
def end_moves(state: State) -> list[ev.Event]:
    """turn_ended, and the calls when allowed (R-END-1, R-END-2, R-LAST-1)."""
    t, f = state.table, state.flow
    p = f.player
    moves: list[ev.Event] = [ev.TurnEnded(player=p)]
    rs = state.ruleset
    if state.table_event is not None:
        effects = state.effects(p)
        if (f.call is None and (t.left or rs.call_before_deck_out)
                and player_points(state, p) >= rs.call_threshold_for(effects)):
            if rs.stop_allowed(effects):
                moves.append(ev.StopCalled(player=p))
            moves.append(ev.LastChanceCalled(player=p))
        return moves
    if (f.call is None and (t.left or rs.call_before_deck_out)
            and (card_points(t.hands[p], t.laid[p]) if not rs.extra_scoring
                 else player_points(state, p)) >= rs.call_threshold):
        moves += [ev.StopCalled(player=p), ev.LastChanceCalled(player=p)]
    return moves


def legal_moves(state: State) -> list[ev.Event]:
    """Every input event the player to act may send now; empty when none is theirs to send
    (before a round starts, while a derived event is due, after the game)."""
    if state.flow.phase != ROUND or state.flow.due:
        if state.flow.phase == BETWEEN and state.keep_due is not None and not state.flow.due:
            p = state.keep_due                                   # R-EV-AWARD step 4
            return [ev.EventKept(player=p, event=c) for c in state.held[p]]
        return []
    step = state.flow.step
    if step == ANGEL:                                           # R-EV-ANGELFISH
        piles = state.table.piles
        return [ev.AngelfishTaken(player=state.flow.player, pile=i, card=piles[i][-1])
                for i in (0, 1) if i == 0 or piles[1][-1] != piles[0][-1]]
    if step in (TAKE, BOAT_TAKE):
        return take_moves(state)
    if step == FORCED:
        return forced_moves(state)
    if step == FORCED_DONE:
        return [ev.TurnEnded(player=state.flow.player)]
    return duo_moves(state) + end_moves(state)
