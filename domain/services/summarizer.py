"""The Summarizer port implemented over a provider's adapter."""

from __future__ import annotations

from domain.models import ModelId, ProviderId
from domain.services.adapters import ProviderAdapters


class AdapterSummarizer:
    """Summarizes with `generate_simple_completion` of the given provider's model."""

    def __init__(self, adapters: ProviderAdapters) -> None:
        self._adapters = adapters

    async def summarize(
        self, *, provider_id: ProviderId, model_id: ModelId, system: str, prompt: str, max_tokens: int
    ) -> str:
        """Returns the model's text (possibly blank); raises NotFound or the adapter's ProviderError."""
        adapter = self._adapters.for_provider(provider_id)
        return await adapter.generate_simple_completion(model_id, prompt, system=system, max_tokens=max_tokens)
