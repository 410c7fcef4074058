"""Where the context engine gets its settings: app-wide defaults plus the session agent's overrides."""

from __future__ import annotations

from collections.abc import Callable

from domain.models import Session
from domain.ports import AgentRepository, SettingsRepository
from domain.settings import ContextSettings

SettingsProvider = Callable[[Session], ContextSettings]


class AgentContextSettings:
    """A SettingsProvider: the app's ContextSettings with the session's agent's context_overrides applied."""

    def __init__(self, settings: SettingsRepository, agents: AgentRepository | None = None) -> None:
        self._settings = settings
        self._agents = agents

    def __call__(self, session: Session) -> ContextSettings:
        """Settings for this session (InvalidInput when an agent override names an unknown setting)."""
        base = self._settings.context_settings()
        if self._agents is None or session.current_agent_id is None:
            return base
        agent = self._agents.get(session.current_agent_id)
        if agent is None or not agent.context_overrides:
            return base
        return base.with_overrides(agent.context_overrides)


def fixed_settings(settings: ContextSettings) -> SettingsProvider:
    """A SettingsProvider that always returns the given settings (tests, CLI one-offs)."""
    return lambda _session: settings
