"""``seasalt score CODE...``: one hand's breakdown, card points and colour bonus."""

from __future__ import annotations

from types import SimpleNamespace

import typer
from rich.table import Table

from seasalt_log.hand import score_hand

from .app import app, handles_errors, out, print_json, usage
from .options import JsonOption, Ruleset, RulesetOption, event_option


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
    as_json: bool = JsonOption,
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
    if as_json:
        print_json(result)
        return
    hand = result["cards"]
    if "ruleset" not in result:
        table = Table(title=_count(len(hand) + 2 * len(result["laid"]), "card"))
        table.add_column("source")
        table.add_column("points", justify="right")
        for f in ("pairs", "collectors", "multipliers", "mermaids"):
            table.add_row(f, str(result[f]))
        table.add_row("[b]card_points[/b]", f"[b]{result['card_points']}[/b]")
        table.add_row("color_bonus", str(result["color_bonus"]))
        out.print(table)
        return
    x = SimpleNamespace(**result)
    n = len(hand) + sum(len(u) for u in x.laid)
    table = Table(title=f"{_count(n, 'card')} ({x.ruleset}"
                        f"{'; events: ' + ', '.join(event) if event else ''})")
    table.add_column("source")
    table.add_column("points", justify="right")
    table.add_column("detail")
    table.add_row("pairs", str(x.pairs),
                  f"{x.trios} in {'a trio' if x.trios == 1 else 'trios'}" if x.trios else "")
    if x.rodeo_pairs:
        table.add_row("", "", f"{_count(x.rodeo_pairs, 'Water Rodeo pair')} in hand")
    table.add_row("starfish", str(x.starfish), "")
    table.add_row("collectors", str(x.collectors),
                  f"the seahorse joins the {x.seahorse} cards: +{x.seahorse_points}" if x.seahorse else
                  ("seahorse: no kind to join" if "seahorse:white" in hand else ""))
    table.add_row("multipliers", str(x.multipliers),
                  f"cast of crabs: +{x.cast}" if x.cast else "")
    table.add_row("mermaids", str(x.mermaids), "")
    table.add_row("[b]card_points[/b]", f"[b]{x.card_points}[/b]", "")
    table.add_row("color_bonus", str(x.color_bonus), "")
    if x.tables:
        table.add_row("tables", "", "changed by " + ", ".join(x.tables))
    if x.face_down:
        table.add_row("face-down", "0", f"{_count(x.face_down, 'face-down shell')} left out")
    out.print(table)


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 card", "2 cards"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
