"""The rulesets as data (RULES.md): one frozen :class:`Ruleset` per game,
chosen by ``game_started.ruleset`` and ``game_started.events``, made once and carried in the
state. It holds the catalog, the legal pairs and trios, the scoring choice, the thresholds,
the rule ids an error names, and the rulings (marked **Ruling** in the rules) a ruleset
might choose otherwise, so that a later ruleset changes the game by changing a value, not
the engine code. R-DUO-NOEFFECT (a possible effect is compulsory, an impossible one does not
stop the pair) is no such choice: each pair's handler in :mod:`.core` applies it.

The engine asks the ruleset what holds; it never asks which ruleset a game plays.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import ClassVar

from msgspec import Struct

from .. import events as ev
from ..cards import CODES, EXTRA_CODES, EXTRA_SALT_DECK, FULL_DECK, KIND
from .table import CODE

#: an event type tag and the kind pairs it may lay down (each as a sorted pair of kinds)
PairEntry = tuple[str, tuple[tuple[str, str], ...]]
#: event type tag -> the kind pairs it may lay down
PairTable = tuple[PairEntry, ...]

_BASE_PAIRS: PairTable = (
    ("crabs_played", (("crab", "crab"),)),
    ("boats_played", (("boat", "boat"),)),
    ("fish_played", (("fish", "fish"),)),
    ("shark_played", (("shark", "swimmer"),)),
)
#: R-X-PAIRS: the pairs of an ``extra-salt`` game
_EXTRA_SALT_PAIRS: PairTable = _BASE_PAIRS + (
    ("lobster_played", (("crab", "lobster"),)),
    ("jellyfish_played", (("jellyfish", "swimmer"),)),
)


class Ruleset(Struct, frozen=True, dict=True):
    """What a game's rules are: the engine consults this value, never the ruleset's name.

    ``fewest_mermaids_to_win`` is derived, not a field: the fewest mermaids that win under
    any events of this game (a hand with fewer wins under none, so the events in effect need
    not be asked). It is set from ``mermaids_to_win`` and ``mermaid_events`` whenever a
    Ruleset is made, replaced or unpickled, so no caller can pass it (a keyword
    ``fewest_mermaids_to_win=`` is a TypeError) and it is never stale.
    """

    name: str = "base"
    #: R-X-RULESET-2: the event setting (None: no events; "pepper": RULES.md §14)
    events: str | None = None
    #: R-SETUP-2: target score by player count
    targets: tuple[tuple[int, int], ...] = ((2, 40), (3, 35), (4, 30))
    #: R-END-2: card points needed to call STOP or LAST CHANCE
    call_threshold: int = 7
    #: R-MERMAID-WIN: mermaids in hand that win the game
    mermaids_to_win: int = 4
    #: R-TAKE-3 (Ruling): with one card left, a deck draw takes it and discards nothing
    one_card_draw: bool = True
    #: R-TAKE-4 (Ruling): with deck and piles empty the take is skipped (else the turn is stuck)
    skip_impossible_take: bool = True
    #: R-END-3 (Ruling): a call on the turn that empties the deck comes before the deck-out
    call_before_deck_out: bool = True
    #: R-LAST-1 (Ruling): a boat pair in a final turn still gives its extra take
    boats_in_final_turns: bool = True
    #: R-LAST-2 (Ruling): no deck-out during the final turns of LAST CHANCE
    deck_out_in_final_turns: bool = False

    # ---- the catalog (R-CARDS, R-X-CARDS)
    #: every card of the game, sorted: a round's deck plus discards is exactly this
    cards: tuple[str, ...] = tuple(sorted(map(CODE.__getitem__, FULL_DECK.elements())))
    #: the card codes this game knows; any other is a format error (R-X-CARDS-4)
    codes: frozenset[str] = frozenset(CODES)
    #: the event types (tags) of this game; any other is a format error (LOG_FORMAT.md)
    tags: frozenset[str] = frozenset(ev.TAGS[t] for t in ev.BASE_TYPES)
    #: the rule a bad ``round_started`` deck breaks (R-SETUP-3 / R-X-SETUP)
    setup_rule: str = "R-SETUP-3"
    #: the rule a draw that does not match the deck breaks (R-DRAW / R-X-DRAW)
    draw_rule: str = "R-DRAW"

    # ---- pairs and trios (R-DUO-PAIR, R-X-PAIRS, R-X-TRIO)
    pairs: PairTable = _BASE_PAIRS
    #: R-X-TRIO: a starfish may join a pair laid down as a trio
    trios: bool = False
    #: the scoring of RULES.md §12 (R-X-SCORE) instead of RULES.md §4
    extra_scoring: bool = False

    # ---- Extra Salt rulings (RULES.md §18)
    #: R-X-LOBSTER: cards the lobster looks at; (Ruling, BGA) all of them when fewer are left
    lobster_sees: int = 5
    #: R-X-JELLYFISH-TURN (Ruling, text not BGA): the mermaid win is checked after a forced turn
    mermaid_win_after_forced_turn: bool = True
    #: R-X-JELLYFISH-SELF (Ruling, text not BGA): a lock never forces its owner's own takes
    lock_hits_owner: bool = False
    #: R-X-SCORE-STARFISH (Ruling, BGA): starfish in hand score with the pairs in hand
    starfish_in_hand_scores: bool = True

    # ---- Extra Pepper (RULES.md §14): what an event changes for the players it is in
    # effect for (R-EV-APPLY), read through the methods below
    #: pair event types legal only under an event: (tag, event code) (R-EV-WATER-RODEO)
    event_pairs: tuple[tuple[str, str], ...] = ()
    #: R-EV-TREASURE-CHEST: the call threshold an event raises it to
    threshold_events: tuple[tuple[str, int], ...] = ()
    #: R-EV-DANCE-OF-THE-MERMAIDS (Ruling, text not BGA): at least this many mermaids win
    mermaid_events: tuple[tuple[str, int], ...] = ()
    #: R-EV-DIODON-FISH: the events under which STOP may not be called
    no_stop_events: frozenset[str] = frozenset()
    #: R-EV-CARDS: event code -> "first" or "last" place
    places: tuple[tuple[str, str], ...] = ()

    #: derived in ``__post_init__`` (see the class docstring); an instance attribute, not
    #: a field, so it is neither a constructor argument nor encoded nor compared
    fewest_mermaids_to_win: ClassVar[int]
    #: derived likewise: event type -> the card pairs (a, b) it may lay down, in either
    #: order (:meth:`pair_kinds` as codes; empty for a type that lays no pair here), so that
    #: a pair is checked by one look-up (R-DUO-PAIR, R-X-PAIRS)
    pair_codes: ClassVar[dict[type, frozenset[tuple[str, str]]]]
    #: derived likewise: the card pairs (a, b), in either order, of the pair types legal
    #: for every player, whatever the events in effect (not ``event_pairs``': R-X-TRIO)
    free_pair_codes: ClassVar[frozenset[tuple[str, str]]]
    #: derived likewise: event code -> whether it goes to the first place (R-EV-CARDS;
    #: else the last)
    first_place: ClassVar[dict[str, bool]]

    def __post_init__(self) -> None:
        self.__dict__["fewest_mermaids_to_win"] = min(
            [self.mermaids_to_win, *(n for _, n in self.mermaid_events)])
        self.__dict__["pair_codes"] = {kind: _code_pairs(self.pair_kinds(tag))
                                       for kind, tag in ev.TAGS.items()}
        by_event = {tag for tag, _ in self.event_pairs}
        self.__dict__["free_pair_codes"] = frozenset().union(
            *(_code_pairs(kinds) for tag, kinds in self.pairs if tag not in by_event))
        self.__dict__["first_place"] = {code: place == "first" for code, place in self.places}

    def __copy__(self) -> Ruleset:
        """The value itself: it is frozen (and msgspec's copy would drop the derived value)."""
        return self

    def pair_allowed(self, tag: str, effects: frozenset[str]) -> bool:
        """Whether a pair event type is legal for a player with these events in effect."""
        for t, code in self.event_pairs:
            if t == tag:
                return code in effects
        return True

    def call_threshold_for(self, effects: frozenset[str]) -> int:
        """R-END-2 with R-EV-TREASURE-CHEST."""
        need = self.call_threshold
        for code, n in self.threshold_events:
            if n > need and code in effects:
                need = n
        return need

    def mermaids_to_win_for(self, effects: frozenset[str]) -> int:
        """R-MERMAID-WIN with R-EV-DANCE-OF-THE-MERMAIDS."""
        need = self.mermaids_to_win
        for code, n in self.mermaid_events:
            if n < need and code in effects:
                need = n
        return need

    def stop_allowed(self, effects: frozenset[str]) -> bool:
        """R-END-2 with R-EV-DIODON-FISH."""
        return not (self.no_stop_events & effects)

    def target_for(self, players: int) -> int:
        return dict(self.targets)[players]

    @property
    def round_deck_size(self) -> int:
        """Cards in a round's deck once the two discards are turned up (R-SETUP-3)."""
        return len(self.cards) - 2

    def pair_kinds(self, tag: str) -> tuple[tuple[str, str], ...]:
        """The kind pairs an event type lays down (empty: not a pair of this game)."""
        for t, kinds in self.pairs:
            if t == tag:
                return kinds
        return ()


#: kind -> its card codes (every ruleset's; :data:`table.CODE`'s objects)
_CODES_OF_KIND: dict[str, list[str]] = {}
for _code, _kind in KIND.items():
    _CODES_OF_KIND.setdefault(_kind, []).append(CODE[_code])


def _code_pairs(kinds: tuple[tuple[str, str], ...]) -> frozenset[tuple[str, str]]:
    """The card pairs (a, b), in either order, of the kind pairs ``kinds``."""
    return frozenset(pair for ka, kb in kinds
                     for a in _CODES_OF_KIND[ka] for b in _CODES_OF_KIND[kb]
                     for pair in ((a, b), (b, a)))


#: R-EV-DOLPHINS: the discarded kinds that trigger the Dolphins (the collectors, the seahorse)
DOLPHIN_KINDS = frozenset(("shell", "octopus", "penguin", "sailor", "seahorse"))
#: the card codes of :data:`DOLPHIN_KINDS` (one look-up per discarded card)
DOLPHIN_CODES = frozenset(CODE[code] for code, kind in KIND.items() if kind in DOLPHIN_KINDS)

#: R-EV-CARDS: each event's place
EVENT_PLACES: tuple[tuple[str, str], ...] = (
    ("hermit-crab", "last"), ("sunfish", "last"), ("water-rodeo", "last"),
    ("dance-of-the-shells", "last"), ("kraken", "first"), ("tornado", "first"),
    ("dance-of-the-mermaids", "last"), ("treasure-chest", "first"), ("diodon-fish", "first"),
    ("angelfish", "last"), ("dolphins", "last"), ("coral-reef", "last"))

BASE = Ruleset()
#: R-X-RULESET-1: the ``extra-salt`` ruleset, 66 cards and RULES.md §10-§13
EXTRA_SALT = Ruleset(
    name="extra-salt", cards=tuple(sorted(map(CODE.__getitem__, EXTRA_SALT_DECK.elements()))),
    codes=frozenset(CODES + EXTRA_CODES), setup_rule="R-X-SETUP", draw_rule="R-X-DRAW",
    pairs=_EXTRA_SALT_PAIRS, trios=True, extra_scoring=True,
    tags=BASE.tags | {ev.TAGS[t] for t in ev.EXTRA_SALT_TYPES})
RULESETS = {"base": BASE, "extra-salt": EXTRA_SALT}


@lru_cache(maxsize=None)
def rules_for(ruleset: str | None, events: str | None = None) -> Ruleset:
    """The one :class:`Ruleset` of a game's ``ruleset`` and ``events`` (R-X-RULESET)."""
    from msgspec.structs import replace
    rules = RULESETS[ruleset or "base"]
    if events is not None:
        # R-X-SCORE: any game with events scores by RULES.md §12; R-X-DRAW replaces R-DRAW
        rules = replace(
            rules, events=events, extra_scoring=True, draw_rule="R-X-DRAW",
            tags=rules.tags | {ev.TAGS[t] for t in ev.PEPPER_TYPES},
            pairs=rules.pairs + (("swimmers_played", (("swimmer", "swimmer"),)),
                                 ("sharks_played", (("shark", "shark"),))),
            event_pairs=(("swimmers_played", "water-rodeo"), ("sharks_played", "water-rodeo")),
            threshold_events=(("treasure-chest", 10),), mermaid_events=(("dance-of-the-mermaids", 3),),
            no_stop_events=frozenset({"diodon-fish"}), places=EVENT_PLACES)
    return rules


@lru_cache(maxsize=None)
def deck_counter(cards: tuple[str, ...]) -> Counter[str]:
    """A ruleset's ``cards`` as a multiset."""
    return Counter(cards)


#: Every ruling of RULES.md §9-§18 (§9) and those this project added where the rules are silent,
#: with where it is decided: a field of :class:`Ruleset` (flip it there) or the one function
#: that implements it.
RULINGS: tuple[tuple[str, str, str], ...] = (
    ("R-X-RULESET-2", "events are a separate setting, game_started.events", "rules_for"),
    ("R-X-LOBSTER", "with fewer than 5 cards in the deck the lobster sees them all",
     "Ruleset.lobster_sees"),
    ("R-X-JELLYFISH-TURN", "the mermaid win is checked after a forced turn",
     "Ruleset.mermaid_win_after_forced_turn"),
    ("R-X-JELLYFISH-SELF", "a lock never hits its owner; a boat take after it is normal",
     "Ruleset.lock_hits_owner"),
    ("R-X-SCORE-DUO", "Water Rodeo pairs count in the hand too", "scoring.hand_pairs"),
    ("R-X-SCORE-STARFISH", "starfish in hand score with the pairs in hand only",
     "Ruleset.starfish_in_hand_scores"),
    ("R-X-SCORE-SEAHORSE", "the seahorse joins the kind worth most (ties: shell, octopus, "
     "penguin, sailor in that order) and no multiplier counts it", "scoring.score_extra_counts"),
    ("R-EV-PLACE", "places by game totals after the round; a tie gives no place",
     "core.places"),
    ("R-EV-RESHUFFLE", "an empty event deck takes the discards as they stand at step 3, "
     "before the event_kept discard", "core._event_awarded"),
    ("R-EV-HERMIT-CRAB", "pile 0 then pile 1, both mandatory", "core._hermit_crab"),
    ("R-EV-WATER-RODEO-SHARKS", "a revealed hand is never a target, even an empty one",
     "core.sharks_targets"),
    ("R-EV-DANCE-OF-THE-MERMAIDS", "at least 3 mermaids win", "Ruleset.mermaid_events"),
    ("R-EV-ANGELFISH", "after every take step (a one-card draw and a boat's take too), "
     "mandatory, once", "core._angelfish_due"),
    ("R-EV-DOLPHINS", "mandatory", "core._dolphins_drawn"),
    ("R-EV-CORAL-REEF", "one face-down shell per player per round", "core._shell_face_down"),
    ("R-X-DRAW", "a deck of a wrong length is a format error in both rulesets, as in base",
     "core._known_codes"),
    ("R-EV-AWARD", "a round_started while event_kept is due is R-EV-AWARD, checked after the "
     "round number and R-SETUP-4", "core._event_drawn"),
    ("R-X-FLOW-FORCED", "an angelfish_taken in a forced turn is R-X-JELLYFISH-TURN; a "
     "forced_drawn while the Angelfish take is due is R-EV-ANGELFISH", "core"),
)
