"""The ``openai`` client behind ``OpenAIEmbedder`` and ``OpenAILLM``: making it, explaining its errors.

``make_openai_client`` builds a client for the OpenAI API or any OpenAI-compatible server (a
clear ``ProviderConfigError`` when the OpenAI API needs a key), and ``openai_error`` turns what
the client raises into a ``ProviderError`` that says what to do, never showing the key
(``_mask`` is how a key appears in a ``repr``).

Separate from ``embedding.py`` and ``llm.py`` because both clients share it.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import DualmemError, ProviderConfigError, ProviderError


def _mask(secret: str | None) -> str:
    return "None" if not secret else "'***'"


def _where(base_url: str | None) -> str:
    return base_url if base_url else "the OpenAI API"


def make_openai_client(base_url: str | None, api_key: str | None, timeout: float, max_retries: int,
                       *, key_env: str) -> Any:
    """An ``openai.OpenAI`` client; a clear ``ProviderConfigError`` when OpenAI needs a key."""
    import openai

    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        if base_url is None:
            raise ProviderConfigError(
                f"no API key for the OpenAI API: set {key_env} or OPENAI_API_KEY, or set a base URL "
                "of an OpenAI-compatible server that needs no key")
        key = "no-key-needed"  # local servers ignore it; the client insists on some value
    return openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=max_retries)


def openai_error(exc: BaseException, *, who: str, base_url: str | None, timeout: float,
                 key_env: str, url_env: str) -> DualmemError:
    """Translate an exception from the ``openai`` client into a ``ProviderError`` that says what
    to do. Errors of dualmem's own pass through; the API key never appears in the message."""
    import openai

    if isinstance(exc, DualmemError):
        return exc
    detail = _short(getattr(exc, "message", None) or str(exc))
    if isinstance(exc, openai.AuthenticationError):
        return ProviderError(f"{who} rejected the API key (HTTP 401): set {key_env} or OPENAI_API_KEY "
                             f"to a valid key for this endpoint. Server said: {detail}")
    if isinstance(exc, openai.PermissionDeniedError):
        return ProviderError(f"{who} refused access (HTTP 403); the key may not be allowed to use "
                             f"this model. Server said: {detail}")
    if isinstance(exc, openai.NotFoundError):
        return ProviderError(f"{who} answered 404: check the model name, and that the base URL ends "
                             f"in /v1 ({url_env}). Server said: {detail}")
    if isinstance(exc, openai.RateLimitError):
        return ProviderError(f"{who} is rate limiting or out of quota (HTTP 429) after retries; wait, "
                             f"lower the concurrency, or check the account. Server said: {detail}")
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(f"{who} did not answer within {timeout:g}s; raise the timeout or check "
                             "that the server is not overloaded")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        reason = f" ({_short(str(cause))})" if cause else ""
        return ProviderError(f"could not connect to {who}{reason}. Is the server running, and is "
                             f"{url_env} (or the base_url) right?")
    if isinstance(exc, openai.APIStatusError):
        return ProviderError(f"{who} failed with HTTP {exc.status_code}: {detail}")
    if isinstance(exc, openai.APIResponseValidationError):
        return ProviderError(f"{who} sent an answer that is not the OpenAI shape: {detail}")
    if isinstance(exc, openai.OpenAIError):
        return ProviderError(f"{who}: {detail}")
    return ProviderError(f"{who} failed unexpectedly: {type(exc).__name__}: {_short(str(exc))}")


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
