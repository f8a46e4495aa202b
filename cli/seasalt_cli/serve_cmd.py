"""``seasalt serve``: the live service, recording games over HTTP as they are played."""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from seasalt_log.errors import StoreBusyError

from .app import app, db_path, fail, handles_errors, log
from .options import TOKEN_ENV, DbOption
from .remote import held_by
from .store_cmds import first_write


#: the service's defaults as --help shows them (the web stack is imported only by `serve`
#: itself; a test keeps these equal to seasalt_log.http's values)
SHOWN_DEFAULTS = {"max_body": "4 MiB", "live_games": "2048"}


@app.command()
@handles_errors
def serve(
    db: Path = DbOption,
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS",
                             help="Address to listen on."),
    port: int = typer.Option(8421, "--port", min=1, max=65535, metavar="N",
                             help="Port to listen on."),
    token: str = typer.Option(None, "--token", envvar=TOKEN_ENV, show_envvar=True,
                              metavar="TOKEN", show_default=False,
                              help="Writes need 'Authorization: Bearer TOKEN'; needed to "
                                   "listen on an address other than loopback."),
    max_body: int = typer.Option(None, "--max-body", min=1, metavar="BYTES",
                                 show_default=SHOWN_DEFAULTS["max_body"],
                                 help="Largest request body in bytes."),
    access_log: bool = typer.Option(False, "--access-log/--no-access-log",
                                    help="Log every request."),
    live_games: int = typer.Option(None, "--live-games", min=1, metavar="N",
                                   show_default=SHOWN_DEFAULTS["live_games"],
                                   help="Games kept in memory for fast appends, about 0.2 MB "
                                        "each; keep it above the games recorded at once."),
    cors_origin: list[str] = typer.Option([], "--cors-origin", metavar="ORIGIN",
                                          show_default="none: CORS off",
                                          help="An origin (e.g. https://table.example) whose "
                                               "pages may call the service; repeat for more, * "
                                               "for any."),
    allowed_host: list[str] = typer.Option([], "--allowed-host", metavar="HOST",
                                           show_default="none",
                                           help="A host name clients may use besides the "
                                                "address listened on (DNS rebinding is refused "
                                                "otherwise); repeat for more."),
    public_after_end: bool = typer.Option(True, "--public-after-end/--private-after-end",
                                          help="Whether an ended game's whole log (every "
                                               "hand, the deck order) may be read by anyone."),
    rate_limit: float = typer.Option(None, "--rate-limit", min=0.1, metavar="N",
                                     show_default="no limit",
                                     help="Requests a second allowed per client address "
                                          "(bursts of as many)."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1, metavar="SECONDS",
                                         help="Seconds a client may take to send its headers."),
    max_connections: int = typer.Option(4096, "--max-connections", min=1, metavar="N",
                                        help="Connections open at once; past it the oldest "
                                             "one still sending its headers is closed."),
) -> None:
    """Run the HTTP service over the store: start games, append events as they are played
    (checked by the rules engine), follow games live, read states, scores and statistics.

    The service is the store's only writer while it runs. Ctrl-C or SIGTERM stops it
    cleanly: every answered append is committed. The API is described in docs/HTTP.md and
    at /openapi.json."""
    from seasalt_log.analytics.limits import limits_from
    from seasalt_log.http.access import origin_problem
    from seasalt_log.http.app import DEFAULT_MAX_BODY, create_app
    from seasalt_log.http.discovery import withdraw
    from seasalt_log.http.server import is_loopback, make_server
    from seasalt_log.store import Store

    if token is None and not is_loopback(host):
        fail(f"refusing to listen on {host} without a token: anyone who can reach it could "
             "write games. Pass --token (or set SEASALT_TOKEN), or listen on 127.0.0.1.", 2)
    limits_from()                 # a bad SEASALT_QUERY_TIMEOUT / _MEMORY fails here, in one line
    for origin in cors_origin:    # one that no browser sends would leave CORS off unsaid
        if (problem := origin_problem(origin)) is not None:
            raise typer.BadParameter(f"--cors-origin {problem}")
    path = db_path(db)
    with first_write(path) as outcome:    # a service that never started leaves no new store
        try:
            Store.open(path).close()  # a busy or broken store fails here, with a clear message
        except StoreBusyError:
            fail(_busy(path))
        app_ = create_app(path, token=token, max_body=max_body or DEFAULT_MAX_BODY,
                          host=host, allowed_hosts=tuple(allowed_host),
                          cors_origins=tuple(cors_origin), public_after_end=public_after_end,
                          rate_limit=rate_limit,
                          **({"live_games": live_games} if live_games else {}))
        level = "debug" if log.isEnabledFor(logging.DEBUG) else "info" if log.isEnabledFor(
            logging.INFO) else "warning"            # --verbose / plain / --quiet
        server = make_server(app_, host, port, log_level=level, access_log=access_log,
                             header_timeout=header_timeout, max_connections=max_connections)
        server.announce_store = path      # STORE.serve.json: reading commands find the service
        shown = f"[{host}]" if ":" in host else host
        server.on_started = lambda: log.info(
            f"seasalt: serving {path} on http://{shown}:{port} "
            f"({'writes need the token' if token else 'no token: writes are open'}); Ctrl-C stops")
        try:
            server.run()
        except SystemExit:          # uvicorn's way of saying it could not start (port in use, ...)
            server.started = False
        finally:
            withdraw(path)
        outcome.failed = not server.started
        if not server.started:
            fail(f"could not start the service on {host}:{port} (see the message above)")
    log.info("seasalt: stopped; every append is stored")


def _busy(path: Path) -> str:
    """Why the service cannot have store ``path`` and what to do: a service already serves
    it (use that one), or another process holds it (named where DuckDB says which)."""
    from seasalt_log.http.discovery import find
    found = find(path)
    if found is not None:
        return (f"the store {path} is already served by `seasalt serve` (process {found.pid}) "
                f"at {found.url}: use that service, or stop it (Ctrl-C in its terminal, or "
                f"kill {found.pid}) before serving the store again")
    holder = held_by(path) or "another process"
    return (f"the store {path} is busy: {holder} has it open, and the service must be its "
            "only user; stop that process, or wait for it to finish, then start the service "
            "again")
