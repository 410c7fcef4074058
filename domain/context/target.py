"""Which agent, provider and model a turn uses: explicit choice, then the session's, the agent's, the default."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import InvalidInput, NoProviderConfigured, NotFound
from domain.models import Agent, AgentId, AiModel, ModelId, Provider, ProviderId, Session
from domain.ports import AgentRepository, ModelRepository, ProviderRepository


@dataclass(frozen=True)
class TurnTarget:
    """The agent, provider and model one turn talks to."""

    agent: Agent
    provider: Provider
    model: AiModel


def resolve_target(
    session: Session,
    *,
    agents: AgentRepository,
    providers: ProviderRepository,
    models: ModelRepository,
    provider_id: ProviderId | None = None,
    model_id: ModelId | None = None,
    agent_id: AgentId | None = None,
) -> TurnTarget:
    """Explicit ids win; else the session's current ones; else the agent's preferred; else the provider's default."""
    agent = _agent(session, agents, agent_id)
    provider = _provider(session, agent, providers, provider_id)
    chosen_model = model_id or _default_model_id(session, agent, provider, models)
    if not chosen_model or not chosen_model.strip():
        raise InvalidInput(
            f"No model is known for {provider.name}. Choose one (for example `-m MODEL`), "
            "or refresh or add the provider's models."
        )
    return TurnTarget(agent, provider, models.resolve(provider.id, chosen_model.strip()))


def _agent(session: Session, agents: AgentRepository, agent_id: AgentId | None) -> Agent:
    if agent_id:
        found = agents.find(agent_id)
        if found is None:
            raise NotFound("agent", agent_id)
        return found
    if session.current_agent_id:
        current = agents.get(session.current_agent_id)
        if current is not None:
            return current
    return agents.default()


def _provider(
    session: Session, agent: Agent, providers: ProviderRepository, provider_id: ProviderId | None
) -> Provider:
    if provider_id:
        found = providers.find(provider_id)
        if found is None:
            raise NotFound("provider", provider_id)
        return found
    for candidate in (session.current_provider_id, agent.preferred_provider_id):
        if candidate:
            known = providers.get(candidate)
            if known is not None:
                return known
    active = [p for p in providers.list() if p.is_active]
    if not active:
        raise NoProviderConfigured()
    return active[0]


def _default_model_id(session: Session, agent: Agent, provider: Provider, models: ModelRepository) -> ModelId | None:
    if session.current_provider_id == provider.id and session.current_model_id:
        return session.current_model_id
    if agent.preferred_provider_id == provider.id and agent.preferred_model_id:
        return agent.preferred_model_id
    listed = list(models.list(provider.id))
    default = next((m for m in listed if m.is_default), None) or (listed[0] if listed else None)
    return default.id if default else None
