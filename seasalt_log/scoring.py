"""Scoring, pure (RULES.md §4-6): card points with a breakdown, colour bonus, round outcome,
game winners. The engine, the CLI's ``score`` and ``rescore`` all use these functions."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence, overload

from msgspec import Struct, structs

from .cards import ALL_CODES, CODES, COLOR, COLORS, EXTRA_FAMILIES, KIND, KINDS

if TYPE_CHECKING:
    from .engine.rulings import Ruleset

# R-SCORE-COLLECT: points by number held (index = count)
COLLECTOR_POINTS: dict[str, tuple[int, ...]] = {
    "shell": (0, 0, 2, 4, 6, 8, 10),
    "octopus": (0, 0, 3, 6, 9, 12),
    "penguin": (0, 1, 3, 5),
    "sailor": (0, 0, 5),
}
# R-SCORE-MULT: multiplier kind -> (kind it counts, points per card)
MULTIPLIERS: dict[str, tuple[str, int]] = {
    "lighthouse": ("boat", 1),
    "shoal": ("fish", 1),
    "colony": ("penguin", 2),
    "captain": ("sailor", 3),
}
CALL_THRESHOLD = 7  # R-END-2
#: the collector tables of COLLECTOR_POINTS, in its order
COLLECTOR_TABLES: tuple[tuple[int, ...], ...] = tuple(COLLECTOR_POINTS.values())


class Breakdown(Struct, frozen=True):
    """A player's card points by source (R-SCORE-*) and colour bonus (R-SCORE-BONUS)."""

    pairs: int
    collectors: int
    multipliers: int
    mermaids: int
    card_points: int
    color_bonus: int


# index arrays: a count per kind and per colour, in catalog order
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
#: card code -> (kind index, colour index)
CARD_INDEX: dict[str, tuple[int, int]] = {
    code: (KIND_INDEX[KIND[code]], COLORS.index(COLOR[code])) for code in CODES}
_CRAB, _BOAT, _FISH, _SWIMMER, _SHARK, _MERMAID = (
    KIND_INDEX[k] for k in ("crab", "boat", "fish", "swimmer", "shark", "mermaid"))
_NO_BASE_KINDS = [0] * len(KINDS)       # copied by counts (see _NO_KINDS)
#: the last count a collector table's padded copy (:func:`_padded`) holds: more cards than
#: any deck holds of one kind (at most 9, R-CARDS, R-X-CARDS-1); past it, see :func:`_sets`
_MOST = 2 * len(ALL_CODES)


@lru_cache(maxsize=None)
def _padded(table: tuple[int, ...]) -> tuple[int, ...]:
    """A collector table read by count without a bound check: its last score (that many
    cards or more, R-SCORE-COLLECT) repeated up to index :data:`_MOST` (one copy per table)."""
    return table + (table[-1],) * (_MOST + 1 - len(table))


# the scorers read the collector and multiplier kinds one by one, not in a loop: their
# indexes, in the order of COLLECTOR_POINTS and MULTIPLIERS, and the collector tables padded
_SHELL, _OCTOPUS, _PENGUIN, _SAILOR = (KIND_INDEX[k] for k in COLLECTOR_POINTS)
(_LIGHTHOUSE, _LIGHTHOUSE_OF, _LIGHTHOUSE_PER), (_SHOAL, _SHOAL_OF, _SHOAL_PER), \
    (_COLONY, _COLONY_OF, _COLONY_PER), (_CAPTAIN, _CAPTAIN_OF, _CAPTAIN_PER) = (
        (KIND_INDEX[m], KIND_INDEX[k], per) for m, (k, per) in MULTIPLIERS.items())
_BASE_TABLES = tuple(map(_padded, COLLECTOR_TABLES))
# the closed turns' scorers (:func:`seat_points_and_bonus`) tell the kinds by these ranges
assert (_CRAB, _BOAT, _FISH, _SWIMMER, _SHARK, _SHELL, _OCTOPUS, _PENGUIN, _SAILOR,
        _MERMAID) == (*range(9), len(KINDS) - 1)


def counts(hand: Iterable[str], laid: Iterable[Sequence[str]] = (),
           index: dict[str, tuple[int, int]] = CARD_INDEX
           ) -> tuple[list[int], list[int], list[int], int]:
    """(kinds in hand, kinds in hand and laid units, colours of both, units laid) as count
    lists indexed by :data:`KIND_INDEX` and colour order (by ``index``: :data:`CARD_INDEX`,
    or :data:`X_CARD_INDEX` for every ruleset's cards); the input of :func:`score_counts`."""
    in_hand = [*(_NO_BASE_KINDS if index is CARD_INDEX else _NO_KINDS)]
    colors = [*_NO_COLORS]
    for code in hand:
        k, c = index[code]
        in_hand[k] += 1
        colors[c] += 1
    kinds = [*in_hand]
    n_laid = 0
    for pair in laid:
        n_laid += 1
        for code in pair:
            k, c = index[code]
            kinds[k] += 1
            colors[c] += 1
    return in_hand, kinds, colors, n_laid


def score_counts(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                 n_laid: int) -> tuple[int, int, int, int]:
    """(pairs, collectors, multipliers, mermaids) of a holding given as counts."""
    pairs = n_laid + _pairs_in_hand(in_hand)                        # laid pairs 1 each
    collectors, multipliers = _sets(kinds, _BASE_TABLES)
    mermaids = kinds[_MERMAID] and mermaid_points(kinds[_MERMAID], colors)
    return pairs, collectors, multipliers, mermaids


def _pairs_in_hand(in_hand: Sequence[int]) -> int:
    """R-SCORE-DUO: the pairs in hand, floor(n/2) for crab/boat/fish and shark+swimmer pairs,
    from the kinds in hand as counts."""
    sharks, swimmers = in_hand[_SHARK], in_hand[_SWIMMER]
    return (in_hand[_CRAB] // 2 + in_hand[_BOAT] // 2 + in_hand[_FISH] // 2
            + (sharks if sharks < swimmers else swimmers))


