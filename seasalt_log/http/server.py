"""Running the service under uvicorn: the server (``seasalt serve``) and a server in a thread
(tests and benchmarks)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import threading
import time
from pathlib import Path
from typing import Callable

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .discovery import announce, client_url, withdraw

#: seconds a client may take to send a request's headers
HEADER_TIMEOUT = 10.0
#: seconds an idle keep-alive connection stays open (uvicorn takes whole seconds)
IDLE_TIMEOUT = 5
#: connections open at once; past it, the oldest one still sending its headers is closed
MAX_CONNECTIONS = 4096


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a header timeout and a connection limit that slow
    clients cannot use to lock others out: a connection must finish each request's headers
    within ``header_timeout`` seconds, and when more than ``max_connections`` are open the
    oldest one still waiting for its headers is closed (the newcomer is kept)."""

    header_timeout = HEADER_TIMEOUT
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        waiting = self._waiting()
        self._arm()
        if len(self.connections) > self.max_connections:
            for other in list(waiting):
                if other is not self:
                    other._close_slow()
                    break
            else:
                self.transport.close()

    def _waiting(self) -> dict:
        # the connections still waiting for their headers, oldest first (one per server)
        w = self.server_state.__dict__.get("_seasalt_waiting")
        if w is None:
            w = self.server_state.__dict__["_seasalt_waiting"] = {}
        return w

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout, self._close_slow)
            self._waiting()[self] = None

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
            self._waiting().pop(self, None)

    def _close_slow(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._arm()                 # the next request on a kept-alive connection
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)


def raise_open_files_limit(wanted: int) -> None:
    """Raise this process's limit of open files towards ``wanted`` (as far as allowed)."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):       # pragma: no cover - not POSIX, or refused
        pass


class Server(uvicorn.Server):
    """uvicorn's server, which on Ctrl-C or SIGTERM first ends the follower streams (so the
    graceful shutdown does not wait on them), lets the requests in progress finish (each
    append commits before it answers), closes the store, and returns normally."""

    #: called once the sockets are bound and the service answers (``seasalt serve`` says
    #: "serving on ..." only then, never before a bind that could still fail)
    on_started: Callable[[], None] | None = None
    #: the store to announce the service for once it listens (``STORE.serve.json``, see
    #: :mod:`.discovery`), withdrawn when it stops; None: announce nothing
    announce_store: Path | None = None

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if not self.started:
            return
        if self.announce_store is not None:
            try:
                announce(self.announce_store, client_url(self.config.host, self.config.port))
            except OSError as exc:      # a read-only directory: serve, but unannounced
                logging.getLogger("uvicorn.error").warning(
                    "cannot write %s (%s): reading commands will need --url",
                    exc.filename, exc.strerror)
        if self.on_started is not None:
            self.on_started()

    async def shutdown(self, sockets=None) -> None:
        if self.announce_store is not None:
            withdraw(self.announce_store)
        live = getattr(getattr(self.config.app, "state", None), "live", None)
        if live is not None:
            live.stop_followers()
        await super().shutdown(sockets=sockets)

    @contextlib.contextmanager
    def capture_signals(self):
        with super().capture_signals():
            yield
            # uvicorn raises the signal again once stopped; a clean stop is a normal exit
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()


def make_server(app, host: str = "127.0.0.1", port: int = 8421, *, log_level: str = "info",
                access_log: bool = False, header_timeout: float = HEADER_TIMEOUT,
                idle_timeout: int = IDLE_TIMEOUT, max_connections: int = MAX_CONNECTIONS
                ) -> Server:
    """A :class:`Server` for ``app`` (one process; uvloop when installed, httptools), with
    the limits of :class:`GuardedProtocol` and ``idle_timeout`` for kept-alive connections."""
    protocol = type("Protocol", (GuardedProtocol,), {
        "header_timeout": header_timeout, "max_connections": max_connections})
    raise_open_files_limit(max_connections + 256)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level,
                            access_log=access_log, lifespan="on", loop="auto", http=protocol,
                            timeout_keep_alive=idle_timeout,
                            timeout_graceful_shutdown=5, server_header=False)
    return Server(config)


class ServerThread:
    """The service on an ephemeral loopback port in a background thread::

        with ServerThread(create_app(path)) as url:
            ...   # url is "http://127.0.0.1:PORT"
    """

    def __init__(self, app, *, log_level: str = "warning", **limits):
        self.server = make_server(app, "127.0.0.1", 0, log_level=log_level, **limits)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._run, name="seasalt-http", daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:             # SystemExit on a failed start
            self.error = exc

    def start(self, timeout: float = 20.0) -> str:
        """Start and wait until the server answers; returns its base URL."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start ({self.error!r})")
            time.sleep(0.01)
        return self.url

    def stop(self, timeout: float = 20.0) -> None:
        """Stop as on SIGTERM and wait for the thread."""
        self.server.should_exit = True
        self.thread.join(timeout)
        self.sock.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
