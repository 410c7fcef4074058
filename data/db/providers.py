"""ProviderRepository over SQLite."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from urllib.parse import urlparse

from sqlalchemy import delete, func, select

from data.db.built_in import BUILT_IN_ORDER as BUILT_IN_ORDER  # re-exported
from data.db.engine import Database, keyed_select
from data.db.mappers import provider_to_domain
from data.db.rows import ModelRow, ProviderRow
from domain.errors import InvalidInput, NotFound
from domain.models import Provider, ProviderId, ProviderType

_GET = keyed_select(ProviderRow, "id")

class SqlProviderRepository:
    """Configured providers; the three built-in ones first, then the rest by name."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def list(self) -> Sequence[Provider]:
        with self._db.read() as s:
            rows = s.scalars(select(ProviderRow)).all()
            providers = [provider_to_domain(r) for r in rows]
        return sorted(providers, key=lambda p: (BUILT_IN_ORDER.get(p.id, 9), p.name.lower()))

    def get(self, provider_id: ProviderId) -> Provider | None:
        return self._db.cached(("provider", provider_id), lambda: self._get(provider_id))

    def _get(self, provider_id: ProviderId) -> Provider | None:
        row = self._db.first(_GET, {"id": provider_id})
        return provider_to_domain(row) if row else None

    def find(self, id_or_name: str) -> Provider | None:
        found = self.get(id_or_name)
        if found is not None:
            return found
        with self._db.read() as s:
            name = id_or_name.strip().lower()
            row = s.scalars(select(ProviderRow).where(func.lower(ProviderRow.name) == name)).first()
            return provider_to_domain(row) if row else None

    def add(self, provider: Provider) -> Provider:
        _validate(provider)
        now = datetime.now(UTC)
        with self._db.write() as s:
            if s.get(ProviderRow, provider.id) is not None:
                raise InvalidInput(f"A provider with id {provider.id!r} already exists.")
            s.add(ProviderRow(id=provider.id, name=provider.name.strip(), type=provider.type.value,
                              base_url=provider.base_url, is_active=provider.is_active, created_at=now, updated_at=now,
                              api=provider.api.value))
        return provider

    def update(self, provider: Provider) -> Provider:
        _validate(provider)
        with self._db.write() as s:
            row = s.get(ProviderRow, provider.id)
            if row is None:
                raise NotFound("provider", provider.id)
            row.name, row.type, row.base_url = provider.name.strip(), provider.type.value, provider.base_url
            row.is_active, row.updated_at = provider.is_active, datetime.now(UTC)
            row.api = provider.api.value
            return provider_to_domain(row)

    def delete(self, provider_id: ProviderId) -> None:
        with self._db.write() as s:
            row = s.get(ProviderRow, provider_id)
            if row is None:
                raise NotFound("provider", provider_id)
            s.execute(delete(ModelRow).where(ModelRow.provider_id == provider_id))
            s.delete(row)


def _validate(provider: Provider) -> None:
    if not provider.id.strip() or not provider.name.strip():
        raise InvalidInput("A provider needs a non-empty id and name.")
    if provider.base_url is not None:
        parsed = urlparse(provider.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidInput(f"The base URL {provider.base_url!r} is not an http(s) URL.")
    elif provider.type is ProviderType.OPENAI_COMPATIBLE:
        raise InvalidInput("An OpenAI-compatible provider needs a base URL, e.g. http://localhost:11434/v1.")
