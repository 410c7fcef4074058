"""Add model: register a model the registry does not know, or set the user's own window for a known one."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_provider
from domain.models import AiModel, ModelSource
from domain.ports import ModelRepository, ProviderRepository

MIN_WINDOW = 1_024
MAX_WINDOW = 100_000_000


class AddModelUseCase:
    """Stores a user model with its context window, or a user window (which always wins) for a known model."""

    def __init__(self, providers: ProviderRepository, models: ModelRepository) -> None:
        self._providers = providers
        self._models = models

    def __call__(self, provider: str, model_id: str, context_window: int, max_output: int | None = None) -> AiModel:
        """The stored model; InvalidInput for an empty id or an implausible window or output limit."""
        found = require_provider(self._providers, provider)
        ident = model_id.strip()
        if not ident or any(c.isspace() for c in ident):
            raise InvalidInput(f"{model_id!r} is not a model id; give it exactly as the provider names it.")
        if not MIN_WINDOW <= context_window <= MAX_WINDOW:
            raise InvalidInput(f"The context window must be between {MIN_WINDOW} and {MAX_WINDOW} tokens.")
        if max_output is not None and not 1 <= max_output < context_window:
            raise InvalidInput("The maximum output must be at least 1 token and smaller than the context window.")
        if self._models.get(found.id, ident) is not None:
            return self._models.set_user_window(found.id, ident, context_window, max_output)
        return self._models.upsert(
            AiModel(
                id=ident,
                display_name=ident,
                provider_id=found.id,
                source=ModelSource.USER,
                context_window_size=context_window,
                max_output_tokens=max_output,
                user_window=True,
            )
        )
