"""``python -m seasalt_log``: the ``seasalt`` command (an entry point, in the CLI's layer)."""

from seasalt_cli.main import main

main()
