"""An independent scorer of RULES.md §12 for tests: the project's first, plain version,
kept as the oracle of :func:`seasalt_log.scoring.extra_breakdown` (which scores on count
lists). It counts cards by name with ``Counter`` and writes every table out again from
RULES.md §4 and RULES.md §12 and §14, so it shares no scoring code with the engine."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from seasalt_log.cards import COLOR, KIND

# R-SCORE-COLLECT: points by number held (index = count)
COLLECT = {"shell": (0, 0, 2, 4, 6, 8, 10), "octopus": (0, 0, 3, 6, 9, 12),
           "penguin": (0, 1, 3, 5), "sailor": (0, 0, 5)}
# R-SCORE-MULT, R-X-SCORE-CAST: multiplier -> (kind it counts, points per card)
MULTIPLY = {"lighthouse": ("boat", 1), "shoal": ("fish", 1), "colony": ("penguin", 2),
            "captain": ("sailor", 3), "castofcrabs": ("crab", 1)}
# R-X-SCORE-SEAHORSE: the kinds it may join, in the ruling's order for ties, and their maximum
SEAHORSE = (("shell", 6), ("octopus", 5), ("penguin", 3), ("sailor", 2))
# R-EV-DANCE-OF-THE-SHELLS, R-EV-KRAKEN
EVENT_TABLES = {"dance-of-the-shells": ("shell", (0, 2, 4, 6, 8, 10, 12)),
                "kraken": ("octopus", (0, 1, 2, 3, 4, 5))}


def hand_pairs(kinds: Counter, rodeo: bool) -> tuple[int, int]:
    """R-X-SCORE-DUO: (pairs in hand, of which only the Water Rodeo makes)."""
    c, lob = kinds["crab"], kinds["lobster"]
    m = min(c, lob)
    w, sh, j = kinds["swimmer"], kinds["shark"], kinds["jellyfish"]
    plain_swim = min(w, sh + j)
    swim = plain_swim
    if rodeo:
        mj = min(j, w)
        swim = mj + (w - mj + sh) // 2
    n = m + (c - m) // 2 + kinds["boat"] // 2 + kinds["fish"] // 2 + swim
    return n, swim - plain_swim


def extra_breakdown(hand: Iterable[str], laid: Iterable[Sequence[str]] = (),
                    effects: Iterable[str] = (), face_down: int = 0,
                    hand_starfish: bool = True) -> dict:
    """The fields of :class:`seasalt_log.scoring.ExtraBreakdown`, as a dict."""
    effects = frozenset(effects)
    hand = list(hand)
    laid = [tuple(u) for u in laid]
    in_hand = Counter(KIND[c] for c in hand)
    kinds = in_hand + Counter(KIND[c] for u in laid for c in u)
    colors = Counter(COLOR[c] for c in hand) + Counter(COLOR[c] for u in laid for c in u)
    in_pairs, rodeo_pairs = hand_pairs(in_hand, "water-rodeo" in effects)
    trios = sum(1 for u in laid if len(u) == 3)
    pairs = len(laid) + in_pairs
    starfish = 2 * (kinds["starfish"] - in_hand["starfish"])          # R-X-SCORE-STARFISH
    if hand_starfish:
        starfish += 2 * min(in_hand["starfish"], in_pairs)
    tables = dict(COLLECT)
    changed = []
    for code in sorted(effects):
        if code in EVENT_TABLES:
            kind, table = EVENT_TABLES[code]
            tables[kind] = table
            changed.append(code)

    def collect(counts: Counter) -> int:
        return sum(table[min(counts[k], len(table) - 1)] for k, table in tables.items())

    collectors = collect(kinds)
    seahorse, seahorse_points = None, 0
    if kinds["seahorse"]:
        for kind, top in SEAHORSE:
            if 0 < kinds[kind] < top:
                gain = collect(kinds + Counter({kind: 1})) - collectors
                if seahorse is None or gain > seahorse_points:
                    seahorse, seahorse_points = kind, gain
    multipliers = sum(kinds[m] * kinds[k] * per for m, (k, per) in MULTIPLY.items()
                      if m != "castofcrabs")
    cast = kinds["castofcrabs"] * kinds["crab"]
    groups = sorted(colors.values(), reverse=True)                    # R-X-SCORE-COLOUR
    mermaids = sum(groups[:kinds["mermaid"]]) if kinds["mermaid"] else 0
    if "tornado" in effects:                                          # R-EV-TORNADO
        mermaids = 0
        changed.append("tornado")
    card_pts = pairs + starfish + collectors + seahorse_points + multipliers + cast + mermaids
    return dict(pairs=pairs, rodeo_pairs=rodeo_pairs, trios=trios, starfish=starfish,
                collectors=collectors + seahorse_points, seahorse=seahorse,
                seahorse_points=seahorse_points, multipliers=multipliers + cast,
                cast=cast, mermaids=mermaids, card_points=card_pts,
                color_bonus=max(colors.values(), default=0),
                tables=tuple(changed), face_down=face_down)
