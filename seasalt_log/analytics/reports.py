"""Named reports (``seasalt stats``): parameterised SQL files shipped in ``reports/``.

Each file starts with a one-line ``-- description`` and takes two named parameters, both
NULL for "all": ``$players`` (only games of that many players) and ``$player`` (only that
player's games, and in reports about players, seats, calls or duos, only that player's own
rows). Reports run on the same safe connection as ``seasalt query``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from msgspec import Struct

from ..errors import SeasaltError, UsageError
from ..store.projections import PROJECTIONS_VERSION, stored_version
from .output import Result
from .limits import Limits, guarded
from .query import connect_readonly, execute
from ..store.fetch import one_value


class Report(Struct, frozen=True):
    """One packaged report."""

    name: str
    description: str
    sql: str


@lru_cache(maxsize=1)
def _load() -> dict[str, Report]:
    out = {}
    folder = resources.files(__package__).joinpath("reports")
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".sql"):
            continue
        sql = entry.read_text(encoding="utf-8")
        first = sql.splitlines()[0] if sql else ""
        if not first.startswith("--"):
            raise SeasaltError(f"report {entry.name} has no '-- description' first line")
        name = entry.name[:-4]
        out[name] = Report(name=name, description=first[2:].strip(), sql=sql)
    return out


def list_reports() -> list[Report]:
    """Every packaged report, by name."""
    return list(_load().values())


def get_report(name: str) -> Report:
    """The report called ``name``, or a :class:`UsageError` listing them all."""
    reports = _load()
    if name not in reports:
        raise UsageError(f"no report named {name!r}; choose one of: {', '.join(reports)}")
    return reports[name]


def check_fresh(con) -> None:
    """Raise when the store's read models were made by another version of the projections."""
    version = stored_version(con)
    if version != str(PROJECTIONS_VERSION):
        raise SeasaltError("the store's read models are out of date (made by another version of "
                           "seasalt); run `seasalt rebuild` on it first")


def run_report_on(con, name: str, *, player: str | None = None,
                  players: int | None = None, path: str | Path | None = None) -> Result:
    """Run report ``name`` on a connection from :func:`connect_readonly` (to the store at
    ``path``, named when it is damaged)."""
    report = get_report(name)
    if players is not None and players not in (2, 3, 4):
        raise UsageError(f"--players must be 2, 3 or 4, not {players}")
    check_fresh(con)
    if player is not None and not one_value(
            con, "SELECT count(*) FROM seats WHERE name = ?", [player]):
        raise UsageError(f"no player named {player!r} in the store")
    return execute(con, report.sql, {"player": player, "players": players}, path=path)


def run_report(path: str | Path, name: str, *, player: str | None = None,
               players: int | None = None, limits: Limits | None = None) -> Result:
    """Run report ``name`` on the store at ``path`` with the given filters (under
    ``limits`` when given, as :func:`.query.run_query`)."""
    con = connect_readonly(path, limits)
    try:
        if limits is None:
            return run_report_on(con, name, player=player, players=players, path=path)
        return guarded(con, lambda: run_report_on(con, name, player=player, players=players,
                                                  path=path), limits)
    finally:
        con.close()
