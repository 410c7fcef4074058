"""The models a chat turn reads and the server's list it stores, over sqlite3 (data.db.ai_models' contract; the
user's and learned windows through the full store)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data.db.capabilities_json import capabilities_from_json, capabilities_to_json, merged
from data.db.mappers import model_to_domain, retirement_day
from data.db.model_resolution import fetched_source, resolved, with_retirement
from data.lite.db import LiteDatabase
from data.lite.fallback import Delegating
from data.registry import Registry
from domain.errors import NotFound
from domain.models import AiModel, ModelId, ModelSource, ProviderId

_SELECT = ("SELECT id, provider_id, display_name, is_default, source, context_window_size, max_output_tokens,"
           " window_is_guess, user_window, window_source, input_limit, capabilities, trained_window, retires_on"
           " FROM models")
_ORDER = " ORDER BY provider_id, is_default DESC, id"
_INSERT = ("INSERT INTO models (id, provider_id, display_name, is_default, source, context_window_size,"
           " max_output_tokens, window_is_guess, user_window, window_source, input_limit, trained_window,"
           " capabilities, retires_on) VALUES (?, ?, ?, 0, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)")


class LiteModelRepository(Delegating):
    """Models of providers: reads, resolution and the fetched list; windows set or learned through the full store."""

    def __init__(self, db: LiteDatabase, full: Any, registry: Registry) -> None:
        super().__init__(db, full)
        self._db = db
        self._registry = registry

    def list(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        if provider_id is None:
            rows = self._db.records(_SELECT + _ORDER)
        else:
            rows = self._db.records(_SELECT + " WHERE provider_id = ?" + _ORDER, (provider_id,))
        return [with_retirement(model_to_domain(r), self._registry) for r in rows]

    def get(self, provider_id: ProviderId, model_id: ModelId) -> AiModel | None:
        row = self._db.record(_SELECT + " WHERE id = ? AND provider_id = ?", (model_id, provider_id))
        return model_to_domain(row) if row else None

    def resolve(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        return resolved(self.get(provider_id, model_id), self._registry, provider_id, model_id)

    def store_fetched(self, provider_id: ProviderId, models: Sequence[AiModel]) -> None:
        with self._db.write():
            if self._db.value("SELECT 1 FROM providers WHERE id = ?", (provider_id,)) is None:
                raise NotFound("provider", provider_id)
            for model in models:
                row = self._db.record(_SELECT + " WHERE id = ? AND provider_id = ?", (model.id, provider_id))
                if row is None:
                    self._db.run(_INSERT, (model.id, provider_id, model.display_name, ModelSource.FETCHED.value,
                                           model.context_window_size, model.max_output_tokens,
                                           fetched_source(model).value, model.input_limit, model.trained_window,
                                           capabilities_to_json(model.capabilities), retirement_day(model)))
                    continue
                values: dict[str, Any] = {
                    "display_name": model.display_name or row.display_name, "retires_on": retirement_day(model),
                    "capabilities": capabilities_to_json(merged(capabilities_from_json(row.capabilities),
                                                                model.capabilities))}
                if not row.user_window:
                    if model.context_window_size:
                        values.update(context_window_size=model.context_window_size, window_is_guess=False,
                                      window_source=fetched_source(model).value,
                                      trained_window=model.trained_window)
                    if model.input_limit:
                        values["input_limit"] = model.input_limit
                    if model.max_output_tokens:
                        values["max_output_tokens"] = model.max_output_tokens
                sets = ", ".join(f"{name} = :{name}" for name in values)
                self._db.run(f"UPDATE models SET {sets} WHERE id = :mid AND provider_id = :pid",
                             {**values, "mid": model.id, "pid": provider_id})
