"""Set provider base URL: point a provider at another endpoint (a proxy, Ollama, LM Studio), or back to its default."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import InvalidInput
from domain.lookup import require_provider
from domain.models import Provider, ProviderType
from domain.ports import ProviderRepository
from domain.usecases.base_url import clean_base_url


class SetProviderBaseUrlUseCase:
    """Stores a provider's base URL; None (or blank) restores the SDK's default."""

    def __init__(self, providers: ProviderRepository) -> None:
        self._providers = providers

    def __call__(self, provider: str, base_url: str | None) -> Provider:
        """The updated provider; NotFound for an unknown provider, InvalidInput for a bad URL."""
        found = require_provider(self._providers, provider)
        url = clean_base_url(base_url) if base_url and base_url.strip() else None
        if url is None and found.type is ProviderType.OPENAI_COMPATIBLE:
            raise InvalidInput(f"{found.name} is an OpenAI-compatible provider and needs a base URL.")
        return self._providers.update(replace(found, base_url=url))
