"""Refresh models: fetch a provider's model list and store it without overriding windows the user set."""

from __future__ import annotations

from collections.abc import Sequence

from domain.lookup import require_provider
from domain.models import AiModel
from domain.ports import ModelRepository, ProviderRepository
from domain.services.adapters import ProviderAdapters


class RefreshModelsUseCase:
    """Asks a provider for its models and stores them as fetched; provider errors propagate as domain errors."""

    def __init__(self, providers: ProviderRepository, models: ModelRepository, adapters: ProviderAdapters) -> None:
        self._providers = providers
        self._models = models
        self._adapters = adapters

    async def __call__(self, provider: str) -> Sequence[AiModel]:
        """The provider's stored models after the refresh."""
        found = require_provider(self._providers, provider)
        adapter = self._adapters.for_provider(found)
        fetched = await adapter.list_models()
        self._models.store_fetched(found.id, fetched)
        return self._models.list(found.id)
