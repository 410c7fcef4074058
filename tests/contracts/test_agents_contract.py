"""AgentRepository contract: a protected built-in default, unique names, validated overrides, and deleting an
agent detaching its sessions and taking its memories along."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Agent, Memory
from tests.contracts.conftest import DEFAULT_AGENT, T0, Store, new_session

CODER = Agent(id="coder", name="Coder", system_prompt="Write code", preferred_provider_id="openai",
              preferred_model_id="gpt-4o", enabled_tools=("http_request",),
              context_overrides={"compact_threshold_ratio": 0.7})


def test_the_default_agent_is_the_built_in_general_assistant(store: Store) -> None:
    store.agents.add(Agent(id="aaa", name="Aardvark"))
    default = store.agents.default()
    assert (default.id, default.name) == (DEFAULT_AGENT, "General assistant")
    assert store.agents.get(DEFAULT_AGENT) == default


def test_an_agent_round_trips_with_tools_and_overrides(store: Store) -> None:
    assert store.agents.add(CODER) == CODER
    assert store.agents.get("coder") == CODER
    assert store.agents.find("coder") == CODER
    assert store.agents.find("CODER") == CODER
    assert store.agents.find(" coder ") == CODER
    assert store.agents.find("nobody") is None


def test_list_puts_the_built_in_agent_first_then_the_rest_by_name(store: Store) -> None:
    for agent in (Agent(id="z", name="zebra"), CODER, Agent(id="a", name="Writer")):
        store.agents.add(agent)
    assert [a.name for a in store.agents.list()] == ["General assistant", "Coder", "Writer", "zebra"]


def test_an_unknown_context_override_is_refused(store: Store) -> None:
    with pytest.raises(InvalidInput, match="no_such_setting"):
        store.agents.add(Agent(id="x", name="X", context_overrides={"no_such_setting": 1}))
    assert store.agents.get("x") is None
    store.agents.add(CODER)
    with pytest.raises(InvalidInput):
        store.agents.update(Agent(id="coder", name="Coder", context_overrides={"no_such_setting": 1}))
    assert store.agents.get("coder") == CODER


@pytest.mark.parametrize(("agent_id", "name"), [("", "Name"), ("id", "  ")])
def test_an_agent_needs_an_id_and_a_name(store: Store, agent_id: str, name: str) -> None:
    with pytest.raises(InvalidInput):
        store.agents.add(Agent(id=agent_id, name=name))
    assert [a.id for a in store.agents.list()] == [DEFAULT_AGENT]


def test_two_agents_cannot_share_an_id_or_a_name(store: Store) -> None:
    store.agents.add(CODER)
    with pytest.raises(InvalidInput):
        store.agents.add(Agent(id="coder", name="Other"))
    with pytest.raises(InvalidInput):
        store.agents.add(Agent(id="other", name="general ASSISTANT"))
    with pytest.raises(InvalidInput):
        store.agents.update(Agent(id="coder", name="General Assistant"))
    assert [a.id for a in store.agents.list()] == [DEFAULT_AGENT, "coder"]
    assert store.agents.get("coder") == CODER


def test_update_writes_every_field_and_may_keep_the_agents_own_name(store: Store) -> None:
    store.agents.add(CODER)
    changed = Agent(id="coder", name="Coder", system_prompt=None, preferred_provider_id=None,
                    preferred_model_id=None, enabled_tools=(), context_overrides={})
    assert store.agents.update(changed) == changed
    assert store.agents.get("coder") == changed


def test_missing_agents_are_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        store.agents.update(Agent(id="ghost", name="Ghost"))
    with pytest.raises(NotFound):
        store.agents.delete("ghost")
    assert store.agents.get("ghost") is None


def test_the_built_in_agent_cannot_be_deleted(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.agents.delete(DEFAULT_AGENT)
    assert store.agents.default().id == DEFAULT_AGENT


def test_deleting_an_agent_detaches_its_sessions_and_deletes_its_memories(store: Store) -> None:
    store.agents.add(CODER)
    new_session(store, current_agent_id="coder")
    store.memories.add(Memory("own", "prefers Rust", T0, agent_id="coder"))
    store.memories.add(Memory("global", "lives in Lisbon", T0))
    store.agents.delete("coder")
    assert store.agents.get("coder") is None
    assert store.sessions.get("s1").current_agent_id is None  # type: ignore[union-attr]
    assert [m.id for m in store.memories.list()] == ["global"]
    assert store.memories.get("own") is None