def _sets(kinds: Sequence[int], tables: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
    """(collectors, multipliers): R-SCORE-COLLECT by ``tables`` (the shell, octopus, penguin
    and sailor tables in effect, padded: :func:`_padded`) and R-SCORE-MULT, from the kinds as
    counts. One call for both: every closed turn is scored through it."""
    shells, octopuses, penguins, sailors = tables
    try:                                                # a table scores 0 for none
        collectors = (shells[kinds[_SHELL]] + octopuses[kinds[_OCTOPUS]]
                      + penguins[kinds[_PENGUIN]] + sailors[kinds[_SAILOR]])
    except IndexError:          # more of a kind than every deck holds: the tables' last score
        collectors = sum(table[min(kinds[k], _MOST)] for k, table in
                         zip((_SHELL, _OCTOPUS, _PENGUIN, _SAILOR), tables))
    multipliers = 0
    if kinds[_LIGHTHOUSE]:
        multipliers = kinds[_LIGHTHOUSE] * kinds[_LIGHTHOUSE_OF] * _LIGHTHOUSE_PER
    if kinds[_SHOAL]:
        multipliers += kinds[_SHOAL] * kinds[_SHOAL_OF] * _SHOAL_PER
    if kinds[_COLONY]:
        multipliers += kinds[_COLONY] * kinds[_COLONY_OF] * _COLONY_PER
    if kinds[_CAPTAIN]:
        multipliers += kinds[_CAPTAIN] * kinds[_CAPTAIN_OF] * _CAPTAIN_PER
    return collectors, multipliers


def mermaid_points(mermaids: int, colors: Sequence[int], largest: int | None = None) -> int:
    """R-SCORE-MERMAID: the i-th of ``mermaids`` (at least one) scores the i-th largest of
    the colour groups ``colors`` (white included); ``largest``: ``max(colors)`` if the caller
    has it (the colour bonus)."""
    if mermaids == 1:               # one mermaid: the largest group, without a sort
        return max(colors) if largest is None else largest
    return sum(sorted(colors, reverse=True)[:mermaids])


def breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> Breakdown:
    """Score ``hand`` (card codes) plus ``laid`` (laid-down pairs, each two codes). A holding
    with Extra Salt cards is scored by RULES.md §12 without events (see
    :func:`extra_breakdown`; the starfish count with the pairs), so every reader of a state
    scores an ``extra-salt`` game as the engine does."""
    hand, laid = tuple(hand), tuple(laid)
    try:
        in_hand, kinds, colors, n_laid = counts(hand, laid)
    except KeyError:
        x = extra_breakdown(hand, laid)
        return Breakdown(x.pairs + x.starfish, x.collectors, x.multipliers, x.mermaids,
                         x.card_points, x.color_bonus)
    pairs, collectors, multipliers, mermaids = score_counts(in_hand, kinds, colors, n_laid)
    # R-SCORE-BONUS: the largest colour group
    return Breakdown(pairs, collectors, multipliers, mermaids,
                     pairs + collectors + multipliers + mermaids, max(colors))


def points_and_bonus(hand: Iterable[str], laid: Sequence[Sequence[str]] = ()) -> tuple[int, int]:
    """(card points, colour bonus) of a holding, as :func:`breakdown` gives them, without
    building the breakdown (what a round's end compares, R-SCORE, R-SCORE-BONUS)."""
    try:
        in_hand, kinds, colors, bonus = _count_anew(hand, laid, CARD_INDEX, _NO_BASE_KINDS)
    except KeyError:                        # Extra Salt cards: scored by breakdown
        b = breakdown(hand, laid)
        return b.card_points, b.color_bonus
    collectors, multipliers = _sets(kinds, _BASE_TABLES)
    mermaids = kinds[_MERMAID] and mermaid_points(kinds[_MERMAID], colors, bonus)
    return (_pairs_in_hand(in_hand) + len(laid)                     # laid pairs 1 each
            + collectors + multipliers + mermaids, bonus)


def card_points(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()) -> int:
    """Card points only (R-SCORE), colour bonus never included. Memoised for tuples (the
    engine's hands and pairs): the same hand is scored for a call, for the legal moves and
    for a player's view."""
    if type(hand) is tuple and type(laid) is tuple:
        try:
            return _card_points(hand, laid)
        except TypeError:                   # a pair given as a list: not hashable
            pass
    return breakdown(hand, laid).card_points


@lru_cache(maxsize=4096)
def _card_points(hand: tuple[str, ...], laid: tuple[tuple[str, str], ...]) -> int:
    return breakdown(hand, laid).card_points


def round_points(ending: str, caller: int | None, card_pts: Sequence[int],
                 bonus: Sequence[int]) -> tuple[list[int], bool | None]:
    """Points each seat scores this round, and ``caller_won`` (a bool only for LAST CHANCE).

    R-STOP: everyone scores card points. R-DECKOUT: everyone 0. R-LAST-4: the caller wins
    with at least as many card points as every other player (ties go to the caller).
    """
    n = len(card_pts)
    if ending == "stop":
        return list(card_pts), None
    if ending == "deck_out":
        return [0] * n, None
    if caller is None:
        raise ValueError("a LAST CHANCE round needs its caller")
    mine = card_pts[caller]
    won = mine >= max(card_pts)     # the caller's own points are among them
    if won:
        pts = list(bonus)
        pts[caller] = mine + bonus[caller]
    else:
        pts = list(card_pts)
        pts[caller] = bonus[caller]
    return pts, won


def last_chance_outcome(caller: int, card_pts: Sequence[int]) -> str:
    """``won``, ``tied`` (won on a tie) or ``lost`` for a LAST CHANCE call (R-LAST-4)."""
    others = max(p for s, p in enumerate(card_pts) if s != caller)
    mine = card_pts[caller]
    return "won" if mine > others else "tied" if mine == others else "lost"


def game_winners(totals: Sequence[int], last_points: Sequence[int]) -> list[int]:
    """R-GAME-1: highest total; ties broken by the last round's points; then a shared win."""
    best = max(totals)
    tied = [s for s, t in enumerate(totals) if t == best]
    top = max(last_points[s] for s in tied)
    return [s for s in tied if last_points[s] == top]


# ---------------------------------------------------------------- RULES.md §12 (R-X-SCORE)

#: R-X-SCORE-SEAHORSE: the collector kinds the seahorse may join, with their maximum
SEAHORSE_KINDS: tuple[tuple[str, int], ...] = (("shell", 6), ("octopus", 5), ("penguin", 3),
                                               ("sailor", 2))
#: the events that replace a collector table (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN)
EVENT_TABLES: dict[str, tuple[str, tuple[int, ...]]] = {
    "dance-of-the-shells": ("shell", (0, 2, 4, 6, 8, 10, 12)),
    "kraken": ("octopus", (0, 1, 2, 3, 4, 5)),
}
#: R-EV-TORNADO: mermaids score 0 for the player
MERMAIDS_SCORE_NOTHING = "tornado"
#: R-EV-WATER-RODEO: swimmer+swimmer and shark+shark are pairs for the player
RODEO = "water-rodeo"
#: R-X-SCORE-CAST: the cast of crabs counts crabs, one point each (the lobster is no crab)
CAST = ("castofcrabs", "crab", 1)


class ExtraBreakdown(Struct, frozen=True):
    """A player's card points by source under RULES.md §12 (R-X-SCORE and the rules under it)."""

    pairs: int              # laid-down units (duos, trios, taken pairs) and pairs in hand
    rodeo_pairs: int        # of ``pairs``: the hand pairs only the Water Rodeo makes
    trios: int              # laid-down trios (each also counts one pair)
    starfish: int           # 2 per laid starfish, 2 per hand starfish matched to a hand pair
    collectors: int         # shells, octopuses, penguins, sailors (with the seahorse)
    seahorse: str | None    # the collector kind the seahorse joined
    seahorse_points: int    # what the seahorse added
    multipliers: int        # lighthouse, shoal, colony, captain and the cast of crabs
    cast: int               # of ``multipliers``: the cast of crabs
    mermaids: int
    card_points: int
    color_bonus: int
    tables: tuple[str, ...]  # the events in effect that changed a table
    face_down: int          # face-down shells left out (R-EV-CORAL-REEF)


#: count lists of the expansions: every kind of every ruleset, the base kinds first at their
#: :data:`KIND_INDEX` (so :func:`score_counts`' indexes hold), then the Extra Salt kinds
X_KINDS: tuple[str, ...] = KINDS + tuple(EXTRA_FAMILIES)
X_KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(X_KINDS)}
#: every card code of every ruleset -> (kind index in :data:`X_KINDS`, colour index)
X_CARD_INDEX: dict[str, tuple[int, int]] = {
    code: (X_KIND_INDEX[KIND[code]], COLORS.index(COLOR[code])) for code in ALL_CODES}
