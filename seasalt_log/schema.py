"""Write the JSON Schema of one log line (LOG_FORMAT.md) into ``schemas/events.schema.json``.

    python -m seasalt_log.schema            # regenerate the committed file
    python -m seasalt_log.schema --check    # exit 1 if the committed file is stale

The schema is generated from the event types (:func:`seasalt_log.events.json_schema`), so
it never drifts from the decoder; a test fails when the committed file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .events import json_schema

#: the committed schema, relative to the repository root
RELATIVE_PATH = Path("schemas") / "events.schema.json"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / RELATIVE_PATH
REGENERATE = "python -m seasalt_log.schema"


def render() -> str:
    """The schema file's exact content: pretty-printed, sorted keys, trailing newline."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    path = Path(paths[0]) if paths else SCHEMA_PATH
    text = render()
    if check:
        current = path.read_bytes().decode("utf-8") if path.exists() else None
        if current != text:
            print(f"{RELATIVE_PATH} is stale; run `{REGENERATE}` and commit it", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
