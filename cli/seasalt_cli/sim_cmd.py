"""``seasalt simulate`` and ``seasalt tournament``: seeded games played by bots."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from seasalt_log import events as ev
from seasalt_log.sim import BOTS, DEFAULT_BOTS, simulate as simulate_games
from seasalt_log.sim.runner import check_args
from seasalt_log.sim.tournament import DEFAULT_STRATEGIES, tournament as run_tournament

from seasalt_log.analytics.output import rows_result
from seasalt_log.errors import UsageError
from seasalt_log.outputs import atomic_file, check_target
from seasalt_log.service import import_games
from seasalt_log.store import Store

from .app import JsonOption, app, db_path, err, handles_errors, print_json, progress_bar
from .formats import chosen, emit
from .options import Format, FormatOption
from .store_cmds import report_import

#: runs shorter than this many games get no progress bar
PROGRESS_FROM = 200

GamesOption = typer.Option(..., "--games", "-n", help="Number of games.", show_default=False)
PlayersOption = typer.Option(..., "--players", "-p", help="Players per game: 2, 3 or 4.",
                             show_default=False)
SeedOption = typer.Option(..., "--seed", "-s", help="Seed: the same arguments give the same games.",
                          show_default=False)



class RulesetChoice(str, Enum):
    """``--ruleset``: the cards in play (R-X-RULESET-1)."""
    base = "base"
    extra_salt = "extra-salt"


class EventsChoice(str, Enum):
    """``--events``: the event setting (R-X-RULESET-2)."""
    none = "none"
    pepper = "pepper"


RulesetOption = typer.Option(RulesetChoice.base, "--ruleset",
                             help="Cards in play: the base game or Extra Salt's 66 cards.")
EventsOption = typer.Option(EventsChoice.none, "--events",
                            help="Event cards: none, or Extra Pepper's 12 events.")


def _settings(ruleset: RulesetChoice, events: EventsChoice) -> tuple[str | None, str | None]:
    """The game_started ``ruleset`` and ``events`` values (None for the base defaults)."""
    return (None if ruleset is RulesetChoice.base else ruleset.value,
            None if events is EventsChoice.none else events.value)


def _bots_option(what: str, default) -> typer.models.OptionInfo:
    """``--bots NAME,...``: ``what`` the names are, with the strategies there are."""
    return typer.Option(None, "--bots", "-b", metavar="NAME,...",
                        help=f"{what} ({', '.join(BOTS)}) (default: {','.join(default)})",
                        show_default=False)


def _bot_names(bots: str | None) -> list[str] | None:
    if bots is None:
        return None
    return [b.strip() for b in bots.split(",") if b.strip()]


@app.command()
@handles_errors
def simulate(
    games: int = GamesOption,
    players: int = PlayersOption,
    seed: int = SeedOption,
    bots: str = _bots_option("Bot strategies seated in rotation", DEFAULT_BOTS),
    out_file: Path = typer.Option(None, "--out", "-o", help="Write the log here instead of stdout.",
                                  dir_okay=False, show_default=False),
    db: Path = typer.Option(None, "--db", help="Store the games in this DuckDB store instead "
                                               "of writing a log (as `seasalt import` would).",
                            show_default=False),
    as_json: bool = typer.Option(False, "--json", help="With --db: the import summary as JSON."),
    ruleset: RulesetChoice = RulesetOption,
    events: EventsChoice = EventsOption,
) -> None:
    """Simulate games played by bots and write them as a log (JSON Lines, LOG_FORMAT.md),
    or store them (--db).

    Every event goes through the rules engine; the shuffles are recorded in each
    round_started, so the log replays exactly. Game i is "sim-SEED-i"; its meta holds the
    seed and the bots."""
    names = _bot_names(bots)
    check_args(players, names, games)
    settings = _settings(ruleset, events)
    if db is not None and out_file is not None:
        raise UsageError("--db and --out are exclusive: store the games, or write a log")
    if out_file is not None:    # refused before any game is played
        check_target(out_file, [db_path(None)], what="--out")
    with progress_bar("simulating", enabled=games >= PROGRESS_FROM, total=games) as tick:
        if db is not None:
            with Store.open(db) as store:
                summary = import_games(store, _ticking(
                    simulate_games(games, players, seed, names, *settings), tick), source="simulate")
            report_import(summary, as_json, "stored")
        elif out_file is None:
            _write(sys.stdout.buffer, games, players, seed, names, tick, settings)
            sys.stdout.flush()
        else:
            with atomic_file(out_file, [db_path(None)], what="--out") as fh:
                _write(fh, games, players, seed, names, tick, settings)
            err.print(f"{games} game{'s' if games != 1 else ''} written to {out_file}", markup=False)


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
    games: int = GamesOption,
    players: int = PlayersOption,
    seed: int = SeedOption,
    bots: str = _bots_option("Strategies to play", DEFAULT_STRATEGIES),
    as_json: bool = JsonOption,
    fmt: Format = FormatOption,
    ruleset: RulesetChoice = RulesetOption,
    events: EventsChoice = EventsOption,
) -> None:
    """Play bot strategies against each other with seats rotated and print their win rates.

    The number of games is rounded up to whole cycles of the lineups, so every strategy
    sits in every seat equally often. A win shared by k players counts 1/k."""
    names = _bot_names(bots)
    check_args(players, names, games, least=1)
    with progress_bar("playing", enabled=games >= PROGRESS_FROM, total=games) as tick:
        rules, setting = _settings(ruleset, events)
        result = run_tournament(games, players, seed, names, progress=tick, ruleset=rules,
                                events=setting)
    rows = [(r.strategy, r.seats, r.wins, r.win_rate, r.mean_points_per_round,
             r.last_chance_won, r.last_chance_calls)
            for r in sorted(result.results, key=lambda r: -r.win_rate)]
    table = rows_result(["strategy", "seats", "wins", "win_rate", "points_per_round",
                         "last_chance_won", "last_chance_calls"], rows)
    emit(table, chosen(fmt, as_json), document=result,
         head=lambda: f"{result.games} games, {players} players, seed {seed} (fair share "
                      f"{result.fair_share:.1%}); {result.mean_rounds:.2f} rounds per game; "
                      f"{result.mermaid_wins} four-mermaid wins\n")
