"""Error mapping shared by the adapters: overflow parsing, retry-after, transport failures, key scrubbing."""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from data.providers.network_errors import is_transport_failure as is_transport_failure  # re-exported
from data.providers.network_errors import network_error as network_error  # re-exported
from data.providers.network_errors import network_reason as network_reason  # re-exported
from data.providers.network_errors import public_url as public_url  # re-exported
from data.providers.network_errors import request_url as request_url  # re-exported
from data.providers.web_page_errors import WEB_PAGE_HOOKS as WEB_PAGE_HOOKS  # re-exported
from data.providers.web_page_errors import WebPageAnswer as WebPageAnswer  # re-exported
from data.providers.web_page_errors import looks_like_html as looks_like_html  # re-exported
from data.providers.web_page_errors import page_url as page_url  # re-exported
from data.providers.web_page_errors import reject_web_pages as reject_web_pages  # re-exported
from data.providers.web_page_errors import web_page_error as web_page_error  # re-exported
from data.providers.web_page_errors import web_page_message as web_page_message  # re-exported
from data.redaction import redact
from domain.errors import (
    AuthenticationFailed,
    BillingError,
    ContextOverflow,
    InvalidResponse,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)


@dataclass(frozen=True)
class _Wording:
    """One provider wording of an overflow: its pattern and how its numbers read (the group of the input tokens,
    of the limit, of the output reserve when the body adds one, whether the limit is an input-only limit) and the
    sentence that restates the body's own figures."""

    pattern: re.Pattern[str]
    tokens: int
    limit: int
    stated: str  # format string over {tokens}, {limit} and {extra}
    extra: int | None = None
    input_limit: bool = False


_FLAGS = re.I | re.S
_OVERFLOW_WORDINGS: tuple[_Wording, ...] = (
    # Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
    _Wording(re.compile(r"prompt is too long:\s*(\d+)\s*tokens?\s*>\s*(\d+)", re.I), 1, 2,
             "{tokens:,} tokens > {limit:,} maximum"),
    # OpenAI GPT-5 family (Responses and Chat Completions): "Input tokens exceed the configured limit of 272000
    # tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages."
    _Wording(re.compile(r"input tokens exceed the configured limit of\s*(\d+)\s*tokens?.*?resulted in\s*(\d+)",
                        _FLAGS), 2, 1, "{tokens:,} input tokens > the {limit:,}-token input limit", input_limit=True),
    # OpenAI: "... maximum context length is 128000 tokens. However, you requested 130000 tokens (120000 in the
    # messages, 10000 in the completion)." (also vLLM)
    _Wording(re.compile(r"maximum context length is\s*(\d+)\s*tokens?.*?\((\d+) in the messages,\s*(\d+) in the "
                        r"completion", _FLAGS), 2, 1,
             "{tokens:,} tokens in the messages + {extra:,} in the completion > the {limit:,}-token context length",
             extra=3),
    # OpenAI: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens"
    _Wording(re.compile(r"maximum context length is\s*(\d+)\s*tokens?.*?resulted in\s*(\d+)\s*tokens?", _FLAGS),
             2, 1, "{tokens:,} tokens in the messages > the {limit:,}-token context length"),
    # Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    _Wording(re.compile(r"input token count\s*\(?(\d+)\)?\s*exceeds the maximum number of tokens allowed\s*\(?(\d+)",
                        re.I), 1, 2, "{tokens:,} input tokens > {limit:,} allowed"),
    # Anthropic variant: "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000"
    _Wording(re.compile(r"exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)", re.I), 1, 3,
             "{tokens:,} input tokens + {extra:,} max_tokens > the {limit:,}-token context limit", extra=2),
    # OpenRouter and others: "maximum context length is M tokens. However, you requested about N tokens"
    _Wording(re.compile(r"maximum context length is\s*(\d+)\s*tokens?.*?requested (?:about )?(\d+)\s*tokens?", _FLAGS),
             2, 1, "{tokens:,} tokens requested > the {limit:,}-token context length"),
    # llama.cpp: "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it"
    _Wording(re.compile(r"request \((\d+) tokens?\) exceeds the available context size \((\d+) tokens?\)", re.I),
             1, 2, "{tokens:,} tokens > the {limit:,}-token context size the server was started with"),
    # LM Studio: "Trying to keep the first N tokens when context the overflows. However, the model is loaded with
    # context length of only M tokens"
    _Wording(re.compile(r"keep the first\s*(\d+)\s*tokens.*?context length of only\s*(\d+)", _FLAGS), 1, 2,
             "{tokens:,} tokens > the {limit:,}-token context length the model is loaded with"),
)
_OVERFLOW_HINTS = (
    "context_length_exceeded",
    "prompt is too long",
    "maximum context length",
    "exceeds the maximum number of tokens",
    "exceed context limit",
    "context window",
    "context length",
    "context size",  # llama.cpp: "the request exceeds the available context size"
    "exceed_context_size_error",
    "exceeds the context window",  # OpenAI Responses: "Your input exceeds the context window of this model."
    "exceed the configured limit",
)


