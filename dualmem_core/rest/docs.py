"""``/docs``: the API reference as one self-contained HTML page, made from the OpenAPI document.

FastAPI's Swagger UI and ReDoc pages load their scripts and styles from a CDN, so without internet
they are blank; no package here ships those files, and vendoring them adds megabytes. This page
needs nothing but the server: every path, parameter, body, response and schema, linked, plain
HTML and CSS with no script. ``/openapi.json`` stays for tools (and an online Swagger UI).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
code,pre{font-family:ui-monospace,monospace}pre{white-space:pre-wrap}h3{margin-top:1.6em}
.m{display:inline-block;min-width:4.5em;font-weight:bold}.get{color:#1a6}.post{color:#16c}
.delete{color:#c33}.put,.patch{color:#b70}table{border-collapse:collapse;width:100%;margin:.4em 0}
td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#f5f5f5}"""


def docs_page(spec: dict[str, Any]) -> str:
    """The whole reference for ``spec`` (an OpenAPI 3 document), its text escaped."""
    info = spec.get("info", {})
    title, version = escape(info.get("title", "API")), escape(str(info.get("version", "")))
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{title} API</title>"
             f"<style>{_STYLE}</style></head><body><h1>{title} <small>{version}</small></h1>",
             f"<pre>{escape(info.get('description', ''))}</pre>",
             "<p>The machine-readable description: <a href='openapi.json'>openapi.json</a>.</p>"
             "<h2>Operations</h2>"]
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            parts.append(_operation(path, method, op))
    parts.append("<h2>Schemas</h2>")
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        parts.append(_schema(name, schema))
    return "".join(parts) + "</body></html>"


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    out = [f"<h3 id='{escape(op.get('operationId', ''), quote=True)}'><span class='m {escape(method)}'>"
           f"{escape(method.upper())}</span> <code>{escape(path)}</code> — "
           f"{escape(op.get('summary', ''))}</h3>",
           f"<p>{escape(op.get('description', ''))}</p>"]
    params = op.get("parameters", [])
    if params:
        out.append(_table(["parameter", "in", "type", "required", "description"], [
            [f"<code>{escape(p['name'])}</code>", escape(p.get("in", "")), _type(p.get("schema", {})),
             "yes" if p.get("required") else "no", escape(p.get("description", ""))] for p in params]))
    body = op.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        out.append(f"<p>Body ({escape(media)}): {_type(content.get('schema', {}))}</p>")
    out.append(_table(["status", "meaning", "body"], [
        [escape(code), escape(r.get("description", "")),
         " ".join(_type(c.get("schema", {})) for c in r.get("content", {}).values())]
        for code, r in op.get("responses", {}).items()]))
    return "".join(out)


def _schema(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = [[f"<code>{escape(field)}</code>", _type(prop), "yes" if field in required else "no",
             escape(prop.get("description", ""))] for field, prop in schema.get("properties", {}).items()]
    examples = "".join(f"<p>Example:</p><pre>{escape(json.dumps(e, indent=2))}</pre>"
                       for e in schema.get("examples", [])[:1])
    return (f"<h3 id='schema-{escape(name, quote=True)}'>{escape(name)}</h3>"
            f"<p>{escape(schema.get('description', ''))}</p>"
            + (_table(["field", "type", "required", "description"], rows) if rows else "") + examples)


def _type(schema: dict[str, Any]) -> str:
    """A schema's type in a few words, a named schema as a link to it."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"<a href='#schema-{escape(name, quote=True)}'>{escape(name)}</a>"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return " | ".join(_type(s) for s in schema[key])
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{escape(repr(v))}</code>" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return f"object of {_type(extra) if isinstance(extra, dict) else 'any'}"
    return escape(f"{kind} ({schema['format']})" if "format" in schema else str(kind))


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
