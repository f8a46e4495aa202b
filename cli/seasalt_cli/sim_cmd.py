"""``seasalt simulate`` and ``seasalt tournament``: seeded games played by bots."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from seasalt_log import events as ev
from seasalt_log.sim import DEFAULT_BOTS, simulate as simulate_games
from seasalt_log.sim.runner import check_args
from seasalt_log.sim.tournament import (DEFAULT_STRATEGIES, StrategyResult, games_played,
                                        lineups, tournament as run_tournament)

from seasalt_log.analytics.output import rows_result
from seasalt_log.outputs import atomic_file, check_target
from seasalt_log.service import import_games
from seasalt_log.store import Store

from .app import app, db_path, handles_errors, log, print_json, progress_bar, usage
from .formats import chosen, emit
from .options import (EventSetting, Format, FormatJsonOption, FormatOption, Ruleset, RulesetOption,
                      bots_option, out_option)
from .store_cmds import first_write, report_import

#: runs shorter than this many games get no progress bar
PROGRESS_FROM = 200

def games_option(least: int):
    """``--games N``: at least ``least`` games (a smaller N is a usage error naming it)."""
    return typer.Option(..., "--games", "-n", metavar="N", min=least, help="Number of games.",
                        show_default=False)
PlayersOption = typer.Option(..., "--players", "-p", metavar="N", min=2, max=4,
                             help="Players per game: 2, 3 or 4.", show_default=False)
SeedOption = typer.Option(..., "--seed", "-s", metavar="N",
                          help="Seed: the same arguments give the same games.", show_default=False)



EventsOption = typer.Option("none", "--events",
                            help="Event cards: none, or Extra Pepper's 12 events.")


def _settings(ruleset: str, events: str) -> tuple[str | None, str | None]:
    """The game_started ``ruleset`` and ``events`` values (None for the base defaults)."""
    return (None if ruleset == "base" else ruleset, None if events == "none" else events)


@app.command()
@handles_errors
def simulate(
    games: int = games_option(0),
    players: int = PlayersOption,
    seed: int = SeedOption,
    bots: str = bots_option("Bot strategies seated in rotation", DEFAULT_BOTS),
    out_file: Path = out_option("Write the log to FILE."),
    db: Path = typer.Option(None, "--db", metavar="FILE", show_default=False,
                            help="Store the games in this DuckDB store instead of writing a "
                                 "log (as `seasalt import` would)."),
    as_json: bool = typer.Option(False, "--json", help="With --db: the import summary as JSON."),
    ruleset: Ruleset = RulesetOption,
    events: EventSetting = EventsOption,
) -> None:
    """Simulate games played by bots and write them as a log (JSON Lines, LOG_FORMAT.md),
    or store them (--db).

    Every event goes through the rules engine; the shuffles are recorded in each
    round_started, so the log replays exactly. Game i is "sim-SEED-i", other settings
    named before the seed ("sim-extra-salt-pepper-SEED-i"); its meta holds the seed and the
    bots."""
    names = bots
    check_args(players, names, games)
    settings = _settings(ruleset, events)
    if db is not None and out_file is not None:
        usage("--db and --out are exclusive: store the games, or write a log")
    if as_json and db is None:
        usage("--json is the summary of an import into --db: give --db with it (the "
              "log is JSON Lines already)")
    if out_file is not None:    # refused before any game is played
        check_target(out_file, [db_path(None)], what="--out")
    with progress_bar("simulating", enabled=games >= PROGRESS_FROM, total=games) as tick:
        if db is not None:
            with first_write(db) as outcome:     # a failed first write leaves no empty store
                with Store.open(db) as store:
                    summary = import_games(store, _ticking(
                        simulate_games(games, players, seed, names, *settings), tick),
                        source="simulate")
                outcome.failed = bool(summary.failed)
            report_import(summary, as_json)
        elif out_file is None:
            _write(sys.stdout.buffer, games, players, seed, names, tick, settings)
            sys.stdout.flush()
        else:
            with atomic_file(out_file, [db_path(None)], what="--out") as fh:
                _write(fh, games, players, seed, names, tick, settings)
            log.info(f"{_games(games)} written to {out_file}")


def _write(stream, games, players, seed, names, tick, settings) -> None:
    for game in _ticking(simulate_games(games, players, seed, names, *settings), tick):
        stream.write(ev.encode_lines(game))


def _ticking(games, tick):
    for i, game in enumerate(games, 1):
        yield game
        if tick is not None:
            tick(i)


@app.command()
@handles_errors
def tournament(
    games: int = games_option(1),
    players: int = PlayersOption,
    seed: int = SeedOption,
    bots: str = bots_option("Strategies to play", DEFAULT_STRATEGIES),
    as_json: bool = FormatJsonOption,
    fmt: Format = FormatOption,
    ruleset: Ruleset = RulesetOption,
    events: EventSetting = EventsOption,
) -> None:
    """Play bot strategies against each other with seats rotated and print their win rates.

    The number of games is rounded up to whole cycles of the lineups, so every strategy
    sits in every seat equally often. A win shared by k players counts 1/k."""
    names = bots
    check_args(players, names, games, least=1)
    seatings = len(lineups(names or DEFAULT_STRATEGIES, players))
    played = games_played(games, seatings)
    if played != games:         # said on stderr too: CSV and JSON Lines have no head line
        log.info(f"seasalt: {_games(games)} asked, {played} played: whole cycles of the "
                 f"{seatings} lineups, so every strategy sits in every seat equally often")
    with progress_bar("playing", enabled=played >= PROGRESS_FROM, total=played) as tick:
        rules, setting = _settings(ruleset, events)
        result = run_tournament(games, players, seed, names, progress=tick, ruleset=rules,
                                events=setting)
    columns = list(StrategyResult.__struct_fields__)     # as the JSON document names them
    rows = [tuple(getattr(r, c) for c in columns)
            for r in sorted(result.results, key=lambda r: -r.win_rate)]
    table = rows_result(columns, rows)
    emit(table, chosen(fmt, as_json), document=result,
         head=lambda: f"{_games(result.games)}, {players} players, seed {seed} (fair share "
                      f"{result.fair_share:.1%}); {result.mean_rounds:.2f} rounds per game; "
                      f"{_games(result.mermaid_wins)} won by the mermaids\n")


def _games(n: int) -> str:
    return f"{n} game{'s' if n != 1 else ''}"
