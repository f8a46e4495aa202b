"""``python -m seasalt_cli``: the ``seasalt`` command."""

from seasalt_cli.main import main

main()
