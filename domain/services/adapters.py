"""Adapters by provider, in one place: the provider's SDK adapter with its key and base URL."""

from __future__ import annotations

from domain.errors import NotFound
from domain.models import Provider, ProviderId
from domain.ports import ApiKeyStorage, ProviderRepository
from domain.provider_ports import ModelApiAdapter, ModelApiAdapterFactory


class ProviderAdapters:
    """Looks a provider up, reads its key (keychain, then environment) and builds (or reuses) its adapter."""

    def __init__(
        self, providers: ProviderRepository, keys: ApiKeyStorage, factory: ModelApiAdapterFactory
    ) -> None:
        self._providers = providers
        self._keys = keys
        self._factory = factory

    def for_provider(self, provider: Provider | ProviderId) -> ModelApiAdapter:
        """The adapter for a provider (or its id); NotFound for an unknown id."""
        if not isinstance(provider, Provider):
            found = self._providers.get(provider)
            if found is None:
                raise NotFound("provider", provider)
            provider = found
        return self._factory.create(provider, self._keys.get(provider.id))
