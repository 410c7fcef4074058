"""The Summarizer port implemented over a provider's adapter and its stored key."""

from __future__ import annotations

from domain.errors import NotFound
from domain.models import ModelId, ProviderId
from domain.ports import ApiKeyStorage, ModelApiAdapterFactory, ProviderRepository


class AdapterSummarizer:
    """Summarizes with `generate_simple_completion` of the given provider's model, keyed from the keychain."""

    def __init__(
        self, providers: ProviderRepository, keys: ApiKeyStorage, adapters: ModelApiAdapterFactory
    ) -> None:
        self._providers = providers
        self._keys = keys
        self._adapters = adapters

    async def summarize(
        self, *, provider_id: ProviderId, model_id: ModelId, system: str, prompt: str, max_tokens: int
    ) -> str:
        """Returns the model's text (possibly blank); raises NotFound or the adapter's ProviderError."""
        provider = self._providers.get(provider_id)
        if provider is None:
            raise NotFound("provider", provider_id)
        adapter = self._adapters.create(provider, self._keys.get(provider.id))
        return await adapter.generate_simple_completion(model_id, prompt, system=system, max_tokens=max_tokens)
