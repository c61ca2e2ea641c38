"""The JSON Schema subset the LLM clients accept, and the checks of replies against it.

``check_schema`` refuses a schema that uses more than ``validate`` checks; ``validate`` lists where
a reply breaks its schema; ``parse_json_reply`` finds the JSON object in a reply's text;
``_strict_compatible`` says whether OpenAI's strict structured output takes a schema as it is.

Separate from ``llm.py`` (the clients and their cache wrapper) because it is plain JSON checking,
with no model and no network: read, tested and changed on its own.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..errors import InvalidInput, ProviderError
from .openai_client import _short

_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_CHECKED = {"type", "properties", "required", "additionalProperties", "items", "enum",
            "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength"}
_DESCRIPTIVE = {"description", "title", "default", "examples", "$schema", "$comment"}


def check_schema(schema: Any, path: str = "$") -> None:
    """Raise ``InvalidInput`` unless ``schema`` uses only the JSON Schema subset ``validate``
    checks: type (a name or a list, e.g. ``["string", "null"]`` for nullable), properties,
    required, additionalProperties, items, enum, min/maxItems, minimum/maximum, min/maxLength."""
    if not isinstance(schema, dict):
        raise InvalidInput(f"schema at {path} must be an object, got {type(schema).__name__}")
    unknown = set(schema) - _CHECKED - _DESCRIPTIVE
    if unknown:
        raise InvalidInput(f"schema at {path} uses {sorted(unknown)}, which dualmem does not check; "
                           f"use only {sorted(_CHECKED)}")
    types = _types(schema, path)
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        raise InvalidInput(f"schema at {path}: enum must be a non-empty list")
    if "properties" in schema:
        if not isinstance(schema["properties"], dict):
            raise InvalidInput(f"schema at {path}: properties must be an object")
        for key, sub in schema["properties"].items():
            check_schema(sub, f"{path}.{key}")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise InvalidInput(f"schema at {path}: required must be a list of names")
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, dict):
        check_schema(extra, f"{path}.*")
    elif not isinstance(extra, bool):
        raise InvalidInput(f"schema at {path}: additionalProperties must be a boolean or a schema")
    if "items" in schema:
        check_schema(schema["items"], f"{path}[]")
    if path == "$" and types is not None and types != ["object"]:
        raise InvalidInput("the top of a reply schema must be {'type': 'object', ...}")


def _types(schema: dict[str, Any], path: str) -> list[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    types = [declared] if isinstance(declared, str) else declared
    if not isinstance(types, list) or not types or not all(t in _TYPES for t in types):
        raise InvalidInput(f"schema at {path}: type must be one of {sorted(_TYPES)} or a list of them")
    return types


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is(value: Any, type_name: str) -> bool:
    actual = _json_type(value)
    if type_name == "number":
        return actual in ("integer", "number")
    if type_name == "integer":
        return actual == "integer" or (actual == "number" and math.isfinite(value) and value.is_integer())
    return actual == type_name


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def validate(instance: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Where ``instance`` breaks ``schema`` (the subset ``check_schema`` accepts), as
    ``"$.facts[2].confidence: expected number, got string"`` lines; empty when it conforms."""
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_is(instance, t) for t in types):
            return [f"{path}: expected {' or '.join(types)}, got {_json_type(instance)}"]
    errors: list[str] = []
    if "enum" in schema and not any(_same(instance, option) for option in schema["enum"]):
        errors.append(f"{path}: {_short(json.dumps(instance), 60)} is not one of "
                      f"{_short(json.dumps(schema['enum']), 120)}")
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        errors += [f"{path}: missing required {key!r}" for key in schema.get("required", [])
                   if key not in instance]
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            if key in properties:
                errors += validate(value, properties[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unexpected property {key!r}")
            elif isinstance(extra, dict):
                errors += validate(value, extra, f"{path}.{key}")
    elif isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errors.append(f"{path}: {len(instance)} items, at least {schema['minItems']} needed")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            errors.append(f"{path}: {len(instance)} items, at most {schema['maxItems']} allowed")
        if "items" in schema:
            for index, item in enumerate(instance):
                errors += validate(item, schema["items"], f"{path}[{index}]")
    elif isinstance(instance, str):
        if "minLength" in schema and len(instance) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(instance) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
    elif _is(instance, "number"):
        if "minimum" in schema and instance < schema["minimum"]:
            errors.append(f"{path}: {instance} is below the minimum {schema['minimum']}")
        if "maximum" in schema and instance > schema["maximum"]:
            errors.append(f"{path}: {instance} is above the maximum {schema['maximum']}")
    return errors


def _strict_compatible(schema: dict[str, Any]) -> bool:
    """Whether OpenAI's strict structured output accepts ``schema`` as it is: every object
    closed (``additionalProperties: false``) and listing all its properties as required."""
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else (declared or [])
    if "properties" in schema or "object" in types:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties", True) is not False:
            return False
        if set(schema.get("required", [])) != set(properties):
            return False
        if not all(_strict_compatible(sub) for sub in properties.values()):
            return False
    if "items" in schema and not _strict_compatible(schema["items"]):
        return False
    return True


def parse_json_reply(text: str, who: str) -> dict[str, Any]:
    """The JSON object in a reply (a surrounding Markdown code fence is tolerated)."""
    body = text.strip()
    fence = re.fullmatch(r"```[A-Za-z0-9]*\s*\n?(.*?)\n?```", body, flags=re.DOTALL)
    if fence:
        body = fence.group(1).strip()

    def no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        value = json.loads(body, parse_constant=no_constants)
    except ValueError as exc:
        raise ProviderError(
            f"{who} replied with text that is not valid JSON ({exc}): {_short(text, 200)!r}. "
            "A local model may need a JSON-capable chat template, more max_tokens, or a stronger model"
        ) from exc
    if not isinstance(value, dict):
        raise ProviderError(
            f"{who} replied with JSON {_json_type(value)}, not an object: {_short(text, 200)!r}")
    return value
