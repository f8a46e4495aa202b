"""``seasalt score CODE...``: one hand's breakdown, card points and colour bonus."""

from __future__ import annotations

from collections import Counter

import typer
from rich.table import Table

from seasalt_log.cards import KIND, check_counts, parse_card
from seasalt_log.engine.rulings import RULESETS, rules_for
from seasalt_log.errors import UsageError
from seasalt_log.events import EVENT_CODES
from seasalt_log.scoring import breakdown, extra_breakdown

from .app import JsonOption, app, handles_errors, out, print_json


@app.command()
@handles_errors
def score(
    cards: list[str] = typer.Argument(..., metavar="CODE...", help="Card codes kind:colour, e.g. crab:black"),
    laid: list[str] = typer.Option([], "--laid", metavar="A,B[,S]",
                                   help="A laid-down pair, two codes joined by a comma, or a "
                                        "trio, a pair and a starfish (repeatable)"),
    ruleset: str = typer.Option("base", "--ruleset", metavar="NAME",
                                help="The game's ruleset: base or extra-salt (RULES_EXTRA §0)"),
    event: list[str] = typer.Option([], "--event", metavar="NAME",
                                    help="An event in effect for the player, e.g. kraken "
                                         "(repeatable; RULES_EXTRA §5)"),
    face_down: list[str] = typer.Option([], "--face-down", metavar="CODE",
                                        help="A shell placed face down (Coral Reef): it scores "
                                             "nothing and is left out"),
    as_json: bool = JsonOption,
) -> None:
    """Score a hand with the game's scoring code: pairs, collectors, multipliers, mermaids,
    card points and colour bonus (RULES.md §4; with --ruleset extra-salt or --event, RULES_EXTRA
    §3: trios, the seahorse, the cast of crabs, Water Rodeo pairs, event tables)."""
    if ruleset not in RULESETS:
        raise UsageError(f"--ruleset is base or extra-salt, not {ruleset!r}")
    for name in event:
        if name not in EVENT_CODES:
            raise UsageError(f"unknown event {name!r}; the events are {', '.join(EVENT_CODES)}")
    rules = rules_for(ruleset, "pepper" if event or face_down else None)
    deck = Counter(rules.cards)
    hand = [parse_card(c, deck) for c in cards]
    units = []
    for p in laid:
        codes = [parse_card(c.strip(), deck) for c in p.split(",")]
        if len(codes) == 3 and not rules.trios:
            raise UsageError(f"--laid {p!r}: a trio needs --ruleset extra-salt (R-X-TRIO)")
        if len(codes) == 3 and KIND[codes[2]] != "starfish":
            raise UsageError(f"--laid {p!r}: a trio's third card is a starfish (R-X-TRIO)")
        if len(codes) not in (2, 3):
            raise UsageError(f"--laid takes two codes joined by a comma (three for a trio), "
                             f"not {p!r}")
        units.append(tuple(codes))
    shells = [parse_card(c, deck) for c in face_down]
    for c in shells:
        if KIND[c] != "shell":
            raise UsageError(f"--face-down {c!r}: only a shell is placed face down (R-EV-CORAL-REEF)")
    check_counts(hand + [c for u in units for c in u] + shells, deck)
    if not rules.extra_scoring:
        b = breakdown(hand, units)
        if as_json:
            print_json({"cards": hand, "laid": units, **{f: getattr(b, f) for f in b.__struct_fields__}})
            return
        table = Table(title=f"{len(hand) + 2 * len(units)} cards")
        table.add_column("source")
        table.add_column("points", justify="right")
        for f in ("pairs", "collectors", "multipliers", "mermaids"):
            table.add_row(f, str(getattr(b, f)))
        table.add_row("[b]card_points[/b]", f"[b]{b.card_points}[/b]")
        table.add_row("color_bonus", str(b.color_bonus))
        out.print(table)
        return
    x = extra_breakdown(hand, units, event, face_down=len(shells))
    if as_json:
        print_json({"cards": hand, "laid": units, "ruleset": rules.name, "events": event,
                    "face_down_cards": shells,
                    **{f: getattr(x, f) for f in x.__struct_fields__}})
        return
    n = len(hand) + sum(len(u) for u in units)
    table = Table(title=f"{n} cards ({rules.name}"
                        f"{'; events: ' + ', '.join(event) if event else ''})")
    table.add_column("source")
    table.add_column("points", justify="right")
    table.add_column("detail")
    table.add_row("pairs", str(x.pairs), f"{x.trios} in trios" if x.trios else "")
    if x.rodeo_pairs:
        table.add_row("", "", f"{x.rodeo_pairs} Water Rodeo pair(s) in hand")
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
        table.add_row("face-down", "0", f"{x.face_down} face-down shell left out")
    out.print(table)
