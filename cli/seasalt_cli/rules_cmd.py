"""``seasalt rules [ID]``: print a rule of RULES.md by its id, or list every id."""

from __future__ import annotations

import typer

from seasalt_log import rulebook

from .app import app, handles_errors


@app.command()
@handles_errors
def rules(
    rule_id: str = typer.Argument(None, metavar="ID", show_default=False,
                                  help="A rule id as errors print it (R-TAKE-2, LOG-FORMAT), or "
                                       "the start of ids (R-EV prints every R-EV-... rule)."),
    where: bool = typer.Option(False, "--where",
                               help="Print where RULES.md and LOG_FORMAT.md are installed, and "
                                    "stop."),
) -> None:
    """Print a rule of the project's RULES.md by its id, or list every id with its title.

    RULES.md and LOG_FORMAT.md are installed with the package: seasalt rules --where."""
    if where:
        if rule_id is not None:         # never dropped silently (as stats REPORT --list)
            raise typer.BadParameter(f"--where prints where the documents are: give "
                                     f"{rule_id} or --where, not both")
        for name in rulebook.DOCUMENTS:
            typer.echo(rulebook.document_path(name))
        return
    if rule_id is None:
        book = rulebook.rules()
        width = max(len(r.id) for r in book)
        for r in book:
            typer.echo(f"{r.id:<{width}}  {r.title}")
        return
    found = rulebook.lookup(rule_id)
    for i, r in enumerate(found):
        if i:
            typer.echo()
        where_in = f", {r.section}" if r.section else ""
        typer.echo(f"{r.id} (RULES.md{where_in})\n\n{r.text}")
