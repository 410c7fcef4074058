"""Sampling requests of MCP servers, run on the model of the conversation the current command uses."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from domain.context.estimator import chars_over_four
from domain.errors import InvalidInput
from domain.mcp_interaction import SamplingEstimate, SamplingReply, SamplingRequest
from domain.models import ModelId, ProviderId
from domain.provider_ports import Summarizer


class ConversationSampler:
    """An McpSampler: runs an approved request through the Summarizer on `use(...)`'s provider and model, on the
    loop that chose them (the providers' clients belong to it; the MCP servers run on their own loop)."""

    def __init__(self, summarizer: Summarizer, *, count_tokens: Callable[[str], int] | None = None,
                 price: Callable[[ModelId], tuple[float, float] | None] | None = None) -> None:
        self._summarizer = summarizer
        self._count = count_tokens or chars_over_four
        self._price = price or (lambda model: None)  # USD per million input and output tokens
        self._target: tuple[ProviderId, ModelId, asyncio.AbstractEventLoop] | None = None

    def use(self, provider_id: ProviderId, model_id: ModelId) -> None:
        """The conversation's provider and model, from now on (called on the loop that talks to providers)."""
        self._target = (provider_id, model_id, asyncio.get_running_loop())

    def estimate(self, request: SamplingRequest) -> SamplingEstimate | None:
        """The model it would run on, its input tokens (estimated), its output limit and at most what it costs."""
        if self._target is None:
            return None
        model_id = self._target[1]
        tokens = self._count(_prompt(request)) + self._count(request.system or "")
        price = self._price(model_id)
        cost = (tokens * price[0] + request.max_tokens * price[1]) / 1_000_000 if price is not None else None
        return SamplingEstimate(model_id, tokens, request.max_tokens, cost)

    async def sample(self, request: SamplingRequest) -> SamplingReply:
        """The model's reply; InvalidInput when no conversation chose a model, else the provider's error."""
        if self._target is None:
            raise InvalidInput("No conversation's model is known, so the MCP server's request was not run.")
        provider_id, model_id, loop = self._target
        work = self._summarizer.summarize(provider_id=provider_id, model_id=model_id, system=request.system or "",
                                          prompt=_prompt(request), max_tokens=request.max_tokens)
        if loop is asyncio.get_running_loop():
            text = await work
        else:
            text = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))
        return SamplingReply(text, model_id)


def _prompt(request: SamplingRequest) -> str:
    return "\n\n".join(text if role == "user" else f"[{role}]\n{text}" for role, text in request.messages)
