"""API key status: which providers have a key and from where; the key itself is never returned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.models import Provider
from domain.ports import ApiKeyStorage, KeySource


@dataclass(frozen=True)
class KeyStatus:
    """A provider and where its key comes from (None: no key)."""

    provider: Provider
    source: KeySource | None


@dataclass(frozen=True)
class KeyReport:
    """Every provider's key status, and the keychain's problem when it cannot be used."""

    statuses: tuple[KeyStatus, ...]
    keychain_problem: str | None


class ProviderList(Protocol):
    """The configured providers the report covers (a ProviderRepository, or a direct read of them)."""

    def list(self) -> Sequence[Provider]: ...


class ApiKeyStatusUseCase:
    """Reports key sources without ever reading a key out."""

    def __init__(self, providers: ProviderList, keys: ApiKeyStorage) -> None:
        self._providers = providers
        self._keys = keys

    def __call__(self) -> KeyReport:
        """The report."""
        statuses: Sequence[KeyStatus] = [KeyStatus(p, self._keys.source(p.id)) for p in self._providers.list()]
        return KeyReport(tuple(statuses), self._keys.keychain_problem())
