"""List providers: every configured provider with where its key comes from (never the key itself)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.models import Provider
from domain.ports import ApiKeyStorage, KeySource, ProviderRepository


@dataclass(frozen=True)
class ProviderListing:
    """A provider and the source of its key (None when it has none)."""

    provider: Provider
    key_source: KeySource | None
    env_vars: tuple[str, ...] = ()


class ListProvidersUseCase:
    """Lists the providers in their stored order."""

    def __init__(self, providers: ProviderRepository, keys: ApiKeyStorage) -> None:
        self._providers = providers
        self._keys = keys

    def __call__(self) -> Sequence[ProviderListing]:
        """Every provider with its key source."""
        return [
            ProviderListing(p, self._keys.source(p.id), self._keys.env_var_names(p.id)) for p in self._providers.list()
        ]
