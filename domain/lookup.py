"""Lookups shared by the management use cases: a provider by id or name, a session by id, or NotFound."""

from __future__ import annotations

from domain.errors import NotFound
from domain.models import Agent, Provider, Session, SessionId
from domain.ports import AgentRepository, ProviderRepository, SessionRepository


def require_provider(providers: ProviderRepository, id_or_name: str) -> Provider:
    """The provider with this id or (case-insensitive) name; NotFound naming the known ones otherwise."""
    provider = providers.find(id_or_name.strip())
    if provider is None:
        known = ", ".join(p.id for p in providers.list())
        err = NotFound("provider", id_or_name)
        err.message = f"No provider named {id_or_name!r}. Known providers: {known}."
        err.args = (err.message,)
        raise err
    return provider


def require_session(sessions: SessionRepository, session_id: SessionId, *, allow_deleted: bool = False) -> Session:
    """The session with this id (deleted ones only when allowed); NotFound otherwise."""
    session = sessions.get(session_id.strip())
    if session is None or (session.deleted_at is not None and not allow_deleted):
        raise NotFound("session", session_id)
    return session


def require_agent(agents: AgentRepository, id_or_name: str) -> Agent:
    """The agent with this id or (case-insensitive) name; NotFound naming the known ones otherwise."""
    agent = agents.find(id_or_name.strip())
    if agent is None:
        known = ", ".join(a.name for a in agents.list())
        err = NotFound("agent", id_or_name)
        err.message = f"No agent named {id_or_name!r}. Known agents: {known}."
        err.args = (err.message,)
        raise err
    return agent
