"""A model's window as an OpenAI-compatible server's model list states it, in each server's own field: vLLM's
`max_model_len` (the length it serves the model with), OpenRouter's `context_length` and `top_provider.context_length`,
Together's and Fireworks' `context_length`, Groq's `context_window`, Mistral's `max_context_length`, and LiteLLM's
`model_info` (`max_input_tokens`, or the legacy `max_tokens`) in its /model/info."""

from __future__ import annotations

from typing import Any

from domain.models import ServerWindow, WindowSource


def positive(value: Any) -> int | None:
    """The value when it is a positive int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def entries(listing: Any) -> list[dict[str, Any]]:
    """The model entries of a list answer: {"data": [...]} (OpenAI's shape) or a bare array (Together's)."""
    items = listing.get("data") if isinstance(listing, dict) else listing
    return [item for item in items or () if isinstance(item, dict)] if isinstance(items, list) else []


def entry_for(listing: Any, model_id: str) -> dict[str, Any] | None:
    """The list's entry for the model, or None."""
    return next((e for e in entries(listing) if e.get("id") == model_id), None)


def listed_window(entry: dict[str, Any]) -> ServerWindow | None:
    """The window one entry of a model list states, or None when it names none."""
    served = positive(entry.get("max_model_len"))
    if served is not None:  # vLLM: --max-model-len, what it serves the model with
        return ServerWindow("vLLM", served, None, WindowSource.PROVIDER_API)
    top = entry.get("top_provider")
    top_length = positive(top.get("context_length")) if isinstance(top, dict) else None
    length = positive(entry.get("context_length"))
    if top_length is not None or (length is not None and isinstance(top, dict)):
        # OpenRouter: the model's longest context and the one of the provider requests go to first; the smaller holds
        window = min(w for w in (length, top_length) if w is not None)
        return ServerWindow("OpenRouter", window, None, WindowSource.PROVIDER_API)
    if length is not None:
        return ServerWindow("listed", length, None, WindowSource.PROVIDER_API)  # Together, Fireworks
    groq = positive(entry.get("context_window"))
    if groq is not None:
        return ServerWindow("Groq", groq, None, WindowSource.PROVIDER_API)
    mistral = positive(entry.get("max_context_length"))
    if mistral is not None:
        return ServerWindow("Mistral", mistral, None, WindowSource.PROVIDER_API)
    info = entry.get("model_info")
    return litellm_window(info) if isinstance(info, dict) else None


def litellm_window(info: dict[str, Any]) -> ServerWindow | None:
    """LiteLLM's model_info: `max_input_tokens` is the input limit (its map's figure for the window too); the legacy
    `max_tokens` is the output limit when `max_output_tokens` is given, else the input limit."""
    limit = positive(info.get("max_input_tokens"))
    if limit is None and positive(info.get("max_output_tokens")) is None:
        limit = positive(info.get("max_tokens"))
    if limit is None:
        return None
    return ServerWindow("LiteLLM", limit, None, WindowSource.PROVIDER_API, input_limit=limit)


def litellm_model_window(answer: Any, model_id: str) -> ServerWindow | None:
    """The window LiteLLM's /model/info gives a model name: the smallest of its deployments'."""
    found = [litellm_window(e["model_info"]) for e in entries(answer)
             if e.get("model_name") == model_id and isinstance(e.get("model_info"), dict)]
    windows = [w for w in found if w is not None]
    return min(windows, key=lambda w: w.loaded) if windows else None
