"""ModelRepository over SQLite: stored models, registry guesses, and windows learned or set by the user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session as OrmSession

from data.db.capabilities_json import capabilities_from_json, capabilities_to_json, merged
from data.db.engine import Database, keyed_select
from data.db.mappers import model_onto_row, model_to_domain, retirement_day
from data.db.model_resolution import fetched_source as _fetched_source
from data.db.model_resolution import resolved, with_retirement
from data.db.rows import ModelRow, ProviderRow
from data.registry import Registry
from domain.errors import InvalidInput, NotFound
from domain.models import AiModel, ModelId, ModelSource, ProviderId, WindowSource

_GET = keyed_select(ModelRow, "id", "provider_id")
# windows `clear_window` drops: set by the user or inferred by the app, never reported by the provider or a server
CLEARABLE = frozenset({WindowSource.USER.value, WindowSource.LEARNED.value, WindowSource.GUESSED.value})

class SqlModelRepository:
    """Models of providers; a user-set window always wins over presets, fetched lists and learned limits."""

    def __init__(self, db: Database, registry: Registry) -> None:
        self._db = db
        self._registry = registry

    def list(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        query = select(ModelRow).order_by(ModelRow.provider_id, ModelRow.is_default.desc(), ModelRow.id)
        if provider_id is not None:
            query = query.where(ModelRow.provider_id == provider_id)
        with self._db.read() as s:
            return [with_retirement(model_to_domain(r), self._registry) for r in s.scalars(query)]

    def get(self, provider_id: ProviderId, model_id: ModelId) -> AiModel | None:
        row = self._db.first(_GET, {"id": model_id, "provider_id": provider_id})
        return model_to_domain(row) if row else None

    def resolve(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        return self._db.cached(("model", provider_id, model_id), lambda: self._resolve(provider_id, model_id))

    def _resolve(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        return resolved(self.get(provider_id, model_id), self._registry, provider_id, model_id)

    def upsert(self, model: AiModel) -> AiModel:
        """Inserts or replaces a model; an existing user-set window survives unless `model` is user-set too."""
        _check_sizes(model.context_window_size, model.max_output_tokens)
        with self._db.write() as s:
            _require_provider(s, model.provider_id)
            row = s.get(ModelRow, (model.id, model.provider_id))
            if row is None:
                row = ModelRow(id=model.id, provider_id=model.provider_id)
                model_onto_row(model, row)
                s.add(row)
            else:
                keep = bool(row.user_window) and not model.user_window
                window, max_output = row.context_window_size, row.max_output_tokens
                model_onto_row(model, row)
                if keep:
                    row.context_window_size, row.max_output_tokens = window, max_output
                    row.user_window, row.window_is_guess = True, False
            s.flush()
            return model_to_domain(row)

    def store_fetched(self, provider_id: ProviderId, models: Sequence[AiModel]) -> None:
        with self._db.write() as s:
            _require_provider(s, provider_id)
            for model in models:
                row = s.get(ModelRow, (model.id, provider_id))
                if row is None:
                    s.add(ModelRow(id=model.id, provider_id=provider_id, display_name=model.display_name,
                                   is_default=False, source=ModelSource.FETCHED.value,
                                   context_window_size=model.context_window_size,
                                   max_output_tokens=model.max_output_tokens, window_is_guess=False,
                                   user_window=False,
                                   window_source=_fetched_source(model).value,
                                   input_limit=model.input_limit, trained_window=model.trained_window,
                                   capabilities=capabilities_to_json(model.capabilities),
                                   retires_on=retirement_day(model)))
                    continue
                row.display_name = model.display_name or row.display_name
                row.retires_on = retirement_day(model)  # the list's answer now (a revised or withdrawn day too)
                row.capabilities = capabilities_to_json(merged(capabilities_from_json(row.capabilities),
                                                               model.capabilities))
                if row.user_window:
                    continue
                if model.context_window_size:
                    row.context_window_size, row.window_is_guess = model.context_window_size, False
                    row.window_source = _fetched_source(model).value
                    row.trained_window = model.trained_window
                if model.input_limit:
                    row.input_limit = model.input_limit
                if model.max_output_tokens:
                    row.max_output_tokens = model.max_output_tokens

    def set_user_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None = None
    ) -> AiModel:
        _check_sizes(window, max_output)
        with self._db.write() as s:
            _require_provider(s, provider_id)
            row = s.get(ModelRow, (model_id, provider_id))
            if row is None:
                row = ModelRow(id=model_id, provider_id=provider_id, display_name=None, is_default=False,
                               source=ModelSource.USER.value)
                s.add(row)
            row.context_window_size, row.user_window, row.window_is_guess = window, True, False
            row.window_source = WindowSource.USER.value
            if max_output is not None:
                row.max_output_tokens = max_output
            s.flush()
            return model_to_domain(row)

    def record_limit(
        self, provider_id: ProviderId, model_id: ModelId, limit: int, *, input_only: bool = False,
        source: WindowSource = WindowSource.LEARNED,
    ) -> None:
        _check_sizes(limit, None)
        with self._db.write() as s:
            _require_provider(s, provider_id)
            row = s.get(ModelRow, (model_id, provider_id))
            if input_only:  # the window stays; the input limit is what the provider named
                if row is None:
                    s.add(_learned_row(model_id, provider_id, input_limit=limit))
                else:
                    row.input_limit = limit
                return
            if row is None:
                s.add(_learned_row(model_id, provider_id, context_window_size=limit, window_source=source.value))
            elif not row.user_window:
                row.context_window_size, row.window_is_guess = limit, False
                row.window_source = source.value

    def record_server_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, trained: int | None = None
    ) -> AiModel:
        _check_sizes(window, None)
        with self._db.write() as s:
            _require_provider(s, provider_id)
            row = s.get(ModelRow, (model_id, provider_id))
            if row is None:
                row = _learned_row(model_id, provider_id)
                s.add(row)
            row.trained_window = trained
            if not row.user_window:
                row.context_window_size, row.window_is_guess = window, False
                row.window_source = WindowSource.SERVER.value
                if row.max_output_tokens is not None and row.max_output_tokens >= window:
                    row.max_output_tokens = None  # a trained model's output limit cannot exceed what is loaded
            s.flush()
            return model_to_domain(row)

    def clear_window(self, provider_id: ProviderId, model_id: ModelId) -> None:
        with self._db.write() as s:
            _require_provider(s, provider_id)
            row = s.get(ModelRow, (model_id, provider_id))
            if row is None or not (row.user_window or row.window_source in CLEARABLE):
                return
            row.context_window_size, row.user_window, row.window_is_guess = None, False, False
            row.window_source = WindowSource.REGISTRY.value


def _check_sizes(window: int | None, max_output: int | None) -> None:
    if window is not None and window <= 0:
        raise InvalidInput(f"A context window must be a positive number of tokens, not {window}.")
    if max_output is not None and max_output <= 0:
        raise InvalidInput(f"Maximum output must be a positive number of tokens, not {max_output}.")
    if window is not None and max_output is not None and max_output >= window:
        raise InvalidInput(f"Maximum output ({max_output}) must be smaller than the context window ({window}).")


def _require_provider(s: OrmSession, provider_id: ProviderId) -> None:
    if s.get(ProviderRow, provider_id) is None:
        raise NotFound("provider", provider_id)


def _learned_row(model_id: ModelId, provider_id: ProviderId, **fields: Any) -> ModelRow:
    """A row for a model the store learns of from a provider (an error, a server) before any list named it."""
    return ModelRow(id=model_id, provider_id=provider_id, display_name=None, is_default=False,
                    source=ModelSource.FETCHED.value, window_is_guess=False, user_window=False, **fields)
