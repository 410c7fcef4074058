"""Memory and agent management use cases."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Agent
from domain.usecases.delete_agent import DeleteAgentUseCase
from domain.usecases.delete_memory import DeleteMemoryUseCase
from domain.usecases.list_agents import ListAgentsUseCase
from domain.usecases.list_memories import ListMemoriesUseCase
from domain.usecases.save_agent import SaveAgentUseCase
from domain.usecases.save_memory_entry import SaveMemoryEntryUseCase
from tests.fakes import FakeAgentRepository, FakeClock, FakeMemoryRepository


def test_memories_are_added_edited_listed_and_deleted() -> None:
    repo = FakeMemoryRepository()
    save = SaveMemoryEntryUseCase(repo, FakeClock(), new_id=lambda: "mem1")
    saved = save("  Prefers metric units ", agent_id="a1")
    assert (saved.id, saved.content, saved.agent_id) == ("mem1", "Prefers metric units", "a1")
    assert save("Prefers SI units", memory_id="mem1").content == "Prefers SI units"
    assert [m.content for m in ListMemoriesUseCase(repo)("a1")] == ["Prefers SI units"]
    assert DeleteMemoryUseCase(repo)("mem1").id == "mem1"
    assert ListMemoriesUseCase(repo)() == []
    with pytest.raises(NotFound):
        DeleteMemoryUseCase(repo)("mem1")
    with pytest.raises(InvalidInput):
        save("  ")


def test_agents_are_validated_saved_and_the_default_cannot_be_deleted() -> None:
    repo = FakeAgentRepository([Agent(id="general-assistant", name="General assistant")])  # the built-in one
    save = SaveAgentUseCase(repo, known_tools=("http_request", "save_memory"))
    coder = save(Agent(id="coder", name=" Coder ", enabled_tools=("http_request",),
                       context_overrides={"compact_threshold_ratio": 0.7}))
    assert coder.name == "Coder"
    assert [a.id for a in ListAgentsUseCase(repo)()] == ["general-assistant", "coder"]
    with pytest.raises(InvalidInput, match="already exists"):
        save(Agent(id="other", name="coder"))
    with pytest.raises(InvalidInput, match="Unknown tool"):
        save(Agent(id="x", name="X", enabled_tools=("shell",)))
    with pytest.raises(InvalidInput, match="Unknown context setting"):
        save(Agent(id="x", name="X", context_overrides={"nope": 1}))
    with pytest.raises(InvalidInput, match="default agent"):
        DeleteAgentUseCase(repo)("general-assistant")
    assert DeleteAgentUseCase(repo)("coder").id == "coder"
