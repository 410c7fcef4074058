"""Set API key: store a provider's key in the OS keychain (never in the database, never echoed)."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_provider
from domain.models import Provider
from domain.ports import ApiKeyStorage, ProviderRepository

MAX_KEY_CHARS = 1_000


class SetApiKeyUseCase:
    """Stores a key; KeychainUnavailable when no keychain exists, InvalidInput for a blank or malformed key."""

    def __init__(self, providers: ProviderRepository, keys: ApiKeyStorage) -> None:
        self._providers = providers
        self._keys = keys

    def __call__(self, provider: str, key: str) -> Provider:
        """The provider the key was stored for."""
        found = require_provider(self._providers, provider)
        clean = key.strip()
        if not clean:
            raise InvalidInput("The API key is empty; paste the key and try again.")
        if len(clean) > MAX_KEY_CHARS or any(c.isspace() for c in clean):
            raise InvalidInput("That does not look like an API key (it has spaces or is far too long).")
        self._keys.set(found.id, clean)
        return found
