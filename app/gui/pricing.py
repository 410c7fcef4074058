"""List prices (US dollars per million tokens) of well-known models, for the gauge's cost estimate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.models import Message, MessageType


@dataclass(frozen=True)
class Price:
    """Dollars per million input, output and cache-read tokens."""

    input: float
    output: float
    cache_read: float


# Longest prefix wins; prices as published by the vendors (standard tier, prompts under 200K tokens).
PRICES: dict[str, Price] = {
    "claude-opus-4-5": Price(5.0, 25.0, 0.50),
    "claude-opus-4": Price(15.0, 75.0, 1.50),
    "claude-sonnet-4": Price(3.0, 15.0, 0.30),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.0, 0.08),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4o": Price(2.50, 10.0, 1.25),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1": Price(2.0, 8.0, 0.50),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "o1": Price(15.0, 60.0, 7.50),
    "gemini-2.5-pro": Price(1.25, 10.0, 0.31),
    "gemini-2.5-flash": Price(0.30, 2.50, 0.075),
    "gemini-2.0-flash": Price(0.10, 0.40, 0.025),
}


def price_of(model_id: str | None) -> Price | None:
    """The price of a model by the longest matching id prefix; None when unknown (e.g. local models)."""
    if not model_id:
        return None
    matches = [prefix for prefix in PRICES if model_id.startswith(prefix)]
    return PRICES[max(matches, key=len)] if matches else None


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
        total += ((prompt - cached) * price.input + cached * price.cache_read + (m.output_tokens or 0) * price.output)
    return total / 1_000_000