_LOBSTER, _JELLYFISH, _STARFISH, _SEAHORSE = (
    X_KIND_INDEX[k] for k in ("lobster", "jellyfish", "starfish", "seahorse"))
_CASTS, _CASTS_OF, _CASTS_PER = X_KIND_INDEX[CAST[0]], X_KIND_INDEX[CAST[1]], CAST[2]
#: copied (``[*_NO_KINDS]``: a display, cheaper than ``[0] * n`` or a slice)
_NO_KINDS, _NO_COLORS = [0] * len(X_KINDS), [0] * len(COLORS)


def extra_counts(hand: Iterable[str], laid: Iterable[Sequence[str]] = ()
                 ) -> tuple[list[int], list[int], list[int], int, int]:
    """(kinds in hand, kinds in hand and laid units, colours of both, units laid, trios laid)
    as count lists indexed by :data:`X_KIND_INDEX` and colour order; the input of
    :func:`score_extra_counts`."""
    index = X_CARD_INDEX
    in_hand = [*_NO_KINDS]
    colors = [*_NO_COLORS]
    for code in hand:
        k, c = index[code]
        in_hand[k] += 1
        colors[c] += 1
    kinds = [*in_hand]
    n_units = trios = 0
    for unit in laid:
        n_units += 1
        if len(unit) == 3:
            trios += 1
        for code in unit:
            k, c = index[code]
            kinds[k] += 1
            colors[c] += 1
    return in_hand, kinds, colors, n_units, trios


def counts_with(counts: tuple[list[int], list[int], list[int], int, int], code: str
                ) -> tuple[list[int], list[int], list[int], int, int]:
    """New :func:`extra_counts` of the holding ``counts`` with ``code`` added to the hand."""
    in_hand, kinds, colors, n_units, trios = counts
    k, c = X_CARD_INDEX[code]
    in_hand, kinds, colors = [*in_hand], [*kinds], [*colors]
    in_hand[k] += 1
    kinds[k] += 1
    colors[c] += 1
    return in_hand, kinds, colors, n_units, trios


def hand_pairs(in_hand: Sequence[int], rodeo: bool) -> tuple[int, int]:
    """(pairs in hand, of which only the Water Rodeo makes) by R-X-SCORE-DUO, from the kinds
    in hand as counts (:func:`extra_counts`)."""
    c, lob = in_hand[_CRAB], in_hand[_LOBSTER]
    if lob:                                         # crab+lobster pairs first (1 lobster)
        m = c if c < lob else lob
        n = m + (c - m) // 2 + in_hand[_BOAT] // 2 + in_hand[_FISH] // 2
    else:
        n = c // 2 + in_hand[_BOAT] // 2 + in_hand[_FISH] // 2
    w, sh, j = in_hand[_SWIMMER], in_hand[_SHARK], in_hand[_JELLYFISH]
    plain_swim = sh + j
    if w < plain_swim:
        plain_swim = w
    if rodeo:
        mj = j if j < w else w
        swim = mj + (w - mj + sh) // 2
        return n + swim, swim - plain_swim
    return n + plain_swim, 0


def _partners() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """R-SCORE-MULT, R-X-SCORE-CAST: per kind of :data:`X_KINDS`, the kind a card of it
    scores points by (a multiplier's counted kind, a counted kind's multiplier), and the
    points per card of that kind (0, and the first kind, for a kind without one)."""
    by_kind = {}
    for m, c, per in (*((m, c, per) for m, (c, per) in MULTIPLIERS.items()), CAST):
        by_kind[m], by_kind[c] = (c, per), (m, per)
    partners = [by_kind.get(kind, (X_KINDS[0], 0)) for kind in X_KINDS]
    return (tuple(X_KIND_INDEX[o] for o, _ in partners), tuple(per for _, per in partners))


_PARTNER, _PER_PARTNER = _partners()


