"""``seasalt score CODE...``: one hand's breakdown, card points and colour bonus."""

from __future__ import annotations

from types import SimpleNamespace

import typer

from seasalt_log.analytics.output import Result, rows_result
from seasalt_log.hand import cards_scored, score_hand

from .app import app, handles_errors, usage
from .formats import chosen, emit
from .options import Format, FormatJsonOption, FormatOption, Ruleset, RulesetOption, event_option


@app.command()
@handles_errors
def score(
    cards: list[str] = typer.Argument(..., metavar="CODE", show_default=False,
                                      help="Card codes kind:colour, e.g. crab:black."),
    laid: list[str] = typer.Option([], "--laid", metavar="CODES", show_default="none",
                                   help="A laid-down pair, two codes joined by a comma, or a "
                                        "trio, a pair and a starfish (repeatable)."),
    ruleset: Ruleset = RulesetOption,
    event: list[str] = event_option(),
    face_down: list[str] = typer.Option([], "--face-down", metavar="CODE", show_default="none",
                                        help="A shell placed face down (with --event coral-reef, "
                                             "one at most): it scores nothing and is left "
                                             "out."),
    fmt: Format = FormatOption,
    as_json: bool = FormatJsonOption,
) -> None:
    """Score a hand with the game's scoring code: pairs, collectors, multipliers, mermaids,
    card points and colour bonus (RULES.md §4; with --ruleset extra-salt or --event, RULES.md
    §12: trios, the seahorse, the cast of crabs, Water Rodeo pairs, event tables)."""
    joined = next((c for c in cards if "," in c), None)
    if joined is not None:      # the way --laid is written, given to a hand
        usage(f"{joined!r}: give a hand's cards as separate codes "
              f"({' '.join(c for c in joined.split(',') if c)}); a comma joins the "
              "codes of --laid only")
    result = score_hand(cards, laid, ruleset=ruleset, events=event, face_down=face_down)
    out_fmt = chosen(fmt, as_json)
    emit(breakdown(result), out_fmt, limit=None, document=result,
         head=lambda: _title(result, event) + "\n")


def breakdown(result: dict) -> Result:
    """The rows of a scored hand (:func:`score_hand`): each source of points, its points,
    and (with the Extra Salt rules or events) what it holds."""
    names = ("pairs", "collectors", "multipliers", "mermaids", "card_points", "color_bonus")
    if "ruleset" not in result:
        return rows_result(["source", "points"], [(f, result[f]) for f in names])
    x = SimpleNamespace(**result)
    hand = x.cards
    pairs = [f"{x.trios} in {'a trio' if x.trios == 1 else 'trios'}" if x.trios else "",
             f"{_count(x.rodeo_pairs, 'Water Rodeo pair')} in hand" if x.rodeo_pairs else ""]
    details = {
        "pairs": "; ".join(p for p in pairs if p),
        "collectors": (f"the seahorse joins the {x.seahorse} cards: +{x.seahorse_points}"
                       if x.seahorse else
                       "seahorse: no kind to join" if "seahorse:white" in hand else ""),
        "multipliers": f"cast of crabs: +{x.cast}" if x.cast else "",
    }
    rows: list[tuple] = [(f, result[f], details.get(f) or None) for f in names]
    rows.insert(1, ("starfish", x.starfish, None))
    if x.tables:
        rows.append(("tables", None, "changed by " + ", ".join(x.tables)))
    if x.face_down:
        rows.append(("face-down", 0, f"{_count(x.face_down, 'face-down shell')} left out"))
    return rows_result(["source", "points", "detail"], rows)


def _title(result: dict, events: list[str]) -> str:
    """The line above a table: how many cards, and (Extra Salt or events) the rules."""
    n = cards_scored(result)
    if "ruleset" not in result:
        return _count(n, "card")
    return (f"{_count(n, 'card')} ({result['ruleset']}"
            f"{'; events: ' + ', '.join(events) if events else ''})")


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 card", "2 cards"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
