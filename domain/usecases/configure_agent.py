"""Configure agent: change an agent by `KEY=VALUE` pairs (prompt, model, tools, context-setting overrides)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain.errors import InvalidInput
from domain.lookup import require_agent
from domain.models import Agent
from domain.ports import AgentRepository
from domain.settings import parse_setting, setting_name
from domain.usecases.save_agent import SaveAgentUseCase

RESET_VALUES = ("", "default", "none")


class ConfigureAgentUseCase:
    """Applies the pairs to the named agent and saves it through SaveAgentUseCase (so it is validated the same way).

    Keys: `name`, `system_prompt` (or `prompt`), `provider`, `model` (`PROVIDER/MODEL` sets both), `tools`
    (comma-separated, `none` for no tools) and any context setting (`pruning=off`, `threshold=80%`,
    `max_output_tokens=8192`); a context setting set to `default` drops the agent's override."""

    def __init__(self, agents: AgentRepository, save: SaveAgentUseCase) -> None:
        self._agents = agents
        self._save = save

    def __call__(self, id_or_name: str, pairs: Sequence[str]) -> Agent:
        """The saved agent; InvalidInput for a malformed pair, an unknown key or a bad value (nothing is saved)."""
        if not pairs:
            raise InvalidInput("Give at least one KEY=VALUE, for example: pruning=off")
        agent = require_agent(self._agents, id_or_name)
        overrides = dict(agent.context_overrides)
        for pair in pairs:
            key, sep, value = pair.partition("=")
            key = key.strip().lower().replace("-", "_")
            if not sep or not key:
                raise InvalidInput(f"Expected KEY=VALUE, not {pair!r}.")
            if key == "name":
                agent = replace(agent, name=value)
            elif key in ("system_prompt", "prompt"):
                agent = replace(agent, system_prompt=value or None)
            elif key == "provider":
                agent = replace(agent, preferred_provider_id=value.strip() or None)
            elif key == "model":
                provider, slash, model = value.strip().partition("/")
                agent = replace(agent, preferred_provider_id=provider, preferred_model_id=model or None) if slash \
                    else replace(agent, preferred_model_id=value.strip() or None)
            elif key == "tools":
                names = [] if value.strip().lower() in RESET_VALUES else [t.strip() for t in value.split(",")]
                agent = replace(agent, enabled_tools=tuple(t for t in names if t))
            else:
                if value.strip().lower() in RESET_VALUES:
                    overrides.pop(setting_name(key), None)
                else:
                    name, typed = parse_setting(key, value)
                    overrides[name] = typed
        return self._save(replace(agent, context_overrides=overrides))