@lru_cache(maxsize=None)
def _steps(tables: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """Per kind of :data:`X_KINDS`, what the m-th card of it adds to the collectors by
    ``tables`` (the shell, octopus, penguin and sailor tables in effect, padded:
    :func:`_padded`), by m (0 for the other kinds); past :data:`_MOST`, an IndexError. One
    copy per set of tables (the events change two of them: four sets)."""
    rises = [tuple(0 if m == 0 else t[m] - t[m - 1] for m in range(len(t))) for t in tables]
    none = (0,) * (_MOST + 1)
    return tuple(rises[k - _SHELL] if _SHELL <= k <= _SAILOR else none
                 for k in range(len(X_KINDS)))


# What the m-th card of a kind k adds to a holding's collectors and multipliers, its kinds as
# counts ``kinds`` (R-SCORE-COLLECT by ``steps``, R-SCORE-MULT, R-X-SCORE-CAST), is
# ``steps[k][m] + kinds[_PARTNER[k]] * _PER_PARTNER[k]``: the closed turns' scorers add it
# inline (a call per card taken costs more than the sum).
_BASE_STEPS = _steps(_BASE_TABLES)


class _EventScoring(Struct, frozen=True):
    """What the events in effect for a player change in RULES.md §12, made once per set (a
    Struct: the closed turns' scorers read its fields, a slot each)."""

    collect: tuple[tuple[int, ...], ...]    # the collector tables, in COLLECTOR_POINTS' order,
    #                                         padded (:func:`_padded`)
    seahorse: tuple[tuple[str, int, int, tuple[int, ...]], ...]  # kinds it may join
    rodeo: bool
    tornado: bool
    changed: tuple[str, ...]
    steps: tuple[tuple[int, ...], ...]     # what each card adds to the collectors (:func:`_steps`)
    hand_starfish: bool = True              # R-X-SCORE-STARFISH's ruling (:func:`event_scoring`)


def _event_scoring(effects: frozenset[str]) -> _EventScoring:
    """The :class:`_EventScoring` of ``effects``, made once per set (fewer than 2,000 of them:
    see ``State.effects``)."""
    got = _EVENT_SCORING.get(effects)
    if got is None:
        got = _EVENT_SCORING[effects] = _new_event_scoring(effects)
    return got


def _new_event_scoring(effects: frozenset[str]) -> _EventScoring:
    # R-SCORE-COLLECT with the event tables (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN)
    tables = dict(COLLECTOR_POINTS)
    changed = []
    for code in sorted(effects):
        if code in EVENT_TABLES:
            kind, table = EVENT_TABLES[code]
            tables[kind] = table
            changed.append(code)
    tornado = MERMAIDS_SCORE_NOTHING in effects
    if tornado:
        changed.append(MERMAIDS_SCORE_NOTHING)
    padded = {kind: _padded(table) for kind, table in tables.items()}
    seahorse = tuple((kind, X_KIND_INDEX[kind], most, padded[kind])
                     for kind, most in SEAHORSE_KINDS)
    collect = tuple(padded.values())
    return _EventScoring(collect, seahorse, RODEO in effects, tornado, tuple(changed),
                         _steps(collect))


_EVENT_SCORING: dict[frozenset[str], _EventScoring] = {}
_NO_EVENTS = _event_scoring(frozenset())
#: the events that change a player's scoring (the others change the play)
SCORING_EVENTS = frozenset((*EVENT_TABLES, MERMAIDS_SCORE_NOTHING, RODEO))
_SCORING_EFFECTS: dict[frozenset[str], frozenset[str]] = {}


def scoring_effects(effects: frozenset[str]) -> frozenset[str]:
    """The events of ``effects`` that change the scoring: a player scores every holding
    with them as with ``effects`` (so a memo of points may key on them). One set per
    ``effects`` (fewer than 2,000 of them: see ``State.effects``)."""
    got = _SCORING_EFFECTS.get(effects)
    if got is None:
        got = _SCORING_EFFECTS[effects] = effects & SCORING_EVENTS
    return got


def score_extra_counts(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                       n_units: int, trios: int, effects: frozenset[str] = frozenset(),
                       face_down: int = 0, hand_starfish: bool = True) -> ExtraBreakdown:
    """The :class:`ExtraBreakdown` of a holding given as counts (:func:`extra_counts`), with
    the event codes ``effects`` in effect for the player (R-EV-APPLY)."""
    bonus = max(colors)             # R-X-SCORE-COLOUR; a single mermaid scores it too
    (card_pts, pairs, rodeo_pairs, starfish, collectors, seahorse, seahorse_points, multipliers,
     cast, mermaids, changed) = _extra_points(in_hand, kinds, colors, n_units, effects,
                                              hand_starfish, bonus, True)
    return ExtraBreakdown(pairs, rodeo_pairs, trios, starfish, collectors + seahorse_points,
                          seahorse, seahorse_points, multipliers + cast, cast, mermaids,
                          card_pts, bonus, changed, face_down)


def extra_points_and_bonus(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                           n_units: int, effects: frozenset[str] = frozenset(),
                           hand_starfish: bool = True) -> tuple[int, int]:
    """(card points, colour bonus) of :func:`score_extra_counts`, without building the
    breakdown (what a closed turn's row and a round's end compare)."""
    return (extra_card_points(in_hand, kinds, colors, n_units, effects, hand_starfish),
            max(colors))                                            # R-X-SCORE-COLOUR


#: what :func:`extra_card_points` gives with ``parts``: card points, pairs, rodeo pairs,
#: starfish, collectors, seahorse kind, seahorse points, multipliers, cast, mermaids, tables
ExtraParts = tuple[int, int, int, int, int, "str | None", int, int, int, int, tuple[str, ...]]


@overload
def extra_card_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                      n_units: int, effects: frozenset[str] = ..., hand_starfish: bool = ...,
                      parts: Literal[False] = ...) -> int: ...


@overload
def extra_card_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                      n_units: int, effects: frozenset[str] = ..., hand_starfish: bool = ...,
                      *, parts: Literal[True]) -> ExtraParts: ...


def extra_card_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                      n_units: int, effects: frozenset[str] = frozenset(),
                      hand_starfish: bool = True, parts: bool = False) -> int | ExtraParts:
    """The card points of :func:`score_extra_counts` (RULES.md §12 on counts), without
    building the breakdown: the callers that score many holdings (the engine's call check,
    the bots' tries) call this function itself. With ``parts``, the tuple (card points, then
    the sources of :class:`ExtraBreakdown` as :func:`score_extra_counts` reads them, the
    colour bonus left out)."""
    return _extra_points(in_hand, kinds, colors, n_units, effects, hand_starfish, None, parts)


def holding_points_and_bonus(hand: Iterable[str], laid: Sequence[Sequence[str]],
                             effects: frozenset[str] = frozenset(),
                             hand_starfish: bool = True) -> tuple[int, int]:
    """(card points, colour bonus) of a holding given as cards by RULES.md §12, as
    :func:`extra_counts` then :func:`extra_points_and_bonus` give them."""
    in_hand, kinds, colors, bonus = _count_anew(hand, laid, X_CARD_INDEX, _NO_KINDS)
    return (_extra_points(in_hand, kinds, colors, len(laid), effects, hand_starfish, bonus),
            bonus)


@overload
def _extra_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                  n_units: int, effects: frozenset[str], hand_starfish: bool,
                  largest: int | None = ..., parts: Literal[False] = ...) -> int: ...


@overload
def _extra_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                  n_units: int, effects: frozenset[str], hand_starfish: bool,
                  largest: int | None, parts: Literal[True]) -> ExtraParts: ...


@overload
def _extra_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                  n_units: int, effects: frozenset[str], hand_starfish: bool,
                  largest: int | None, parts: bool) -> int | ExtraParts: ...


