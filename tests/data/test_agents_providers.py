"""AgentRepository and ProviderRepository: lookups by id or name, validation, protected built-ins."""

from __future__ import annotations

import pytest

from data.storage import Storage
from domain.errors import InvalidInput, NotFound
from domain.models import Agent, Provider, ProviderType
from tests.data.conftest import new_session


def test_agents_round_trip_with_tools_and_overrides(storage: Storage) -> None:
    agent = Agent(id="coder", name="Coder", system_prompt="Write code", preferred_provider_id="openai",
                  preferred_model_id="gpt-4o", enabled_tools=("http_request",),
                  context_overrides={"compact_threshold_ratio": 0.7})
    assert storage.agents.add(agent) == agent
    assert storage.agents.find("CODER") == agent
    assert [a.name for a in storage.agents.list()] == ["General assistant", "Coder"]


def test_an_unknown_context_override_is_refused(storage: Storage) -> None:
    with pytest.raises(InvalidInput, match="no_such_setting"):
        storage.agents.add(Agent(id="x", name="X", context_overrides={"no_such_setting": 1}))
    assert storage.agents.get("x") is None


def test_two_agents_cannot_share_a_name(storage: Storage) -> None:
    with pytest.raises(InvalidInput):
        storage.agents.add(Agent(id="other", name="general ASSISTANT"))


def test_the_default_agent_cannot_be_deleted(storage: Storage) -> None:
    with pytest.raises(InvalidInput):
        storage.agents.delete("general-assistant")
    assert storage.agents.default().id == "general-assistant"


def test_deleting_an_agent_detaches_its_sessions(storage: Storage) -> None:
    storage.agents.add(Agent(id="temp", name="Temp"))
    session = new_session(storage)
    storage.sessions.update(session.__class__(**{**session.__dict__, "current_agent_id": "temp"}))
    storage.agents.delete("temp")
    assert storage.sessions.get("s1").current_agent_id is None  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        storage.agents.delete("temp")


def test_an_openai_compatible_provider_is_added_and_found_by_name(storage: Storage) -> None:
    ollama = Provider(id="ollama", name="Ollama", type=ProviderType.OPENAI_COMPATIBLE,
                      base_url="http://localhost:11434/v1")
    storage.providers.add(ollama)
    assert storage.providers.find("ollama") == ollama
    assert storage.providers.find("OLLAMA") == ollama
    assert [p.id for p in storage.providers.list()][-1] == "ollama"


@pytest.mark.parametrize("url", [None, "localhost:11434", "ftp://x", ""])
def test_a_compatible_provider_needs_an_http_base_url(storage: Storage, url: str | None) -> None:
    with pytest.raises(InvalidInput):
        storage.providers.add(Provider(id="bad", name="Bad", type=ProviderType.OPENAI_COMPATIBLE, base_url=url))
    assert storage.providers.get("bad") is None


def test_a_duplicate_provider_id_is_refused(storage: Storage) -> None:
    with pytest.raises(InvalidInput):
        storage.providers.add(Provider(id="openai", name="Again", type=ProviderType.OPENAI))
    assert storage.providers.get("openai").name == "OpenAI"  # type: ignore[union-attr]


def test_update_changes_a_provider_and_missing_ones_are_not_found(storage: Storage) -> None:
    updated = storage.providers.update(Provider(id="openai", name="OpenAI", type=ProviderType.OPENAI,
                                                base_url="https://proxy.example/v1", is_active=False))
    assert storage.providers.get("openai") == updated
    with pytest.raises(NotFound):
        storage.providers.update(Provider(id="ghost", name="G", type=ProviderType.OPENAI))
