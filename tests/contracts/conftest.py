"""The two stores every contract runs against: `fake` (tests/fakes.py, linked like the real tables) and `sql`
(a real SQLite file opened through data.storage.Storage), and the `store` fixture parametrized over both."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from data.storage import Storage
from domain.models import Agent, Message, MessageType, Provider, ProviderType, Session
from domain.ports import (
    AgentRepository,
    CalibrationStore,
    MemoryRepository,
    MessageRepository,
    ModelRepository,
    ProviderRepository,
    SessionRepository,
    SettingsRepository,
    UnitOfWork,
)
from tests.fakes import (
    FakeAgentRepository,
    FakeCalibrationStore,
    FakeMemoryRepository,
    FakeMessageRepository,
    FakeModelRepository,
    FakeProviderRepository,
    FakeSessionRepository,
    FakeSettingsRepository,
)
from tests.fakes_uow import FakeUnitOfWork

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
DEFAULT_AGENT = "general-assistant"  # seeded by the SQL store; the fake store is seeded the same way


@dataclass
class Store:
    """One implementation of every repository port, plus its unit of work."""

    kind: str
    sessions: SessionRepository
    messages: MessageRepository
    providers: ProviderRepository
    models: ModelRepository
    agents: AgentRepository
    memories: MemoryRepository
    settings: SettingsRepository
    calibration: CalibrationStore
    unit_of_work: UnitOfWork


def fake_store() -> Store:
    """The fakes, linked to each other as the SQL tables are, seeded like a new database."""
    providers = FakeProviderRepository([
        Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
        Provider("openai", "OpenAI", ProviderType.OPENAI),
        Provider("gemini", "Google Gemini", ProviderType.GEMINI),
    ])
    agents = FakeAgentRepository([Agent(id=DEFAULT_AGENT, name="General assistant",
                                        system_prompt="You are a helpful assistant.")])
    sessions = FakeSessionRepository(agents=agents)
    messages = FakeMessageRepository(sessions=sessions)
    models = FakeModelRepository(providers=providers)
    memories = FakeMemoryRepository(agents=agents, sessions=sessions)
    settings, calibration = FakeSettingsRepository(), FakeCalibrationStore()
    uow = FakeUnitOfWork(sessions, messages, providers, models, agents, memories, settings, calibration)
    return Store("fake", sessions, messages, providers, models, agents, memories, settings, calibration, uow)


@pytest.fixture(scope="session")
def sql_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database migrated to head and seeded, made once; every test opens a copy (migrating is slow)."""
    home = tmp_path_factory.mktemp("contract-template")
    Storage.open(home).close()
    return home / "palimpsest.db"


@pytest.fixture
def fake() -> Store:
    """The in-memory fakes."""
    return fake_store()


@pytest.fixture
def sql(tmp_path: Path, sql_template: Path) -> Iterator[Store]:
    """The SQLite store, on a file of its own."""
    home = tmp_path / "contract-home"
    home.mkdir()
    shutil.copyfile(sql_template, home / "palimpsest.db")
    opened = Storage.open(home)
    yield Store("sql", opened.sessions, opened.messages, opened.providers, opened.models, opened.agents,
                opened.memories, opened.settings, opened.calibration, opened.unit_of_work)
    opened.close()


@pytest.fixture(params=["fake", "sql"])
def store(request: pytest.FixtureRequest) -> Store:
    """Each contract test runs once on the fakes and once on SQLite."""
    found: Store = request.getfixturevalue(request.param)
    return found


def new_session(store: Store, session_id: str = "s1", *, minutes: int = 0, **fields: object) -> Session:
    """Creates a session whose timestamps are T0 + minutes."""
    at = T0 + timedelta(minutes=minutes)
    values: dict[str, object] = {"title": "Chat", "current_agent_id": DEFAULT_AGENT, "created_at": at,
                                 "updated_at": at, **fields}
    return store.sessions.create(Session(id=session_id, **values))  # type: ignore[arg-type]


def msg(message_id: str, session_id: str = "s1", content: str = "hello", **fields: object) -> Message:
    """A user message at T0 unless told otherwise."""
    fields.setdefault("type", MessageType.USER)
    fields.setdefault("created_at", T0)
    return Message(id=message_id, session_id=session_id, content=content, **fields)  # type: ignore[arg-type]