def _extra_points(in_hand: Sequence[int], kinds: Sequence[int], colors: Sequence[int],
                  n_units: int, effects: frozenset[str], hand_starfish: bool,
                  largest: int | None = None, parts: bool = False) -> int | ExtraParts:
    """RULES.md §12 on a holding as counts (:func:`extra_counts`), with the events
    ``effects`` in effect (``largest``: the largest colour group, if known):
    :func:`extra_card_points`, :func:`score_extra_counts` and :func:`holding_points_and_bonus`
    score through it."""
    scoring = _EVENT_SCORING.get(effects) or _event_scoring(effects)   # made once per set
    in_pairs, rodeo_pairs = hand_pairs(in_hand, scoring.rodeo)      # R-X-SCORE-DUO
    held = in_hand[_STARFISH]
    pairs = n_units + in_pairs
    starfish = kinds[_STARFISH]
    if starfish:                                                    # R-X-SCORE-STARFISH
        starfish = 2 * (starfish - held)
        if hand_starfish and held:
            starfish += 2 * (held if held < in_pairs else in_pairs)
    collectors, multipliers = _sets(kinds, scoring.collect)
    seahorse, seahorse_points = None, 0
    if kinds[_SEAHORSE]:                                            # R-X-SCORE-SEAHORSE
        for kind, k, most, table in scoring.seahorse:   # ties: the first kind in this order
            n = kinds[k]
            if 0 < n < most:
                gain = table[n + 1] - table[n]
                if seahorse is None or gain > seahorse_points:
                    seahorse, seahorse_points = kind, gain
    cast = kinds[_CASTS] and kinds[_CASTS] * kinds[_CASTS_OF] * _CASTS_PER  # R-X-SCORE-CAST
    # R-SCORE-MERMAID, R-X-SCORE-COLOUR: every face-up card by its colour (seahorse: white)
    mermaids = kinds[_MERMAID]
    if mermaids and not scoring.tornado:                            # R-EV-TORNADO
        mermaids = mermaid_points(mermaids, colors, largest)
    else:
        mermaids = 0
    card_pts = pairs + starfish + collectors + seahorse_points + multipliers + cast + mermaids
    if not parts:
        return card_pts
    return (card_pts, pairs, rodeo_pairs, starfish, collectors, seahorse, seahorse_points,
            multipliers, cast, mermaids, scoring.changed)


def extra_breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]] = (),
                    effects: Iterable[str] = (), face_down: int = 0,
                    hand_starfish: bool = True) -> ExtraBreakdown:
    """Score a holding by RULES.md §12: ``hand`` codes, ``laid`` units (pairs of two codes,
    trios of a pair and a starfish), the event codes in ``effects`` in effect for the
    player (R-EV-APPLY), and ``face_down`` shells, which count for nothing. ``hand_starfish``:
    starfish in hand score with the pairs in hand (R-X-SCORE-STARFISH, Ruling). Scored on
    count lists (:func:`extra_counts`, :func:`score_extra_counts`), as :func:`breakdown`
    scores the base game."""
    if type(effects) is not frozenset:
        effects = frozenset(effects)
    return score_extra_counts(*extra_counts(hand, laid), effects, face_down, hand_starfish)


# ---------------------------------------------------------------- one player's holding

def holding_breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]], rules: "Ruleset",
                      effects: Iterable[str] = (), face_down: int = 0
                      ) -> Breakdown | ExtraBreakdown:
    """A player's card points and colour bonus by the game's scoring: RULES.md §4-6, or
    RULES.md §12 (R-X-SCORE) with ``effects``, the events in effect for the player
    (R-EV-APPLY), when ``rules`` says so. The read models, ``rescore`` and the views score
    a player through this function; the engine too, or (RULES.md §12) through
    :func:`score_extra_counts` of the counts it already made for a call."""
    if rules.extra_scoring:
        if type(effects) is not frozenset:
            effects = frozenset(effects)
        return score_extra_counts(*extra_counts(hand, laid), effects, face_down,
                                  rules.starfish_in_hand_scores)
    return breakdown(hand, laid)


def as_breakdown(b: Breakdown | ExtraBreakdown) -> Breakdown:
    """``b`` in the columns of :class:`Breakdown` (a laid or matched starfish counts with the
    pairs, as :func:`breakdown` counts it), so the sources still add up to the card points."""
    if isinstance(b, Breakdown):
        return b
    return Breakdown(b.pairs + b.starfish, b.collectors, b.multipliers, b.mermaids,
                     b.card_points, b.color_bonus)


def effect_notes(hand: Sequence[str], laid: Sequence[Sequence[str]], rules: "Ruleset",
                 effects: frozenset[str], face_down: int = 0) -> tuple[str, ...]:
    """What each event in ``effects`` changed in a player's score (R-EV-APPLY): the table it
    replaced (R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN, R-EV-TORNADO, R-EV-WATER-RODEO) and the
    card points it added or took away, found by scoring the holding without it. Events that
    changed nothing are left out."""
    if not rules.extra_scoring or not effects:
        return ()
    full = holding_breakdown(hand, laid, rules, effects, face_down)
    notes = []
    for code in sorted(effects):
        without = holding_breakdown(hand, laid, rules, effects - {code}, face_down)
        delta = full.card_points - without.card_points
        if code in EVENT_TABLES:
            kind, table = EVENT_TABLES[code]
            what = f"{kind} table {'/'.join(map(str, table[1:]))}"
        elif code == MERMAIDS_SCORE_NOTHING:
            what = "mermaids score 0"
        elif code == RODEO and isinstance(full, ExtraBreakdown):
            extra = full.rodeo_pairs
            what = f"{extra} more pair{'s' if extra != 1 else ''} in hand (swimmers, sharks)"
        else:
            continue
        if delta:
            notes.append(f"{code}: {what}, {delta:+d} card points")
    return tuple(notes)


# ---------------------------------------------------------------- a seat's closed turns

# The per-part record of a seat's holding that seat_points_and_bonus keeps is a list, read
# by index on this hot path (a named structure costs more per read): [0 hand, 1 laid,
# 2 index, 3 kinds in hand, 4 kinds in hand and laid, 5 colours of both, 6 the largest
# colour group, 7 the points that do not depend on the colours (pairs, laid ones included,
# collectors, multipliers)]
#
# A round's first take: a seat's first closed turn of a round (or a game) most often holds
# one card and nothing laid (every hand starts a round empty, R-SETUP-3). Both scorers then
# make that holding's record at once (:func:`_one_card`): one card makes no pair and has
# no partner to multiply, the seahorse joins no collector, so the card scores its kind's
# first collector step (a collector table, the events' too, scores 0 for none) and a
# mermaid its colour group of one (R-EV-TORNADO: nothing).
assert all(table[0] == 0 for table in (*COLLECTOR_TABLES,
                                       *(table for _, table in EVENT_TABLES.values())))


def _one_card(code: str, index: dict[str, tuple[int, int]], no_kinds: list[int]
              ) -> tuple[int, list[int], list[int], list[int]]:
    """(kind index, kinds in hand, kinds in hand and laid, colours) of a holding of the card
    ``code`` alone, counted by ``index`` (as :func:`_count_anew` counts it); a KeyError: a
    card ``index`` does not number."""
    k, c = index[code]
    in_hand = no_kinds[:]
    in_hand[k] = 1
    colors = _NO_COLORS[:]
    colors[c] = 1
    return k, in_hand, in_hand[:], colors


#: the records of a game's seats that the closed turns' scorers keep, by seat (None: none
#: yet): :func:`seat_records` makes one (a list: read by index, cheaper than a dict's get)
SeatRecords = list["list[Any] | None"]


