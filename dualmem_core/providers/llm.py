"""LLM clients that answer with one JSON object matching a schema.

``LLM.complete_json(messages, schema, name=...)`` is the whole interface: chat messages in, a
parsed and schema-checked JSON object out (``LLMReply``), with the token counts it cost.

``OpenAILLM`` talks to any OpenAI-compatible ``/v1/chat/completions`` endpoint. It asks for
structured output (``response_format`` type ``json_schema``); when the endpoint refuses that with
HTTP 400/422, as some local servers do, it asks for ``json_object`` instead with the schema
spelled out in the system message, and keeps doing so for that endpoint. Either way the reply is
checked against the schema here (``validate``, in ``json_schema.py``), so callers get the shape
they asked for or a ``ProviderError``.

``CachedLLM`` puts the provider cache in front of any ``LLM``. ``Usage`` counts calls, cache hits
and tokens; sum it per stage or run with ``+`` or ``UsageMeter``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from ..errors import InvalidInput, ProviderError
from .cache import ProviderCache
from .cache_format import LLM as LLM_KIND
from .json_schema import _strict_compatible, check_schema, parse_json_reply, validate
from .openai_client import _mask, _short, _where, make_openai_client, openai_error

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


# -------------------------------------------------------------- request checking

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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
