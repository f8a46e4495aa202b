"""``seasalt score CODE...``: one hand's breakdown, card points and colour bonus."""

from __future__ import annotations

import typer
from rich.table import Table

from seasalt_log.cards import check_counts, parse_card
from seasalt_log.scoring import breakdown

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
    hand = [parse_card(c) for c in cards]
    pairs = []
    for p in laid:
        codes = [parse_card(c.strip()) for c in p.split(",")]
        if len(codes) != 2:
            from seasalt_log.errors import UsageError
            raise UsageError(f"--laid takes two codes joined by a comma, not {p!r}")
        pairs.append(tuple(codes))
    check_counts(hand + [c for p in pairs for c in p])
    b = breakdown(hand, pairs)
    if as_json:
        print_json({"cards": hand, "laid": pairs, **{f: getattr(b, f) for f in b.__struct_fields__}})
        return
    table = Table(title=f"{len(hand) + 2 * len(pairs)} cards")
    table.add_column("source")
    table.add_column("points", justify="right")
    for f in ("pairs", "collectors", "multipliers", "mermaids"):
        table.add_row(f, str(getattr(b, f)))
    table.add_row("[b]card_points[/b]", f"[b]{b.card_points}[/b]")
    table.add_row("color_bonus", str(b.color_bonus))
    out.print(table)
