"""The ``seasalt`` command: a thin Typer face over the :mod:`seasalt_log` library.

Each command group lives in its own module and registers itself on :data:`app`.
"""

from __future__ import annotations

import sys

try:
    import tempfile
    # its first call probes each candidate directory with a file it then removes: done at
    # the start, not where a Ctrl-C could cut it short and leave the file (an import's)
    tempfile.gettempdir()
    from .app import app, main  # noqa: F401
    # each registers its commands; `seasalt --help` lists them in this order
    from . import store_cmds  # noqa: F401
    from . import analytics_cmds  # noqa: F401
    from . import verify_cmd  # noqa: F401
    from . import replay_cmds  # noqa: F401
    from . import score_cmd  # noqa: F401
    from . import serve_cmd  # noqa: F401
    from . import sim_cmd  # noqa: F401
    from . import rules_cmd  # noqa: F401
    from . import backup_cmd  # noqa: F401
    from . import compact_cmd  # noqa: F401
    from . import archive_cmds  # noqa: F401
except KeyboardInterrupt:     # Ctrl-C while the command starts: its imports take a moment
    sys.stderr.write("error: interrupted\n")
    sys.exit(130)

__all__ = ["app", "main"]
