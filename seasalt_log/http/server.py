"""Running the service under uvicorn: the server (``seasalt serve``) and a server in a thread
(tests and benchmarks)."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time

import uvicorn


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Server(uvicorn.Server):
    """uvicorn's server, which on Ctrl-C or SIGTERM first ends the follower streams (so the
    graceful shutdown does not wait on them), lets the requests in progress finish (each
    append commits before it answers), closes the store, and returns normally."""

    async def shutdown(self, sockets=None) -> None:
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
                access_log: bool = False) -> Server:
    """A :class:`Server` for ``app`` (one process; uvloop and httptools when installed)."""
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level,
                            access_log=access_log, lifespan="on", loop="auto", http="auto",
                            timeout_graceful_shutdown=5, server_header=False)
    return Server(config)


class ServerThread:
    """The service on an ephemeral loopback port in a background thread::

        with ServerThread(create_app(path)) as url:
            ...   # url is "http://127.0.0.1:PORT"
    """

    def __init__(self, app, *, log_level: str = "warning"):
        self.server = make_server(app, "127.0.0.1", 0, log_level=log_level)
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
