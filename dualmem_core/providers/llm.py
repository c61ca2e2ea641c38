"""LLM clients that answer with one JSON object matching a schema.

``LLM.complete_json(messages, schema, name=...)`` is the whole interface: chat messages in, a
parsed and schema-checked JSON object out (``LLMReply``), with the token counts it cost.

``OpenAILLM`` talks to any OpenAI-compatible ``/v1/chat/completions`` endpoint. It asks for
structured output (``response_format`` type ``json_schema``); when the endpoint refuses that with
HTTP 400/422, as some local servers do, it asks for ``json_object`` instead with the schema
spelled out in the system message, and keeps doing so for that endpoint. Either way the reply is
checked against the schema here (``validate``), so callers get the shape they asked for or a
``ProviderError``.

``CachedLLM`` puts the provider cache in front of any ``LLM``. ``Usage`` counts calls, cache hits
and tokens; sum it per stage or run with ``+`` or ``UsageMeter``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from ..errors import InvalidInput, ProviderError
from .cache import ProviderCache
from .cache_format import LLM as LLM_KIND
from .embedding import _mask, _short, _where, make_openai_client, openai_error

log = logging.getLogger(__name__)

# ------------------------------------------------------------------------- failures

FAILURE_KINDS = ("timeout", "unreachable", "error", "bad_reply")


def failure_kind(exc: BaseException) -> str:
    """What went wrong with a model call, for counting: ``timeout`` (no answer in time, after the
    client's retries), ``unreachable`` (no connection), ``error`` (an HTTP error status), or
    ``bad_reply`` (an answer that is not usable JSON of the asked shape)."""
    import openai

    cause = exc.__cause__
    if isinstance(cause, openai.APITimeoutError):
        return "timeout"
    if isinstance(cause, openai.APIConnectionError):
        return "unreachable"
    if isinstance(cause, openai.APIStatusError | openai.OpenAIError):
        return "error"
    return "bad_reply"


# ------------------------------------------------------------------------- usage


@dataclass(frozen=True)
class Usage:
    """What LLM requests cost: ``calls`` sent to the model, ``cache_hits`` answered by the cache
    (they cost no tokens), and the tokens of the calls sent. Add with ``+`` or ``sum()``."""

    calls: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def requests(self) -> int:
        return self.calls + self.cache_hits

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __radd__(self, other: object) -> Usage:
        if other == 0:  # sum() starts from 0
            return self
        return NotImplemented


class UsageMeter:
    """A thread-safe running total of ``Usage`` per stage (e.g. ``"extract"``, ``"resolve"``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stages: dict[str, Usage] = {}

    def add(self, usage: Usage, stage: str = "total") -> None:
        with self._lock:
            self._stages[stage] = self._stages.get(stage, Usage()) + usage

    def by_stage(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._stages)

    @property
    def total(self) -> Usage:
        with self._lock:
            return sum(self._stages.values(), Usage())


@dataclass(frozen=True)
class LLMReply:
    """One answer: ``parsed`` is the JSON object, ``text`` the raw reply text, ``model`` the
    model that wrote it, the token counts what it cost when it was made, ``cached`` whether it
    came from the cache this time."""

    parsed: dict[str, Any]
    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False

    @property
    def usage(self) -> Usage:
        if self.cached:
            return Usage(cache_hits=1)
        return Usage(calls=1, tokens_in=self.tokens_in, tokens_out=self.tokens_out)

    def to_record(self) -> dict[str, Any]:
        """The JSON form stored in the cache."""
        return {"parsed": self.parsed, "text": self.text, "model": self.model,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out}

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, cached: bool) -> LLMReply:
        return cls(parsed=record["parsed"], text=record["text"], model=record["model"],
                   tokens_in=int(record.get("tokens_in", 0)), tokens_out=int(record.get("tokens_out", 0)),
                   cached=cached)


class LLM(Protocol):
    name: str

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], *, name: str,
                      temperature: float = 0, sources: Sequence[str] = ()) -> LLMReply:
        """One JSON object matching ``schema``. ``name`` names the schema (letters, digits, ``_``
        and ``-``). ``sources`` are texts the prompt was derived from, recorded by a cache so that
        forgetting one of them can purge the reply; clients without a cache ignore them."""
        ...


