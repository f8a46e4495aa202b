"""The project's rulings (RULES.md, marked **Ruling**) and tunable numbers, in one place.

A later ruleset changes the game by changing a :class:`Ruleset` value, not the engine code.
"""

from __future__ import annotations

from msgspec import Struct


class Ruleset(Struct, frozen=True):
    """The numbers and rulings the engine consults."""

    name: str = "base"
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
    #: R-DUO-NOEFFECT (Ruling): a pair whose effect cannot happen may still be laid down
    pair_without_effect: bool = True
    #: R-END-3 (Ruling): a call on the turn that empties the deck comes before the deck-out
    call_before_deck_out: bool = True
    #: R-LAST-1 (Ruling): a boat pair in a final turn still gives its extra take
    boats_in_final_turns: bool = True
    #: R-LAST-2 (Ruling): no deck-out during the final turns of LAST CHANCE
    deck_out_in_final_turns: bool = False

    def target_for(self, players: int) -> int:
        return dict(self.targets)[players]


BASE = Ruleset()
RULESETS = {"base": BASE}
