"""The gauge's cost estimate, priced from the model registry's data file (the one list of prices)."""

from __future__ import annotations

from collections.abc import Sequence

from data.registry import ModelPrice, load_registry, normalize_model_id
from domain.models import Message, MessageType


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


def session_cost(messages: Sequence[Message], cache_read_ratio: float = 0.0) -> float | None:
    """Cost of a session's replies; cache reads (a session-wide share of input) at the cache price.

    None when any reply with token counts used a model whose price is unknown.
    """
    total = 0.0
    for m in messages:
        if m.type is not MessageType.AI_RESPONSE or not (m.input_tokens or m.output_tokens):
            continue
        price = price_of(m.model_id)
        if price is None:
            return None
        prompt = m.input_tokens or 0
        cached = prompt * cache_read_ratio
        cache_price = price.cache_read if price.cache_read is not None else price.input
        total += (prompt - cached) * price.input + cached * cache_price + (m.output_tokens or 0) * price.output
    return total / 1_000_000
