"""Delete API key: remove a provider's key from the OS keychain."""

from __future__ import annotations

from domain.lookup import require_provider
from domain.models import Provider
from domain.ports import ApiKeyStorage, ProviderRepository


class DeleteApiKeyUseCase:
    """Deletes a provider's keychain entry (an environment variable, if set, still applies)."""

    def __init__(self, providers: ProviderRepository, keys: ApiKeyStorage) -> None:
        self._providers = providers
        self._keys = keys

    def __call__(self, provider: str) -> Provider:
        """The provider whose key was removed."""
        found = require_provider(self._providers, provider)
        self._keys.delete(found.id)
        return found
