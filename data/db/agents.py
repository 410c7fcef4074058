"""AgentRepository over SQLite."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session as OrmSession

from data.db.built_in import DEFAULT_AGENT_ID as DEFAULT_AGENT_ID  # re-exported
from data.db.engine import Database, keyed_select
from data.db.mappers import agent_onto_row, agent_to_domain
from data.db.rows import AgentRow
from domain.errors import InvalidInput, NotFound
from domain.models import Agent, AgentId
from domain.settings import ContextSettings

_GET = keyed_select(AgentRow, "id")

class SqlAgentRepository:
    """Agents; the built-in "General assistant" is the default and cannot be deleted."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def list(self) -> Sequence[Agent]:
        with self._db.read() as s:
            rows = s.scalars(select(AgentRow).order_by(AgentRow.is_built_in.desc(), func.lower(AgentRow.name)))
            return [agent_to_domain(r) for r in rows]

    def get(self, agent_id: AgentId) -> Agent | None:
        return self._db.cached(("agent", agent_id), lambda: self._get(agent_id))

    def _get(self, agent_id: AgentId) -> Agent | None:
        row = self._db.first(_GET, {"id": agent_id})
        return agent_to_domain(row) if row else None

    def find(self, id_or_name: str) -> Agent | None:
        found = self.get(id_or_name)
        if found is not None:
            return found
        with self._db.read() as s:
            row = s.scalars(select(AgentRow).where(func.lower(AgentRow.name) == id_or_name.strip().lower())).first()
            return agent_to_domain(row) if row else None

    def default(self) -> Agent:
        return self._db.cached(("agent", None), self._default)

    def _default(self) -> Agent:
        with self._db.read() as s:
            row = s.get(AgentRow, DEFAULT_AGENT_ID) or s.scalars(
                select(AgentRow).order_by(AgentRow.is_built_in.desc(), AgentRow.created_at)
            ).first()
            if row is None:
                raise NotFound("agent", DEFAULT_AGENT_ID)
            return agent_to_domain(row)

    def add(self, agent: Agent) -> Agent:
        _validate(agent)
        now = datetime.now(UTC)
        with self._db.write() as s:
            if s.get(AgentRow, agent.id) is not None:
                raise InvalidInput(f"An agent with id {agent.id!r} already exists.")
            _check_name_free(s, agent)
            row = AgentRow(id=agent.id, is_built_in=agent.id == DEFAULT_AGENT_ID, created_at=now, updated_at=now)
            agent_onto_row(agent, row)
            s.add(row)
            s.flush()
            return agent_to_domain(row)

    def update(self, agent: Agent) -> Agent:
        _validate(agent)
        with self._db.write() as s:
            row = s.get(AgentRow, agent.id)
            if row is None:
                raise NotFound("agent", agent.id)
            _check_name_free(s, agent)
            agent_onto_row(agent, row)
            row.updated_at = datetime.now(UTC)
            s.flush()
            return agent_to_domain(row)

    def delete(self, agent_id: AgentId) -> None:
        with self._db.write() as s:
            row = s.get(AgentRow, agent_id)
            if row is None:
                raise NotFound("agent", agent_id)
            if row.is_built_in:
                raise InvalidInput(f"The built-in agent {row.name!r} cannot be deleted.")
            s.delete(row)


def _validate(agent: Agent) -> None:
    if not agent.id.strip() or not agent.name.strip():
        raise InvalidInput("An agent needs a non-empty id and name.")
    ContextSettings().with_overrides(agent.context_overrides)  # raises InvalidInput on an unknown key


def _check_name_free(s: OrmSession, agent: Agent) -> None:
    clash = s.scalars(
        select(AgentRow).where(func.lower(AgentRow.name) == agent.name.strip().lower(), AgentRow.id != agent.id)
    ).first()
    if clash is not None:
        raise InvalidInput(f"Another agent is already named {clash.name!r}.")
