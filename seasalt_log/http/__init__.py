"""The live service (``seasalt serve``): record games over HTTP as they are played.

- :func:`create_app` builds the ASGI app over one store (docs/HTTP.md describes the API);
- :class:`Server` runs it under uvicorn with a clean stop on Ctrl-C / SIGTERM;
- :class:`ServerThread` runs it on an ephemeral loopback port in a thread (tests, benchmarks).
"""

from .app import DEFAULT_MAX_BODY, create_app
from .server import Server, ServerThread, is_loopback, make_server

__all__ = ["create_app", "DEFAULT_MAX_BODY", "Server", "ServerThread", "make_server", "is_loopback"]
