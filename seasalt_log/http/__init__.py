"""The live service (``seasalt serve``): record games over HTTP as they are played.

- :func:`.app.create_app` builds the ASGI app over one store (docs/HTTP.md describes the API);
- :class:`.server.Server` runs it under uvicorn with a clean stop on Ctrl-C / SIGTERM;
- :class:`.server.ServerThread` runs it on an ephemeral loopback port in a thread (tests,
  benchmarks).
"""
