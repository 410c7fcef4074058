"""Discover a model on first use: a model neither the registry nor the provider's list has described yet is looked
up once in its provider's model list, so its real window and capabilities apply from its first request."""

from __future__ import annotations

import asyncio

from domain.errors import PalimpsestError
from domain.models import AiModel, CapabilitySource, ModelId, Provider, ProviderId, WindowSource
from domain.ports import ModelRepository
from domain.services.adapters import ProviderAdapters

LOOKUP_TIMEOUT_S = 8.0  # the turn waits this long at most before going on with the guesses
DESCRIBED = (CapabilitySource.PROVIDER_API, CapabilitySource.REGISTRY, CapabilitySource.USER)


def undescribed(model: AiModel) -> bool:
    """Whether only guesses describe the model: its window is a guess or its thinking form comes from a family
    pattern (or nothing), and neither the user nor the provider's list has said otherwise."""
    if model.window_source in (WindowSource.USER, WindowSource.PROVIDER_API, WindowSource.SERVER):
        return False
    caps = model.capabilities
    return model.window_is_guess or caps is None or caps.source("thinking") not in DESCRIBED


class DiscoverModelUseCase:
    """Asks a provider's model list, at most once per model and process, about a model only guesses describe;
    stores what it says (window, output limit, capabilities) and returns the model as now known, or None."""

    def __init__(self, models: ModelRepository, adapters: ProviderAdapters) -> None:
        self._models = models
        self._adapters = adapters
        self._asked: set[tuple[ProviderId, ModelId]] = set()

    async def __call__(self, provider: Provider, model: AiModel) -> AiModel | None:
        """The model after discovery; None when there was nothing to learn (or the provider could not say)."""
        key = (provider.id, model.id)
        if key in self._asked or not undescribed(model):
            return None
        self._asked.add(key)
        try:
            listed = await asyncio.wait_for(self._adapters.for_provider(provider).list_models(), LOOKUP_TIMEOUT_S)
        except (PalimpsestError, TimeoutError):  # no key yet, offline, no model list, too slow: the guesses stay
            return None
        found = [m for m in listed if m.id == model.id]
        if not found:
            return None
        self._models.store_fetched(provider.id, found)
        return self._models.resolve(provider.id, model.id)
