"""The replay benchmark's thinking-token share and cost in USD, priced from the model registry's data file."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.replay_run import RunResult
from bench.replay_servers import RequestRecord
from data.registry import ModelPrice, load_registry

MILLION = 1_000_000


@dataclass(frozen=True)
class Spend:
    """One strategy's output, reasoning and cost (None when a model it used has no registry price)."""

    name: str
    output_tokens: int
    reasoning_tokens: int
    chat_reasoning_tokens: int  # of the chat rounds only: what the app's turn usage adds up
    app_reasoning_tokens: int
    thinking_deltas: int
    reasoning_dropped: int
    cost_usd: float | None
    reasoning_cost_usd: float | None

    @property
    def thinking_share(self) -> float:
        """Reasoning tokens over output tokens."""
        return self.reasoning_tokens / self.output_tokens if self.output_tokens else 0.0


def price(model_id: str) -> ModelPrice | None:
    """The registry's price of a model (data/registry/models.json)."""
    return load_registry().price(model_id)


def record_cost(record: RequestRecord, p: ModelPrice) -> float:
    """USD of one billed request: uncached input at the input price, cache reads at the cache-read price (the input
    price where none is listed), output (reasoning included: all three providers bill it as output) at the output
    price. Refused requests are not billed."""
    if record.overflow:
        return 0.0
    cache_price = p.cache_read if p.cache_read is not None else p.input
    uncached = record.input_tokens - record.cached_tokens
    return (uncached * p.input + record.cached_tokens * cache_price + record.output_tokens * p.output) / MILLION


def spend_of(result: RunResult) -> Spend:
    """Sums one run's requests as the fake servers billed them."""
    billed = [r for r in result.records if not r.overflow]
    prices = {r.model: price(r.model) for r in billed}
    known = all(p is not None for p in prices.values())
    cost = sum(record_cost(r, p) for r in billed if (p := prices[r.model]) is not None) if known else None
    thinking = sum(r.reasoning_tokens * p.output for r in billed if (p := prices[r.model]) is not None) / MILLION \
        if known else None
    return Spend(result.name, sum(r.output_tokens for r in billed), sum(r.reasoning_tokens for r in billed),
                 sum(r.reasoning_tokens for r in billed if r.kind == "chat"), result.app_reasoning_tokens,
                 result.thinking_deltas, result.reasoning_dropped, cost, thinking)


def prices_used(models: Iterable[str]) -> str:
    """The prices the table uses, one line per model."""
    registry = load_registry()
    lines = []
    for model in sorted(set(models)):
        p = registry.price(model)
        if p is None:
            lines.append(f"- {model}: no price in the registry")
            continue
        cache = f"${p.cache_read:g}" if p.cache_read is not None else "the input price"
        lines.append(f"- {model}: ${p.input:g} input, ${p.output:g} output, {cache} cache read")
    as_of = registry.prices_as_of or "undated"
    return f"Prices (USD per million tokens, data/registry/models.json, as of {as_of}):\n\n" + "\n".join(lines)


def spend_table(spends: Sequence[Spend]) -> str:
    """Output, thinking share and cost per strategy."""
    lines = ["| strategy | output tokens | reasoning tokens | of them in chat rounds: billed / the app read "
             "| thinking share of output | thinking pieces shown | reasoning dropped and resent | cost USD "
             "| of which thinking |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in spends:
        cost = f"${s.cost_usd:.2f}" if s.cost_usd is not None else "-"
        thinking = f"${s.reasoning_cost_usd:.2f}" if s.reasoning_cost_usd is not None else "-"
        lines.append(f"| {s.name} | {s.output_tokens:,} | {s.reasoning_tokens:,} "
                     f"| {s.chat_reasoning_tokens:,} / {s.app_reasoning_tokens:,} "
                     f"| {s.thinking_share:.1%} | {s.thinking_deltas:,} | {s.reasoning_dropped} | {cost} "
                     f"| {thinking} |")
    return "\n".join(lines)


def by_model_table(result: RunResult) -> str:
    """One run's billed requests by model: how many thought, their output and reasoning tokens, their cost."""
    lines = [f"{result.name}, by model:", "",
             "| model | requests | of them with thinking | output tokens | reasoning tokens | thinking share "
             "| cost USD |",
             "|---|---|---|---|---|---|---|"]
    for model in sorted({r.model for r in result.records}):
        billed = [r for r in result.records if r.model == model and not r.overflow]
        p = price(model)
        output, reasoning = sum(r.output_tokens for r in billed), sum(r.reasoning_tokens for r in billed)
        cost = f"${sum(record_cost(r, p) for r in billed):.2f}" if p is not None else "-"
        share = f"{reasoning / output:.1%}" if output else "-"
        lines.append(f"| {model} | {len(billed)} | {sum(1 for r in billed if r.reasoning_tokens)} | {output:,} "
                     f"| {reasoning:,} | {share} | {cost} |")
    return "\n".join(lines)