def seat_records(n: int) -> SeatRecords:
    """The records of ``n`` seats for :func:`seat_points_and_bonus` and
    :func:`seat_extra_scored`, none made yet."""
    return [None] * n


def seat_points_and_bonus(counted: SeatRecords, seat: int, hand: tuple[str, ...],
                          laid: tuple[tuple[str, ...], ...], start: Any = None
                          ) -> tuple[int, int]:
    """(card points, colour bonus) by R-SCORE of a seat's holding, as
    :func:`points_and_bonus` gives them (every closed turn of a base game is scored so).

    ``counted``: by seat (:func:`seat_records`), the record of the seat's holding last
    scored here (None: none), scored on in place when ``laid`` is the same tuple and the
    hand is its hand and one card more (a turn's take; the engine's states share a seat's
    tuples until they change): only the parts that card changes are scored again. Else the holding is counted and scored anew.
    A KeyError: a card :data:`CARD_INDEX` does not number (the record is dropped).

    ``start``: the table (``State.table``) at the start of the seat's turn, given when
    nothing but the turn's own take and units laid changed the seat's hand since (no card
    stolen in it, none drawn by an event): a hand other than the start's, with the same
    units laid, is then the start's hand and the card taken, which the engine appended;
    a record of the start's hand is scored on without comparing the hands. None: compared
    (its length one more than the last hand's, and the rest the same)."""
    held = counted[seat]
    if held is not None and held[1] is laid and held[2] is CARD_INDEX:
        old = held[0]
        if (hand is not old and start.hands[seat] is old if start is not None
                else hand and hand[:-1] == old):        # a take
            try:
                k, c = CARD_INDEX[hand[-1]]
            except KeyError:
                counted[seat] = None
                raise
            in_hand, kinds, colors = held[3], held[4], held[5]
            fixed = held[7]
            h = in_hand[k] + 1
            in_hand[k] = h
            m = kinds[k] + 1
            kinds[k] = m
            # the parts the card changes (R-SCORE-DUO, R-SCORE-COLLECT, R-SCORE-MULT)
            if k <= _SHARK:                         # crab, boat, fish, swimmer, shark
                if k <= _FISH:                      # R-SCORE-DUO
                    if not h & 1:
                        fixed += 1
                    if k:                           # boat, fish: R-SCORE-MULT
                        fixed += kinds[_PARTNER[k]] * _PER_PARTNER[k]
                elif h <= in_hand[_SWIMMER if k == _SHARK else _SHARK]:
                    fixed += 1
            elif k != _MERMAID:                     # the collectors and multipliers
                try:
                    fixed += _BASE_STEPS[k][m] + kinds[_PARTNER[k]] * _PER_PARTNER[k]
                except IndexError:                  # past the padded tables
                    fixed = _fixed_points(in_hand, kinds, len(laid))
            held[7] = fixed
            group = colors[c] + 1
            colors[c] = group
            bonus = held[6]
            if group > bonus:
                held[6] = bonus = group
            held[0] = hand
        elif hand is old:
            in_hand, kinds, colors, bonus, fixed = held[3], held[4], held[5], held[6], held[7]
        else:
            held = None
    else:
        held = None
    if held is None:                        # counted anew (as :func:`counts` counts)
        try:
            if not laid and len(hand) == 1:     # a round's first take (see above)
                k, in_hand, kinds, colors = _one_card(hand[0], CARD_INDEX, _NO_BASE_KINDS)
                fixed = _BASE_STEPS[k][1]
                counted[seat] = [hand, laid, CARD_INDEX, in_hand, kinds, colors, 1, fixed]
                return fixed + (k == _MERMAID), 1
            in_hand, kinds, colors, bonus = _count_anew(hand, laid, CARD_INDEX, _NO_BASE_KINDS)
        except KeyError:
            counted[seat] = None
            raise
        sharks, swimmers = in_hand[_SHARK], in_hand[_SWIMMER]       # R-SCORE-DUO
        shells, octopuses, penguins, sailors = _BASE_TABLES
        try:                                                        # R-SCORE-COLLECT
            fixed = (shells[kinds[_SHELL]] + octopuses[kinds[_OCTOPUS]]
                     + penguins[kinds[_PENGUIN]] + sailors[kinds[_SAILOR]])
        except IndexError:                  # more of a kind than every deck holds
            fixed = _sets(kinds, _BASE_TABLES)[0]
        fixed += (len(laid) + in_hand[_CRAB] // 2 + in_hand[_BOAT] // 2 + in_hand[_FISH] // 2
                  + (sharks if sharks < swimmers else swimmers)
                  + kinds[_LIGHTHOUSE] * kinds[_LIGHTHOUSE_OF] * _LIGHTHOUSE_PER  # R-SCORE-MULT
                  + kinds[_SHOAL] * kinds[_SHOAL_OF] * _SHOAL_PER
                  + kinds[_COLONY] * kinds[_COLONY_OF] * _COLONY_PER
                  + kinds[_CAPTAIN] * kinds[_CAPTAIN_OF] * _CAPTAIN_PER)
        counted[seat] = [hand, laid, CARD_INDEX, in_hand, kinds, colors, bonus, fixed]
    mermaids = kinds[_MERMAID]                                      # R-SCORE-MERMAID
    if mermaids:
        return fixed + (bonus if mermaids == 1 else sum(sorted(colors, reverse=True)[:mermaids])), bonus
    return fixed, bonus


def _fixed_points(in_hand: Sequence[int], kinds: Sequence[int], n_laid: int) -> int:
    """The points of a base holding as counts that do not depend on the colours: pairs
    (laid ones included), collectors and multipliers."""
    collectors, multipliers = _sets(kinds, _BASE_TABLES)
    return n_laid + _pairs_in_hand(in_hand) + collectors + multipliers


#: what a card of each kind of :data:`X_KINDS` changes in :func:`seat_extra_points_and_bonus`'s
#: parts: the pairs in hand and the starfish (R-X-SCORE-DUO, R-X-SCORE-STARFISH), and the
#: collectors, multipliers, seahorse and cast of crabs (R-SCORE-COLLECT, R-SCORE-MULT,
#: R-X-SCORE-SEAHORSE, R-X-SCORE-CAST), and of those the seahorse's part
_X_DUO_INPUT = tuple(k in ("crab", "lobster", "boat", "fish", "swimmer", "shark", "jellyfish",
                           "starfish") for k in X_KINDS)
_X_SET_INPUT = tuple(k in (*COLLECTOR_POINTS, *MULTIPLIERS, "boat", "fish", "seahorse", *CAST[:2])
                     for k in X_KINDS)
_X_SEAHORSE_INPUT = tuple(k in (*COLLECTOR_POINTS, "seahorse") for k in X_KINDS)


