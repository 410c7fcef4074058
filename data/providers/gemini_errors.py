"""The domain error for an exception raised by the google-genai SDK or its HTTP stack."""

from __future__ import annotations

import re
from typing import Any

from google.genai import errors as genai_errors

from data.providers.errors import error_fields, status_error, transport_or_invalid, web_page_error
from data.providers.gemini_files import UploadGone
from domain.errors import InvalidResponse, ProviderError, ReasoningRejected

_FILE_GONE = re.compile(r"permission to access the File \S+ or it may not exist", re.I)
_DELAY = re.compile(r"^\s*([\d.]+)s\s*$")
# "Corrupted thought signature." (a signature Gemini no longer accepts: another key, model or an altered part)
_BAD_SIGNATURE = re.compile(
    r"(corrupted|invalid|not valid)\W+(thought[ _]?)?signature|thought[ _]?signature is not valid", re.I
)


def _retry_delay(details: Any) -> float | None:
    error = details.get("error", {}) if isinstance(details, dict) else {}
    for detail in error.get("details", []) if isinstance(error, dict) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DELAY.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def map_gemini_error(exc: BaseException, provider_name: str = "Gemini", url: str | None = None) -> ProviderError:
    """The domain error for an exception raised by the google-genai SDK or its HTTP stack (`url`: the base URL,
    named by a network failure that carries no request)."""
    if isinstance(exc, ProviderError):
        return exc
    page = web_page_error(exc)
    if page is not None:
        return page
    if isinstance(exc, genai_errors.APIError):
        status, message, _ = error_fields(exc.details)
        code = exc.code or 0
        if code == 400 and _BAD_SIGNATURE.search(message):
            return ReasoningRejected(provider_name, message.strip().rstrip("."))
        if status == "PERMISSION_DENIED" and _FILE_GONE.search(message):
            return UploadGone(provider_name)
        key_invalid = "API_KEY_INVALID" in str(exc.details) or "api key not valid" in message.lower()
        return status_error(
            provider_name,
            code if code else 500,
            message,
            auth=key_invalid or status in ("UNAUTHENTICATED", "PERMISSION_DENIED"),
            overloaded=status == "UNAVAILABLE" and "overloaded" in message.lower(),
            rate_limited=status == "RESOURCE_EXHAUSTED",
            retry_after=_retry_delay(exc.details),
        )
    if isinstance(exc, genai_errors.UnknownApiResponseError):
        return InvalidResponse(f"{provider_name} sent a response that could not be read.")
    mapped = transport_or_invalid(exc, url)
    if mapped is not None:
        return mapped
    raise exc
