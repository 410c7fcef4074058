"""Use the automatic window: undo a window the user set or the app inferred, back to the registry's, the provider's
list's or the server's."""

from __future__ import annotations

from domain.errors import InvalidInput
from domain.lookup import require_provider
from domain.models import AiModel
from domain.ports import ModelRepository, ProviderRepository


class UseAutomaticWindowUseCase:
    """Clears a user-set, learned or guessed window of a model; the model then resolves as if it had never had one."""

    def __init__(self, providers: ProviderRepository, models: ModelRepository) -> None:
        self._providers = providers
        self._models = models

    def __call__(self, provider: str, model_id: str) -> AiModel:
        """The model as it resolves afterwards; InvalidInput for an empty id, NotFound for an unknown provider."""
        found = require_provider(self._providers, provider)
        ident = model_id.strip()
        if not ident:
            raise InvalidInput("Give the model's id exactly as the provider names it.")
        self._models.clear_window(found.id, ident)
        return self._models.resolve(found.id, ident)