def seat_extra_points_and_bonus(counted: SeatRecords, seat: int,
                                hand: tuple[str, ...], laid: tuple[tuple[str, ...], ...],
                                effects: frozenset[str], hand_starfish: bool
                                ) -> tuple[int, int]:
    """(card points, colour bonus) by RULES.md §12, with the events ``effects`` in effect,
    of a seat's holding, as :func:`holding_points_and_bonus` gives them (every closed turn
    of an expansion game is scored so); ``counted`` as for :func:`seat_points_and_bonus`,
    the parts a card taken changes scored again, with the same events."""
    return seat_extra_scored(counted, seat, hand, laid, event_scoring(effects, hand_starfish))


def event_scoring(effects: frozenset[str], hand_starfish: bool = True) -> _EventScoring:
    """What the events ``effects`` in effect for a player change in RULES.md §12 (the
    collector tables, the seahorse's, the Water Rodeo, the Tornado), with the starfish
    ruling ``hand_starfish`` (R-X-SCORE-STARFISH): the ``scoring`` of
    :func:`seat_extra_scored`, one object per set and ruling."""
    got = _EVENT_SCORING.get(effects) or _event_scoring(effects)
    if hand_starfish:
        return got
    plain = _NO_HAND_STARFISH.get(effects)
    if plain is None:
        plain = _NO_HAND_STARFISH[effects] = structs.replace(got, hand_starfish=False)
    return plain


_NO_HAND_STARFISH: dict[frozenset[str], _EventScoring] = {}

# The record of a seat's holding that seat_extra_scored keeps: [0 hand, 1 laid,
# 2 index (X_CARD_INDEX), 3 kinds in hand, 4 kinds in hand and laid, 5 colours of both,
# 6 the largest colour group, 7 the pairs-and-starfish part (:func:`_duo_on`), 8 the points
# that do not depend on the colours (that part, the sets part: :func:`_set_part`, and the
# seahorse part), 9 the scoring they were made with (:func:`event_scoring`), 10 the
# seahorse part (:func:`_seahorse_part`), 11 the pairs in hand (:func:`hand_pairs`)]


def seat_extra_scored(counted: SeatRecords, seat: int, hand: tuple[str, ...],
                      laid: tuple[tuple[str, ...], ...], scoring: _EventScoring,
                      start: Any = None) -> tuple[int, int]:
    """:func:`seat_extra_points_and_bonus` with the events in effect and the starfish
    ruling given by their :func:`event_scoring` (a read model's closed turns take it once
    per round); ``start`` as for :func:`seat_points_and_bonus`."""
    held = counted[seat]
    if held is not None and held[1] is laid and held[2] is X_CARD_INDEX:
        old = held[0]
        if (hand is not old and start.hands[seat] is old if start is not None
                else hand and hand[:-1] == old):        # a take (see seat_points_and_bonus)
            try:
                k, c = X_CARD_INDEX[hand[-1]]
            except KeyError:
                counted[seat] = None
                raise
            in_hand, kinds, colors = held[3], held[4], held[5]
            in_hand[k] += 1
            kinds[k] += 1
            group = colors[c] + 1
            colors[c] = group
            bonus = held[6]
            if group > bonus:
                held[6] = bonus = group
            held[0] = hand
            if held[9] is scoring:
                fixed = held[8]
                if _X_DUO_INPUT[k]:
                    in_pairs = held[11]
                    if k == _BOAT or k == _FISH:            # pairs of their own
                        if not in_hand[k] & 1:
                            fixed = _duo_on(held, in_pairs + 1, len(laid), scoring)
                    elif k == _CRAB:        # a pair with a lobster left, else with a crab
                        left = in_hand[_CRAB] - in_hand[_LOBSTER]
                        if left <= 0 or not left & 1:
                            fixed = _duo_on(held, in_pairs + 1, len(laid), scoring)
                    elif (_SWIMMER <= k <= _SHARK or k == _JELLYFISH) and not scoring.rodeo:
                        # a swimmer pairs with a shark or jellyfish: one more pair if the
                        # card taken has one left to pair with (the Water Rodeo: below)
                        swimmers = in_hand[_SWIMMER]
                        others = in_hand[_SHARK] + in_hand[_JELLYFISH]
                        if swimmers <= others if k == _SWIMMER else others <= swimmers:
                            fixed = _duo_on(held, in_pairs + 1, len(laid), scoring)
                    else:
                        if k != _STARFISH:
                            in_pairs = hand_pairs(in_hand, scoring.rodeo)[0]
                        fixed = _duo_on(held, in_pairs, len(laid), scoring)
                if _X_SET_INPUT[k]:
                    try:
                        fixed += scoring.steps[k][kinds[k]] + kinds[_PARTNER[k]] * _PER_PARTNER[k]
                    except IndexError:              # past the padded tables
                        fixed = held[7] + _set_part(kinds, scoring) + held[10]
                    if kinds[_SEAHORSE] and _X_SEAHORSE_INPUT[k]:
                        seahorse = _seahorse_part(kinds, scoring)
                        fixed += seahorse - held[10]
                        held[10] = seahorse
                    held[8] = fixed
            else:
                held = None
        elif hand is old:
            in_hand, kinds, colors, bonus = held[3], held[4], held[5], held[6]
            if held[9] is not scoring:
                _rescore_parts(held, scoring, len(laid))
            fixed = held[8]
        else:
            in_hand = held = None
    elif (held is not None and held[2] is X_CARD_INDEX and held[9] is scoring
          and laid[:-1] == held[1]):
        # one unit laid since (a turn's pair; an empty ``laid`` never gets here: the empty
        # tuple is one object, so it passed the first test): counted on when its cards and
        # the hand are the last hand and cards gained (no card lost), the parts scored on as
        # for a take
        unit = laid[-1]
        gained = [*unit, *hand]
        try:
            for code in held[0]:
                gained.remove(code)
        except ValueError:                  # a card of the last hand is gone
            in_hand = held = None
        else:
            try:
                _laid_on(held, hand, laid, unit, gained, scoring)
            except KeyError:
                counted[seat] = None
                raise
            in_hand, kinds, colors, bonus, fixed = held[3], held[4], held[5], held[6], held[8]
    else:
        in_hand = held = None
    if held is None:
        if in_hand is None:                 # counted anew (as :func:`extra_counts` counts)
            try:
                if not laid and len(hand) == 1:     # a round's first take (see above)
                    k, in_hand, kinds, colors = _one_card(hand[0], X_CARD_INDEX, _NO_KINDS)
                    fixed = scoring.steps[k][1]
                    counted[seat] = [hand, laid, X_CARD_INDEX, in_hand, kinds, colors, 1, 0,
                                     fixed, scoring, 0, 0]
                    return fixed + (k == _MERMAID and not scoring.tornado), 1
                in_hand, kinds, colors, bonus = _count_anew(hand, laid, X_CARD_INDEX, _NO_KINDS)
            except KeyError:
                counted[seat] = None
                raise
        seahorse = kinds[_SEAHORSE] and _seahorse_part(kinds, scoring)
        held = counted[seat] = [hand, laid, X_CARD_INDEX, in_hand, kinds, colors, bonus, 0,
                                _set_part(kinds, scoring) + seahorse, scoring, seahorse, 0]
        fixed = _duo_on(held, hand_pairs(in_hand, scoring.rodeo)[0], len(laid), scoring)
    mermaids = kinds[_MERMAID]          # R-SCORE-MERMAID, R-X-SCORE-COLOUR, R-EV-TORNADO
    if mermaids and not scoring.tornado:
        return (fixed + (bonus if mermaids == 1
                         else sum(sorted(colors, reverse=True)[:mermaids])), bonus)
    return fixed, bonus


