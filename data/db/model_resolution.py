"""A model as a turn uses it: the stored row completed from the registry (its entry, its family's guess), and the
window source of a listed model (shared by data/db and data/lite, no SQLAlchemy)."""

from __future__ import annotations

from dataclasses import replace

from data.registry import Registry
from domain.models import AiModel, ModelId, ModelSource, ProviderId, Retirement, WindowSource


def resolved(stored: AiModel | None, registry: Registry, provider_id: ProviderId, model_id: ModelId) -> AiModel:
    """The stored model (None: not stored) with what the registry knows filled in; never without a window. Its
    retirement: see with_retirement."""
    return with_retirement(_completed(stored, registry, provider_id, model_id), registry)


def with_retirement(model: AiModel, registry: Registry) -> AiModel:
    """The model with the retirement its vendor announced: the day the provider's own list last reported (stored
    with the model, `model.retirement`), else the registry table's day; the successor is always the table's."""
    table = registry.retirement(model.id, model.provider_id)
    reported = model.retirement
    if reported is None:
        retirement = table
    elif table is None:
        retirement = reported
    else:
        retirement = Retirement(reported.on, table.successor, table.successor_name)
    return model if model.retirement == retirement else replace(model, retirement=retirement)


def _completed(stored: AiModel | None, registry: Registry, provider_id: ProviderId, model_id: ModelId) -> AiModel:
    if stored is not None and stored.capabilities is None:  # not listed yet: the registry's entry or family
        stored = replace(stored, capabilities=registry.capabilities(model_id))
    if stored is not None and stored.input_limit is None:
        stored = replace(stored, input_limit=registry.input_limit(model_id))
    if stored is not None and stored.context_window_size:
        return stored
    preset = registry.preset(model_id)
    if preset is not None:
        window, max_output, guess = preset.context_window, preset.max_output_tokens, False
    else:
        window, max_output, guess = registry.guess_window(model_id), None, True
    if stored is not None:
        return replace(stored, context_window_size=window, window_is_guess=guess,
                       max_output_tokens=stored.max_output_tokens or max_output,
                       window_source=WindowSource.REGISTRY)
    return AiModel(id=model_id, display_name=preset.display_name if preset else None, provider_id=provider_id,
                   source=ModelSource.FETCHED, context_window_size=window, max_output_tokens=max_output,
                   window_is_guess=guess, capabilities=registry.capabilities(model_id),
                   input_limit=registry.input_limit(model_id))


def fetched_source(model: AiModel) -> WindowSource:
    """A listed model's window: what a local server runs it with (its trained length known), the provider's
    list, or none (the registry's)."""
    if not model.context_window_size:
        return WindowSource.REGISTRY
    return WindowSource.SERVER if model.trained_window else WindowSource.PROVIDER_API
