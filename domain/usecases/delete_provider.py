"""Delete provider: removes an OpenAI-compatible endpoint with its models and stored key; built-in ones stay."""

from __future__ import annotations

from domain.errors import InvalidInput, KeychainUnavailable
from domain.lookup import require_provider
from domain.models import Provider, ProviderType
from domain.ports import ApiKeyStorage, ProviderRepository


class DeleteProviderUseCase:
    """Deletes a custom provider; sessions that used it keep every message and stay readable."""

    def __init__(self, providers: ProviderRepository, keys: ApiKeyStorage) -> None:
        self._providers = providers
        self._keys = keys

    def __call__(self, id_or_name: str) -> Provider:
        """The deleted provider; NotFound for an unknown one, InvalidInput for a built-in one."""
        provider = require_provider(self._providers, id_or_name)
        if provider.type is not ProviderType.OPENAI_COMPATIBLE:
            raise InvalidInput(
                f"{provider.name} is built in and cannot be deleted. To stop using it, delete its key "
                f"(palimpsest keys delete {provider.id}); to point it elsewhere, set its base URL."
            )
        self._providers.delete(provider.id)
        try:
            self._keys.delete(provider.id)
        except KeychainUnavailable:  # no usable keychain: no key can have been stored there
            pass
        return provider
