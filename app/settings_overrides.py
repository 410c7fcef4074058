"""App settings as stored, with some context settings overridden for one command (`palimpsest chat --idle-timeout`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from domain.ports import SettingsRepository
from domain.settings import ContextSettings, ToolSettings


class OverriddenSettings:
    """A SettingsRepository that reads the stored settings with `overrides` applied and never stores them: saving
    keeps the stored values of the overridden fields. An agent's own override of the same field still applies
    on top, as it does over any app setting."""

    def __init__(self, inner: SettingsRepository, overrides: Mapping[str, Any]) -> None:
        ContextSettings().with_overrides(overrides).validated()  # an unknown key or a bad value fails here
        self._inner = inner
        self._overrides = dict(overrides)

    def context_settings(self) -> ContextSettings:
        """The stored context settings with the overrides."""
        return self._inner.context_settings().with_overrides(self._overrides)

    def save_context_settings(self, settings: ContextSettings) -> None:
        """Stores `settings`, but the stored values of the overridden fields."""
        stored = self._inner.context_settings()
        kept = {name: getattr(stored, name) for name in self._overrides}
        self._inner.save_context_settings(replace(settings, **kept))

    def tool_settings(self) -> ToolSettings:
        """As stored."""
        return self._inner.tool_settings()

    def save_tool_settings(self, settings: ToolSettings) -> None:
        """As stored."""
        self._inner.save_tool_settings(settings)