def _rescore_parts(held: list[Any], scoring: _EventScoring, n_units: int) -> None:
    """:func:`seat_extra_scored`'s record ``held`` scored again with other events in effect
    or another starfish ruling (``scoring``): only the parts they change (the tables the
    sets and the seahorse, the Water Rodeo the pairs in hand, the ruling the starfish; the
    Tornado only the mermaids, scored by the caller)."""
    was: _EventScoring = held[9]
    in_hand, kinds = held[3], held[4]
    held[9] = scoring
    if was.collect != scoring.collect:
        seahorse = kinds[_SEAHORSE] and _seahorse_part(kinds, scoring)
        held[8] = held[7] + _set_part(kinds, scoring) + seahorse
        held[10] = seahorse
    if was.rodeo != scoring.rodeo:
        _duo_on(held, hand_pairs(in_hand, scoring.rodeo)[0], n_units, scoring)
    elif was.hand_starfish != scoring.hand_starfish:
        _duo_on(held, held[11], n_units, scoring)


def _laid_on(held: list[Any], hand: tuple[str, ...], laid: tuple[tuple[str, ...], ...],
             unit: tuple[str, ...], gained: list[str], scoring: _EventScoring) -> None:
    """:func:`seat_extra_scored`'s record ``held`` brought to the holding ``hand``, ``laid``:
    its last holding with ``unit`` laid from the hand and the cards ``gained`` (the hand and
    the unit are the last hand and them). The holding is the last one and ``gained``: the
    kinds in hand less the unit's, the parts those cards change scored on. A KeyError: a
    card :data:`X_CARD_INDEX` does not number."""
    index, steps = X_CARD_INDEX, scoring.steps
    in_hand, kinds, colors = held[3], held[4], held[5]
    bonus, fixed = held[6], held[8]
    past = seahorse_input = False
    for code in gained:
        k, c = index[code]
        in_hand[k] += 1
        kinds[k] += 1
        group = colors[c] + 1
        colors[c] = group
        if group > bonus:
            bonus = group
        if _X_SET_INPUT[k] and not past:
            try:
                fixed += steps[k][kinds[k]] + kinds[_PARTNER[k]] * _PER_PARTNER[k]
            except IndexError:              # past the padded tables
                past = True
        if _X_SEAHORSE_INPUT[k]:
            seahorse_input = True
    for code in unit:
        in_hand[index[code][0]] -= 1
    if past:
        fixed = held[7] + _set_part(kinds, scoring) + held[10]
    if seahorse_input and kinds[_SEAHORSE]:
        seahorse = _seahorse_part(kinds, scoring)
        fixed += seahorse - held[10]
        held[10] = seahorse
    held[0], held[1], held[6], held[8] = hand, laid, bonus, fixed
    _duo_on(held, hand_pairs(in_hand, scoring.rodeo)[0], len(laid), scoring)


def _duo_on(held: list[Any], in_pairs: int, n_units: int, scoring: _EventScoring) -> int:
    """:func:`seat_extra_scored`'s record ``held`` with ``in_pairs`` pairs in hand
    (:func:`hand_pairs`) and ``n_units`` laid: its pairs-and-starfish part (laid units 1
    each, the pairs in hand, R-X-SCORE-DUO, and the starfish, R-X-SCORE-STARFISH, as
    :func:`_extra_points` scores them) made again, and with it the points that do not depend
    on the colours, which it returns."""
    kinds = held[4]
    starfish = kinds[_STARFISH]
    if starfish:
        in_hand = held[3][_STARFISH]
        starfish = 2 * (starfish - in_hand)
        if scoring.hand_starfish and in_hand:
            starfish += 2 * (in_hand if in_hand < in_pairs else in_pairs)
    duo = n_units + in_pairs + starfish
    fixed = held[8] + duo - held[7]
    held[7], held[8], held[11] = duo, fixed, in_pairs
    return fixed


def _set_part(kinds: Sequence[int], scoring: _EventScoring) -> int:
    """The collectors, multipliers and cast of crabs (R-SCORE-COLLECT, R-SCORE-MULT,
    R-X-SCORE-CAST) of a holding's kinds as counts, as :func:`_extra_points` scores them."""
    collectors, multipliers = _sets(kinds, scoring.collect)
    return collectors + multipliers + kinds[_CASTS] * kinds[_CASTS_OF] * _CASTS_PER


def _seahorse_part(kinds: Sequence[int], scoring: _EventScoring) -> int:
    """What the seahorse adds (R-X-SCORE-SEAHORSE) to a holding's kinds as counts holding
    one, as :func:`_extra_points` scores it."""
    best = 0
    for _, k, most, table in scoring.seahorse:
        n = kinds[k]
        if 0 < n < most:
            gain = table[n + 1] - table[n]
            if gain > best:
                best = gain
    return best


def _count_anew(hand: Iterable[str], laid: Sequence[Sequence[str]],
                index: dict[str, tuple[int, int]], no_kinds: list[int]
                ) -> tuple[list[int], list[int], list[int], int]:
    """(kinds in hand, kinds in hand and laid, colours of both, the largest colour group: the
    colour bonus, R-SCORE-BONUS, R-X-SCORE-COLOUR) of a holding counted from scratch by
    ``index`` (as :func:`counts` and :func:`extra_counts` count); a KeyError: a card
    ``index`` does not number. The largest group is kept as the cards are counted: ``max``
    of the colours costs more (about 2,600 instructions)."""
    in_hand = no_kinds[:]
    colors = _NO_COLORS[:]
    largest = 0
    for code in hand:
        k, c = index[code]
        in_hand[k] += 1
        group = colors[c] + 1
        colors[c] = group
        if group > largest:
            largest = group
    kinds = in_hand[:]
    for unit in laid:
        for code in unit:
            k, c = index[code]
            kinds[k] += 1
            group = colors[c] + 1
            colors[c] = group
            if group > largest:
                largest = group
    return in_hand, kinds, colors, largest
