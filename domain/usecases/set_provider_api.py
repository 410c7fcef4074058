"""Set provider API: which OpenAI API an OpenAI or OpenAI-compatible provider speaks (Responses, Chat Completions,
or auto: Responses on OpenAI's own endpoint, Chat Completions elsewhere)."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import InvalidInput
from domain.lookup import require_provider
from domain.models import Provider, ProviderApi, ProviderType
from domain.ports import ProviderRepository

API_NAMES = {"responses": ProviderApi.RESPONSES, "chat-completions": ProviderApi.CHAT_COMPLETIONS,
             "chat_completions": ProviderApi.CHAT_COMPLETIONS, "auto": ProviderApi.AUTO}


class SetProviderApiUseCase:
    """Stores the API choice of an OpenAI-type provider."""

    def __init__(self, providers: ProviderRepository) -> None:
        self._providers = providers

    def __call__(self, provider: str, api: str) -> Provider:
        """The updated provider; NotFound for an unknown provider, InvalidInput for an unknown API or a provider
        that speaks only its own API."""
        found = require_provider(self._providers, provider)
        choice = API_NAMES.get(api.strip().lower())
        if choice is None:
            raise InvalidInput(f"Unknown API {api!r}: choose responses, chat-completions or auto.")
        if found.type not in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
            raise InvalidInput(f"{found.name} speaks only its own API; --api applies to OpenAI and "
                               "OpenAI-compatible providers.")
        return self._providers.update(replace(found, api=choice))
