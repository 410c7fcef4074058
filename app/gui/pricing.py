"""The gauge's cost estimate, priced from the model registry's data file (the one list of prices)."""

from __future__ import annotations

from data.registry import ModelPrice, load_registry, normalize_model_id
from domain.usecases.session_usage import SessionUsage


def price_of(model_id: str | None) -> ModelPrice | None:
    """The registry price of a model: its own entry, else the longest registry id it extends (dated variants such as
    gpt-4o-2024-08-06), else a dated entry it is the alias of; None when unknown (e.g. local models)."""
    if not model_id:
        return None
    registry = load_registry()
    exact = registry.price(model_id)
    if exact is not None:
        return exact
    key = normalize_model_id(model_id)
    priced = [m for m in registry.models if m.price is not None and key.startswith(m.id.lower())]
    if priced:
        return max(priced, key=lambda m: len(m.id)).price
    dated = [m for m in registry.models if m.price is not None and m.id.lower().startswith(key + "-")]
    return dated[0].price if dated else None  # an undated alias (claude-opus-4-5) of a dated entry


def session_cost(usage: SessionUsage) -> float | None:
    """Cost of a session's replies; cache reads (a session-wide share of input) at the cache price; web searches
    at the provider's price per search.

    None when any model that reported tokens has an unknown price.
    """
    total = 0.0
    ratio = usage.cache_read_ratio
    for part in usage.by_model:
        price = price_of(part.model_id)
        if price is None:
            return None
        cached = part.input_tokens * ratio
        cache_price = price.cache_read if price.cache_read is not None else price.input
        total += (part.input_tokens - cached) * price.input + cached * cache_price + part.output_tokens * price.output
    total /= 1_000_000
    for model_id, count in usage.searches:
        price = price_of(model_id)
        if count and (price is None or price.web_search is None):
            return None
        total += count * (price.web_search or 0.0) if price is not None else 0.0
    return total
