"""``seasalt score CODE...``: one hand's breakdown, card points and colour bonus."""

from __future__ import annotations

from types import SimpleNamespace

import typer
from rich.table import Table

from seasalt_log.hand import score_hand

from .app import JsonOption, app, handles_errors, out, print_json


@app.command()
@handles_errors
def score(
    cards: list[str] = typer.Argument(..., metavar="CODE...", help="Card codes kind:colour, e.g. crab:black"),
    laid: list[str] = typer.Option([], "--laid", metavar="A,B",
                                   help="A laid-down pair, two codes joined by a comma (repeatable)"),
    as_json: bool = JsonOption,
) -> None:
    """Score a hand with the game's scoring code: pairs, collectors, multipliers, mermaids,
    card points and colour bonus (RULES.md §4)."""
    result = score_hand(cards, laid)
    if as_json:
        print_json(result)
        return
    b = SimpleNamespace(**result)
    hand, pairs = result["cards"], result["laid"]
    table = Table(title=f"{len(hand) + 2 * len(pairs)} cards")
    table.add_column("source")
    table.add_column("points", justify="right")
    for f in ("pairs", "collectors", "multipliers", "mermaids"):
        table.add_row(f, str(getattr(b, f)))
    table.add_row("[b]card_points[/b]", f"[b]{b.card_points}[/b]")
    table.add_row("color_bonus", str(b.color_bonus))
    out.print(table)
