"""List models: the known models of one provider or of all, with their context windows."""

from __future__ import annotations

from collections.abc import Sequence

from domain.lookup import require_provider
from domain.models import AiModel
from domain.ports import ModelRepository, ProviderRepository


class ListModelsUseCase:
    """Lists stored models (presets, fetched and user-added)."""

    def __init__(self, providers: ProviderRepository, models: ModelRepository) -> None:
        self._providers = providers
        self._models = models

    def __call__(self, provider: str | None = None) -> Sequence[AiModel]:
        """Models of the provider (id or name), or of every provider; NotFound for an unknown provider."""
        if provider is None:
            return self._models.list()
        return self._models.list(require_provider(self._providers, provider).id)
