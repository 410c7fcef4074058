"""Save context settings: the app-wide defaults of the context engine, validated on every save path."""

from __future__ import annotations

from domain.ports import SettingsRepository
from domain.settings import ContextSettings


class SaveContextSettingsUseCase:
    """Validates and stores the app-wide ContextSettings (the GUI's Settings › Compaction and the CLI)."""

    def __init__(self, settings: SettingsRepository) -> None:
        self._settings = settings

    def current(self) -> ContextSettings:
        """The stored app-wide settings."""
        return self._settings.context_settings()

    def __call__(self, settings: ContextSettings) -> ContextSettings:
        """The stored settings; InvalidInput naming the first bad field (nothing is stored then)."""
        self._settings.save_context_settings(settings.validated())
        return self._settings.context_settings()
