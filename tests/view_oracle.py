"""An independent oracle of what each seat may see (RULES.md §7, R-VIEW), worked from the
rules and the events alone: no state flag of the engine, no code of ``seasalt_log.view``
or of ``seasalt_log.replay``'s views.

§7: the deck order is secret; other players' hands are secret (their size is public)
until revealed; the two cards of a deck draw are seen only by the drawer, the discarded
one becomes public; the card taken by a crab pair and the card drawn by a fish pair are
seen only by the player; a stolen card is seen by thief and victim. Laid-down pairs,
discard pile tops and every pile's size are public.

When is a hand revealed? Only where the rules say so:

- R-END-2: a player who calls (STOP or LAST CHANCE) reveals their hand;
- R-LAST-1 / R-LAST-3: after LAST CHANCE each other player reveals their hand once their
  final turn is over;
- R-STOP: after STOP every player scores their card points, so every hand is shown when the
  round is scored; after LAST CHANCE every hand has been revealed by then;
- R-DECKOUT: a deck-out scores 0 for everyone: nobody reveals anything;
- R-MERMAID-WIN: the game ends at once and the round is not scored: no rule reveals a hand
  there, not even the final turn's reveal of R-LAST-1 when the win comes at the end of a
  final turn (hands revealed earlier in the round stay revealed).

A new round deals new hands: nothing is revealed at its start.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from seasalt_log import events as ev


def shown_hands(events: Iterable[ev.Event]) -> Iterator[frozenset[int]]:
    """After each event, the seats whose hands every player may see."""
    events = list(events)
    shown: set[int] = set()
    players = 0
    final_turns = False             # inside the final turns of a LAST CHANCE
    for i, e in enumerate(events):
        t = type(e)
        after = events[i + 1] if i + 1 < len(events) else None
        mermaid_win = type(after) is ev.GameEnded and after.reason == "mermaids"
        if t is ev.GameStarted:
            players = len(e.players)
            shown = set()
        elif t is ev.RoundStarted:
            shown, final_turns = set(), False
        elif t is ev.StopCalled:
            shown.add(e.player)                                 # R-END-2
        elif t is ev.LastChanceCalled:
            shown.add(e.player)                                 # R-END-2, R-LAST-3
            final_turns = True
        elif t is ev.TurnEnded and final_turns and not mermaid_win:
            shown.add(e.player)        # R-LAST-1 (a mermaid win ends the game before that)
        elif t is ev.RoundScored and e.ending in ("stop", "last_chance"):
            shown = set(range(players))                         # R-STOP, R-LAST-4
        # RoundScored(deck_out): R-DECKOUT, nobody reveals; GameEnded: no reveal
        yield frozenset(shown)


def hands_visible_to(shown: frozenset[int], viewer: int) -> frozenset[int]:
    """The seats whose hand ``viewer`` sees: their own, and every shown hand."""
    return shown | {viewer}


def event_cards(e: ev.Event, viewer: int) -> set[str]:
    """The card codes ``viewer`` may learn from the event itself (RULES.md §7)."""
    t = type(e)
    if t is ev.RoundStarted:
        return set(e.discards)                      # the deck order stays secret
    if t is ev.DeckDrawn:
        if viewer == e.player:
            return set(e.cards)
        if len(e.cards) == 2:                       # the discarded one becomes public
            rest = list(e.cards)
            rest.remove(e.kept)
            return set(rest)
        return set()
    if t is ev.DiscardTaken:
        return {e.card}
    if t is ev.CrabsPlayed:
        return set(e.cards) | ({e.took} if viewer == e.player and e.took else set())
    if t is ev.BoatsPlayed:
        return set(e.cards)
    if t is ev.FishPlayed:
        return set(e.cards) | ({e.drew} if viewer == e.player and e.drew else set())
    if t is ev.SharkPlayed:
        sees = viewer in (e.player, e.victim)
        return set(e.cards) | ({e.stole} if sees and e.stole else set())
    return extra_event_cards(e, viewer)


# ---------------------------------------------------------------- the expansions (R-X-VIEW)
#
# RULES.md §16 (docs/RULES.md §16): the lobster's n cards and the card kept are seen by
# its player only; jellyfish, trios, locks and who is protected are public; a forced take is
# seen by its taker only; a face-down shell's colour by its owner only, for the whole round;
# Hermit Crab takes: piles public, cards private; Sunfish and Dolphins draws private (the
# discard that triggers the Dolphins is public); the Angelfish take is public; two swimmers:
# the player sees the chosen player's whole hand, the swapped cards are seen by the two
# players only, the others see who was chosen and whether a swap took place; two sharks are
# public; events public.
#
# R-EV-WATER-RODEO-SWIMMERS: the player "looks at" the chosen hand (step 2) before the swap
# (step 3). No rule reveals that hand (R-LAST-3 is the only reveal in the round): the look
# is a moment of the event, so ``shown_hands`` leaves it out.

def extra_event_cards(e: ev.Event, viewer: int) -> set[str]:
    """The card codes ``viewer`` may learn from an event of the expansions (R-X-VIEW), and
    the private parts of the base types' expansion fields."""
    t = type(e)
    own = viewer == getattr(e, "player", None)
    if t is ev.LobsterPlayed:
        return set(e.cards) | (set(e.seen or ()) if own else set())
    if t in (ev.JellyfishPlayed, ev.SharksPlayed):
        return set(e.cards) | set(getattr(e, "pair", None) or ())
    if t is ev.StarfishPlayed:
        return set(e.cards) | {e.starfish}
    if t is ev.ForcedDrawn:
        return {e.card} if own and e.card else set()
    if t is ev.AngelfishTaken:
        return {e.card}
    if t is ev.ShellFaceDown:
        return {e.card} if own else set()
    if t is ev.SwimmersPlayed:
        sees = viewer in (e.player, e.victim)
        return set(e.cards) | ({e.gave, e.got} - {None} if sees else set())
    return set()


def looks_at(e: ev.Event, viewer: int | None) -> int | None:
    """The seat whose whole hand ``viewer`` (None: a spectator) looks at during the event,
    as it is before the event (R-X-VIEW, R-EV-WATER-RODEO-SWIMMERS steps 2 and 3): the
    player of two swimmers looks at the chosen player's hand; nobody else does, and nobody
    when no player was chosen."""
    if type(e) is ev.SwimmersPlayed and e.victim is not None and viewer == e.player:
        return e.victim
    return None


def extra_private_cards(e: ev.Event, viewer: int) -> set[str]:
    """What a base event type's expansion fields add for its player only: the Hermit Crab's
    takes, the Sunfish's second card, the Dolphins' card (R-X-VIEW)."""
    if viewer != getattr(e, "player", None):
        return set()
    t = type(e)
    if t is ev.CrabsPlayed and e.takes:
        return {x.card for x in e.takes}
    if t is ev.FishPlayed and e.also_drew:
        return {e.also_drew}
    if t is ev.DeckDrawn and e.dolphins_drew:
        return {e.dolphins_drew}
    return set()


def face_down_shells(events: Iterable[ev.Event]) -> Iterator[dict[int, str]]:
    """After each event, the face-down shell of each seat that placed one this round
    (R-EV-CORAL-REEF); a new round starts with none."""
    placed: dict[int, str] = {}
    for e in events:
        if type(e) is ev.RoundStarted:
            placed = {}
        elif type(e) is ev.ShellFaceDown:
            placed = {**placed, e.player: e.card}
        yield placed
