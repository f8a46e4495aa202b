"""``GET /docs``: the OpenAPI description as one self-contained web page (styles inline,
nothing fetched), written from the same dict as ``/openapi.json``: every operation with its
parameters, body and answers, the kinds of problem (each with the anchor a problem's
``type`` points at), and the body schemas."""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from .problems import TITLES

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#123}
h1{font-size:1.5rem}h2{margin-top:2rem;border-bottom:1px solid #ccd}
.op{border:1px solid #ccd;border-radius:6px;margin:.8rem 0;padding:.5rem .8rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700;font-family:monospace}
.get{color:#17609c}.post{color:#1b7a3a}code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#f4f6f9;padding:.5rem;overflow-x:auto;max-height:20rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.2rem .4rem;
border-bottom:1px solid #eef;vertical-align:top}details{margin:.3rem 0}
p,td{overflow-wrap:anywhere}
"""


def _schema_name(schema: dict | None) -> str:
    """A short name for a schema: its $ref's name, an array of one, or its type."""
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    if schema.get("type") == "array":
        return f"array of {_schema_name(schema.get('items'))}"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " | ".join(_schema_name(s) for s in schema[key])
    if "enum" in schema:
        return " | ".join(escape(json.dumps(v)) for v in schema["enum"])
    return escape(str(schema.get("type", "")))


def _text(text: str) -> str:
    """A description as HTML: escaped, its `code` spans (the descriptions' only markup) set
    as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _content(block: dict) -> str:
    return "; ".join(f"<code>{escape(media)}</code> {_schema_name(c.get('schema'))}"
                     for media, c in block.get("content", {}).items())


def _operation(path: str, method: str, op: dict) -> str:
    out = [f'<div class="op" id="{escape(method)}-{escape(path)}">',
           f'<span class="m {escape(method)}">{escape(method.upper())}</span> '
           f"<code>{escape(path)}</code> — {_text(op.get('summary', ''))}"]
    if op.get("description"):
        out.append(f"<p>{_text(op['description'])}</p>")
    if any(s for s in op.get("security", [])):
        out.append("<p>Credential: <code>Authorization: Bearer TOKEN</code></p>")
    params = op.get("parameters", [])
    if params:
        out.append("<table><tr><th>parameter</th><th>in</th><th>schema</th><th></th></tr>")
        for p in params:
            req = " (required)" if p.get("required") else ""
            out.append(f"<tr><td><code>{escape(p['name'])}</code>{req}</td><td>{escape(p['in'])}"
                       f"</td><td>{_schema_name(p.get('schema'))}</td>"
                       f"<td>{_text(p.get('description', ''))}</td></tr>")
        out.append("</table>")
    if "requestBody" in op:
        out.append(f"<p>Body: {_content(op['requestBody'])}</p>")
    out.append("<table><tr><th>status</th><th>answer</th><th></th></tr>")
    for status, r in op.get("responses", {}).items():
        headers = ", ".join(f"<code>{escape(h)}</code>" for h in r.get("headers", {}))
        out.append(f"<tr><td>{escape(status)}</td><td>{_text(r.get('description', ''))}"
                   f"{' — ' + headers if headers else ''}</td><td>{_content(r)}</td></tr>")
    out.append("</table></div>")
    return "\n".join(out)


def docs_html(spec: dict[str, Any]) -> str:
    """The page for the OpenAPI description ``spec``."""
    info = spec["info"]
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<link rel="icon" href="data:,">',      # no /favicon.ico asked for (a 404)
             f"<title>{escape(info['title'])}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{escape(info['title'])}</h1>",
             f"<p>{_text(info.get('description', ''))}</p>",
             '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI '
             f"{escape(spec['openapi'])}).</p>", "<h2>Operations</h2>"]
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            parts.append(_operation(path, method, op))
    parts.append("<h2>Problems</h2><p>Every error is <code>application/problem+json</code> "
                 "(RFC 9457): <code>type</code> (a link here), <code>title</code>, "
                 "<code>status</code>, <code>detail</code>, <code>instance</code> (the "
                 "request's path), and <code>error</code> (the code below), with "
                 "<code>rule</code>, <code>reason</code>, <code>index</code>, "
                 "<code>path</code>, <code>current_seq</code>, <code>expected_seq</code> where "
                 "they apply.</p><table><tr><th>type</th><th>title</th></tr>")
    for code, title in TITLES.items():
        parts.append(f'<tr id="{escape(code)}"><td><code>/docs#{escape(code)}</code></td>'
                     f"<td>{escape(title)}</td></tr>")
    parts.append("</table><h2>Schemas</h2>")
    for name, schema in spec["components"]["schemas"].items():
        text = json.dumps(schema, indent=1, ensure_ascii=False)
        parts.append(f'<details id="schema-{escape(name)}"><summary><code>{escape(name)}'
                     f"</code></summary><pre>{escape(text)}</pre></details>")
    parts.append("</body></html>")
    return "\n".join(parts)
