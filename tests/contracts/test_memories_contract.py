"""MemoryRepository contract: agent-scoped lists and full-text search, non-empty content, and a memory that
outlives the session it came from."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Agent, Memory
from tests.contracts.conftest import DEFAULT_AGENT, T0, Store, new_session


@pytest.fixture
def remembered(store: Store) -> Store:
    store.agents.add(Agent(id="coder", name="Coder"))
    store.memories.add(Memory("g1", "The user lives in Lisbon", T0))
    store.memories.add(Memory("c1", "The user prefers Rust for CLI tools", T0 + timedelta(minutes=1), "coder"))
    store.memories.add(Memory("d1", "Lisbon trip booked for May", T0 + timedelta(minutes=2), DEFAULT_AGENT))
    return store


def test_a_memory_round_trips_with_every_field(store: Store) -> None:
    new_session(store)
    memory = Memory("m1", "fact", T0, agent_id=DEFAULT_AGENT, source_session_id="s1")
    assert store.memories.add(memory) == memory
    assert store.memories.get("m1") == memory
    assert store.memories.get("other") is None


def test_list_gives_an_agents_memories_plus_global_ones_newest_first(remembered: Store) -> None:
    assert [m.id for m in remembered.memories.list("coder")] == ["c1", "g1"]
    assert [m.id for m in remembered.memories.list()] == ["d1", "c1", "g1"]


def test_memories_made_in_the_same_instant_are_listed_by_id(store: Store) -> None:
    for memory_id in ("b", "c", "a"):
        store.memories.add(Memory(memory_id, f"fact {memory_id}", T0))
    assert [m.id for m in store.memories.list()] == ["a", "b", "c"]


def test_search_needs_every_word_as_a_prefix_and_is_scoped_to_the_agent_plus_global(remembered: Store) -> None:
    assert {m.id for m in remembered.memories.search("lisbon")} == {"g1", "d1"}
    assert [m.id for m in remembered.memories.search("lisbon", agent_id="coder")] == ["g1"]
    assert [m.id for m in remembered.memories.search("rust cli")] == ["c1"]
    assert [m.id for m in remembered.memories.search("RUS")] == ["c1"]
    assert remembered.memories.search("rust lisbon") == []
    assert len(remembered.memories.search("user", limit=1)) == 1
    assert remembered.memories.search("lisbon", limit=0) == []


@pytest.mark.parametrize("text", ['foo"', "AND", "*", "", "   ", "NEAR(a b)", "a OR", "-x", "^"])
def test_any_user_text_is_a_safe_query(remembered: Store, text: str) -> None:
    assert isinstance(remembered.memories.search(text), list)


def test_search_follows_updates_and_deletes(remembered: Store) -> None:
    memory = remembered.memories.get("g1")
    assert memory is not None
    remembered.memories.update(replace(memory, content="The user lives in Porto"))
    remembered.memories.delete("d1")
    assert remembered.memories.search("lisbon") == []
    assert [m.id for m in remembered.memories.search("porto")] == ["g1"]


def test_update_changes_the_content_and_agent_only(store: Store) -> None:
    new_session(store)
    original = store.memories.add(Memory("m1", "old fact", T0, source_session_id="s1"))
    edited = Memory("m1", "new fact", T0 + timedelta(days=1), agent_id=DEFAULT_AGENT, source_session_id=None)
    expected = replace(original, content="new fact", agent_id=DEFAULT_AGENT)
    assert store.memories.update(edited) == expected
    assert store.memories.get("m1") == expected


def test_an_empty_memory_is_refused_on_add_and_update(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.memories.add(Memory("e", "  ", T0))
    assert store.memories.list() == []
    store.memories.add(Memory("m1", "fact", T0))
    with pytest.raises(InvalidInput):
        store.memories.update(Memory("m1", "", T0))
    assert store.memories.get("m1") == Memory("m1", "fact", T0)


def test_a_duplicate_memory_id_is_refused_and_the_first_is_kept(store: Store) -> None:
    store.memories.add(Memory("m1", "first", T0))
    with pytest.raises(InvalidInput):
        store.memories.add(Memory("m1", "second", T0))
    assert store.memories.get("m1") == Memory("m1", "first", T0)


def test_memories_of_unknown_agents_or_ids_are_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        store.memories.add(Memory("x", "fact", T0, agent_id="ghost"))
    assert store.memories.get("x") is None
    store.memories.add(Memory("m1", "fact", T0))
    with pytest.raises(NotFound):
        store.memories.update(Memory("m1", "fact", T0, agent_id="ghost"))
    with pytest.raises(NotFound):
        store.memories.update(Memory("nope", "fact", T0))
    with pytest.raises(NotFound):
        store.memories.delete("nope")
    assert store.memories.list() == [Memory("m1", "fact", T0)]


def test_an_unknown_source_session_is_stored_as_none(store: Store) -> None:
    stored = store.memories.add(Memory("m", "fact", T0, source_session_id="never-existed"))
    assert stored == Memory("m", "fact", T0)
    assert store.memories.get("m") == Memory("m", "fact", T0)


def test_a_memory_outlives_its_purged_source_session(store: Store) -> None:
    new_session(store)
    store.memories.add(Memory("m", "fact", T0, source_session_id="s1"))
    store.sessions.delete("s1", T0)
    assert store.memories.get("m") == Memory("m", "fact", T0, source_session_id="s1")
    store.sessions.purge("s1")
    assert store.memories.get("m") == Memory("m", "fact", T0)