def overflow_from_message(message: str, code: str | None = None) -> ContextOverflow | None:
    """A ContextOverflow if the message says so, with the input tokens and the limit when the message states them
    (an input-only limit marked as such) and the message's own figures restated exactly.

    Knows the three providers' messages and those of common OpenAI-compatible servers (vLLM, OpenRouter,
    LM Studio, llama.cpp); the table of real bodies is in tests/providers/test_overflow_bodies.py."""
    for wording in _OVERFLOW_WORDINGS:
        match = wording.pattern.search(message)
        if match:
            tokens, limit = int(match.group(wording.tokens)), int(match.group(wording.limit))
            extra = int(match.group(wording.extra)) if wording.extra is not None else 0
            return ContextOverflow(tokens=tokens, limit=limit, input_limit=wording.input_limit,
                                   stated=wording.stated.format(tokens=tokens, limit=limit, extra=extra))
    lowered = message.lower()
    overflow_code = code in ("context_length_exceeded", "exceed_context_size_error")
    if overflow_code or any(hint in lowered for hint in _OVERFLOW_HINTS):
        return ContextOverflow()
    return None


BILLING_CODES = ("insufficient_quota", "billing_hard_limit_reached", "billing_not_active")


def is_billing(kind: str | None, code: str | None) -> bool:
    """True when an error body's type or code says the account is out of quota or credit."""
    return kind in BILLING_CODES or code in BILLING_CODES


def request_id_of(exc: BaseException) -> str | None:
    """The provider's request id of a failed SDK call: the SDK's own attribute, else the response's header."""
    rid = getattr(exc, "request_id", None)
    if isinstance(rid, str) and rid:
        return rid
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        for name in ("x-request-id", "request-id", "x-goog-request-id", "x-amzn-requestid"):
            value = headers.get(name)
            if isinstance(value, str) and value:
                return value
    return None


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from retry-after-ms / retry-after (seconds or an HTTP date), when present."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def transport_or_invalid(exc: BaseException, url: str | None = None) -> ProviderError | None:
    """NetworkError for a dropped or failed connection, InvalidResponse for unparseable data or a web page where
    an API answer belonged, else None."""
    page = web_page_error(exc)
    if page is not None:
        return page
    if is_transport_failure(exc):
        return network_error(exc, url)
    if isinstance(exc, json.JSONDecodeError):
        return InvalidResponse("The provider sent a malformed response that could not be read.")
    return None


def error_fields(body: Any) -> tuple[str, str, str | None]:
    """(type, message, code) from a JSON error body of any of the three providers; blanks when absent."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            kind = str(inner.get("type") or inner.get("status") or "")
            message = str(inner.get("message") or "")
            code = inner.get("code")
            return kind, message, str(code) if code is not None else None
        if isinstance(inner, str):
            return "", inner, None
    if isinstance(body, str):
        return "", body, None
    return "", "", None


def scrub(error: ProviderError, secret: str | None) -> ProviderError:
    """The same error with the adapter's key, and every registered secret (data.redaction), removed from it."""
    cleaned = redact(error.message, secret)
    if cleaned != error.message or any(redact(str(arg), secret) != str(arg) for arg in error.args):
        error.message = cleaned
        error.args = (cleaned,)
    return error


def short(text: str, limit: int = 300) -> str:
    """Provider text trimmed for an error message (secrets redacted first, so a cut never leaves half a key)."""
    text = " ".join(redact(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_error(
    provider_name: str,
    status: int,
    message: str,
    *,
    code: str | None = None,
    auth: bool = False,
    overloaded: bool = False,
    rate_limited: bool = False,
    retry_after: float | None = None,
    billing: bool = False,
    billing_page: str | None = None,
) -> ProviderError:
    """The domain error for an HTTP error answer, once the adapter has read its provider's flags from the body."""
    if billing:  # before the 429 check: OpenAI answers an empty account with 429, and waiting will not fix it
        return BillingError(provider_name, billing_page)
    if overloaded:
        return ProviderUnavailable(f"{provider_name} is overloaded")
    if auth or status in (401, 403):
        return AuthenticationFailed(provider_name)
    if rate_limited or status == 429:
        return RateLimited(retry_after)
    overflow = overflow_from_message(message, code) if status in (200, 400, 413) else None
    if overflow is not None:
        return overflow
    if status == 413:  # the request body itself is too large: too much context, compaction helps
        return ContextOverflow()
    if status >= 500:
        return ProviderUnavailable(f"{provider_name} answered HTTP {status}")
    if status == 404:
        return ModelNotFound(f"{provider_name} does not know that model or endpoint: {short(message)}")
    return InvalidResponse(f"{provider_name} refused the request: {short(message or str(status))}")
