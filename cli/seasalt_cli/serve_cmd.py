"""``seasalt serve``: the live service, recording games over HTTP as they are played."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from .app import DbOption, app, db_path, err, fail, handles_errors


@app.command()
@handles_errors
def serve(
    db: Path = DbOption,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8421, "--port", min=1, max=65535, help="Port to listen on."),
    token: str = typer.Option(None, "--token", show_default=False,
                              help="Writes need 'Authorization: Bearer TOKEN' "
                                   "[env SEASALT_TOKEN; needed for a non-loopback --host]"),
    max_body: int = typer.Option(None, "--max-body", min=1, show_default=False,
                                 help="Largest request body in bytes [default 4 MiB]"),
    access_log: bool = typer.Option(False, "--access-log/--no-access-log",
                                    help="Log every request."),
    live_games: int = typer.Option(None, "--live-games", min=1, show_default=False,
                                   help="Games kept in memory for fast appends, about 0.2 MB "
                                        "each; keep it above the games recorded at once "
                                        "[default 2048]"),
    cors_origin: list[str] = typer.Option([], "--cors-origin", show_default=False,
                                          help="An origin (e.g. https://table.example) whose "
                                               "pages may call the service; repeat for more, * "
                                               "for any [default: none, CORS off]"),
    allowed_host: list[str] = typer.Option([], "--allowed-host", show_default=False,
                                           help="A host name clients may use besides the "
                                                "address listened on (DNS rebinding is refused "
                                                "otherwise); repeat for more"),
    public_after_end: bool = typer.Option(True, "--public-after-end/--private-after-end",
                                          help="Whether an ended game's whole log (every "
                                               "hand, the deck order) may be read by anyone."),
    rate_limit: float = typer.Option(None, "--rate-limit", min=0.1, show_default=False,
                                     help="Requests a second allowed per client address "
                                          "(bursts of as many) [default: no limit]"),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.1,
                                         help="Seconds a client may take to send its headers."),
    max_connections: int = typer.Option(4096, "--max-connections", min=1,
                                        help="Connections open at once; past it the oldest "
                                             "one still sending its headers is closed."),
) -> None:
    """Run the HTTP service over the store: start games, append events as they are played
    (checked by the rules engine), follow games live, read states, scores and statistics.

    The service is the store's only writer while it runs. Ctrl-C or SIGTERM stops it
    cleanly: every answered append is committed. The API is described in docs/HTTP.md and
    at /openapi.json."""
    from seasalt_log.analytics.limits import limits_from
    from seasalt_log.http.app import DEFAULT_MAX_BODY, create_app
    from seasalt_log.http.server import is_loopback, make_server
    from seasalt_log.store import Store

    token = token or os.environ.get("SEASALT_TOKEN") or None
    if token is None and not is_loopback(host):
        fail(f"refusing to listen on {host} without a token: anyone who can reach it could "
             "write games. Pass --token (or set SEASALT_TOKEN), or listen on 127.0.0.1.", 2)
    limits_from()                 # a bad SEASALT_QUERY_TIMEOUT / _MEMORY fails here, in one line
    path = db_path(db)
    Store.open(path).close()      # a busy or broken store fails here, with a clear message
    app_ = create_app(path, token=token, max_body=max_body or DEFAULT_MAX_BODY,
                      host=host, allowed_hosts=tuple(allowed_host),
                      cors_origins=tuple(cors_origin), public_after_end=public_after_end,
                      rate_limit=rate_limit,
                      **({"live_games": live_games} if live_games else {}))
    server = make_server(app_, host, port, access_log=access_log,
                         header_timeout=header_timeout, max_connections=max_connections)
    shown = f"[{host}]" if ":" in host else host
    err.print(f"seasalt: serving {path} on http://{shown}:{port} "
              f"({'writes need the token' if token else 'no token: writes are open'}); "
              "Ctrl-C stops", markup=False)
    try:
        server.run()
    except SystemExit:          # uvicorn's way of saying it could not start (port in use, ...)
        server.started = False
    if not server.started:
        fail(f"could not start the service on {host}:{port} (see the message above)")
    err.print("seasalt: stopped; every append is stored", markup=False)