# -------------------------------------------------------------- schema checking

_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_CHECKED = {"type", "properties", "required", "additionalProperties", "items", "enum",
            "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength"}
_DESCRIPTIVE = {"description", "title", "default", "examples", "$schema", "$comment"}
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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


def _check_messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a non-empty list of {'role': ..., 'content': ...} dicts")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str) \
                or not isinstance(message.get("content"), str):
            raise InvalidInput(f"message {index} must be a dict with a 'role' and a str 'content'")
    return messages


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInput(f"schema name {name!r} must be 1-64 letters, digits, '_' or '-'")


# ----------------------------------------------------------------- OpenAI-compatible


class OpenAILLM:
    """Chat completions from an OpenAI-compatible endpoint, answering with schema-checked JSON.

    ``base_url`` is the endpoint root including ``/v1`` (None: OpenAI, or ``OPENAI_BASE_URL``);
    ``api_key`` falls back to ``OPENAI_API_KEY``, and a server at a ``base_url`` that needs no key
    gets a placeholder. ``max_retries`` is the ``openai`` client's own retry of connection errors,
    429 and 5xx, with backoff. The HTTP client is made on the first request.
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, max_retries: int = 2, *, max_tokens: int | None = None,
                 client: Any = None):
        if not model or not isinstance(model, str):
            raise InvalidInput("OpenAILLM needs a model name, e.g. 'gpt-4o-mini'")
        self.model = model
        self.name = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._client = client
        self._lock = threading.Lock()
        self._usage = Usage()
        self.json_schema_supported: bool | None = None  # None until the endpoint has told us

    def __repr__(self) -> str:
        return (f"OpenAILLM(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key={_mask(self._api_key)}, timeout={self.timeout:g}, max_retries={self.max_retries})")

    @property
    def params(self) -> dict[str, Any]:
        """Request parameters besides the prompt that change replies (part of cache keys)."""
        return {} if self.max_tokens is None else {"max_tokens": self.max_tokens}

    @property
    def usage(self) -> Usage:
        """Everything this client has sent so far."""
        with self._lock:
            return self._usage

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], *, name: str,
                      temperature: float = 0, sources: Sequence[str] = ()) -> LLMReply:
        _check_messages(messages)
        check_schema(schema)
        _check_name(name)
        who = f"the chat endpoint {_where(self.base_url)} (model {self.model!r})"
        response = None
        if self.json_schema_supported is not False:
            structured = {"type": "json_schema", "json_schema": {
                "name": name, "schema": schema, "strict": _strict_compatible(schema)}}
            try:
                response = self._create(messages, structured, temperature)
                self.json_schema_supported = True
            except Exception as exc:
                if self.json_schema_supported or not _is_refusal_of_format(exc):
                    raise openai_error(exc, **self._hints(who)) from exc
                log.info("%s refused response_format json_schema (%s); using json_object", who,
                         _short(str(exc), 120))
        if response is None:
            try:
                response = self._create(_with_schema_instructions(messages, schema, name),
                                        {"type": "json_object"}, temperature)
            except Exception as exc:
                raise openai_error(exc, **self._hints(who)) from exc
            if self.json_schema_supported is None:
                self.json_schema_supported = False  # json_object worked where json_schema did not
        return self._reply(response, schema, name, who)

    def _hints(self, who: str) -> dict[str, Any]:
        return {"who": who, "base_url": self.base_url, "timeout": self.timeout,
                "key_env": "DUALMEM_LLM_API_KEY", "url_env": "DUALMEM_LLM_BASE_URL"}

    def _create(self, messages: list[dict[str, Any]], response_format: dict[str, Any],
                temperature: float) -> Any:
        with self._lock:
            if self._client is None:
                self._client = make_openai_client(self.base_url, self._api_key, self.timeout,
                                                  self.max_retries, key_env="DUALMEM_LLM_API_KEY")
            client = self._client
        extra: dict[str, Any] = {} if self.max_tokens is None else {"max_tokens": self.max_tokens}
        return client.chat.completions.create(model=self.model, messages=messages, temperature=temperature,
                                              response_format=response_format, **extra)

    def _reply(self, response: Any, schema: dict[str, Any], name: str, who: str) -> LLMReply:
        choices = getattr(response, "choices", None)
        if not choices:
            raise ProviderError(f"{who} answered without choices; is it an OpenAI-compatible chat endpoint?")
        choice = choices[0]
        message = getattr(choice, "message", None)
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ProviderError(f"{who} refused to answer {name!r}: {_short(str(refusal), 200)}")
        if getattr(choice, "finish_reason", None) == "length":
            raise ProviderError(f"{who} stopped at its token limit before finishing the JSON for "
                                f"{name!r}; raise max_tokens or shorten the prompt")
        text = getattr(message, "content", None)
        if not isinstance(text, str) or not text.strip():
            raise ProviderError(f"{who} returned an empty reply for {name!r}")
        usage = getattr(response, "usage", None)
        tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
        with self._lock:  # the tokens are spent even if the reply turns out unusable
            self._usage += Usage(calls=1, tokens_in=tokens_in, tokens_out=tokens_out)
        parsed = parse_json_reply(text, who)
        errors = validate(parsed, schema)
        if errors:
            more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
            raise ProviderError(f"{who} replied to {name!r} with JSON that does not match the schema: "
                                f"{'; '.join(errors[:5])}{more}")
        model = getattr(response, "model", None) or self.model
        return LLMReply(parsed=parsed, text=text, model=str(model), tokens_in=tokens_in,
                        tokens_out=tokens_out, cached=False)


def _is_refusal_of_format(exc: BaseException) -> bool:
    """An HTTP 400/422: what servers without structured outputs answer to ``json_schema``."""
    import openai

    return isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError)


def _with_schema_instructions(messages: list[dict[str, Any]], schema: dict[str, Any],
                              name: str) -> list[dict[str, Any]]:
    """The messages with the schema spelled out, for endpoints that only take ``json_object``
    (which also needs the word JSON somewhere in the prompt)."""
    instructions = (f"Answer with one JSON object, and nothing else, that matches this JSON Schema "
                    f"(named {name}):\n{json.dumps(schema, ensure_ascii=False)}")
    if messages[0].get("role") == "system":
        first = dict(messages[0], content=f"{messages[0]['content']}\n\n{instructions}")
        return [first, *messages[1:]]
    return [{"role": "system", "content": instructions}, *messages]


# ------------------------------------------------------------------------ caching


class CachedLLM:
    """``inner`` behind the provider cache. The key covers the model, messages, schema, schema
    name, temperature and the inner client's ``params``; the message texts and ``sources`` are
    recorded so ``ProviderCache.delete_matching`` can purge replies derived from them."""

    def __init__(self, inner: LLM, cache: ProviderCache):
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self._lock = threading.Lock()
        self._usage = Usage()

    def __repr__(self) -> str:
        return f"CachedLLM({self.inner!r}, {self.cache!r})"

    @property
    def usage(self) -> Usage:
        """Calls sent, cache hits and tokens spent through this wrapper so far."""
        with self._lock:
            return self._usage

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], *, name: str,
                      temperature: float = 0, sources: Sequence[str] = ()) -> LLMReply:
        _check_messages(messages)
        check_schema(schema)
        _check_name(name)
        request = {"messages": messages, "schema": schema, "name": name,
                   "temperature": float(temperature), "params": dict(getattr(self.inner, "params", {}))}
        inputs = [m["content"] for m in messages] + [s for s in sources if isinstance(s, str) and s]

        def compute(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
            reply = self.inner.complete_json(messages, schema, name=name, temperature=temperature,
                                             sources=sources)
            return [reply.to_record()]

        resolved = self.cache.resolve(LLM_KIND, self.name, [request], compute,
                                      texts=lambda _request: inputs,
                                      describe=lambda _request: f"a {name!r} request", batch_size=1)
        try:
            reply = LLMReply.from_record(resolved.values[0], cached=resolved.cached[0])
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"the cached reply for {name!r} from {self.name} is malformed ({exc}); "
                                "delete it from the cache and record it again") from exc
        if reply.cached:
            errors = validate(reply.parsed, schema)
            if errors:
                raise ProviderError(f"the cached reply for {name!r} from {self.name} no longer matches "
                                    f"the schema ({'; '.join(errors[:3])}); record it again")
        with self._lock:
            self._usage += reply.usage
        return reply
