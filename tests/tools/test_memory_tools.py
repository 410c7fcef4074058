"""save_memory and search_memory: agent-scoped, source session recorded, bad arguments are error outcomes."""

from __future__ import annotations

from data.tools import BuiltinTools
from domain.provider_ports import ToolContext
from tests.tools.fakes import FakeMemories, FakeMessages, FixedClock

CTX = ToolContext(session_id="s1", agent_id="agent-a")


def make_tools() -> tuple[BuiltinTools, FakeMemories]:
    memories = FakeMemories()
    ids = iter(f"m{i}" for i in range(1, 100))
    return BuiltinTools(memories, FakeMessages(), FixedClock(), new_id=lambda: next(ids)), memories


async def test_save_memory_stores_the_fact_for_the_agent_with_its_source_session() -> None:
    tools, memories = make_tools()
    outcome = await tools.execute("save_memory", {"content": "  The user's cat is named Miso.  "}, CTX)
    assert not outcome.is_error
    assert "m1" in outcome.output
    [memory] = memories.items
    assert memory.content == "The user's cat is named Miso."
    assert memory.agent_id == "agent-a"
    assert memory.source_session_id == "s1"
    assert memory.created_at == FixedClock().at


async def test_save_memory_without_content_is_an_error_outcome_and_saves_nothing() -> None:
    tools, memories = make_tools()
    for args in ({}, {"content": ""}, {"content": "   "}, {"content": 42}):
        outcome = await tools.execute("save_memory", args, CTX)
        assert outcome.is_error
        assert "content" in outcome.output
    assert memories.items == []


async def test_save_memory_refuses_an_oversized_fact() -> None:
    tools, memories = make_tools()
    outcome = await tools.execute("save_memory", {"content": "x" * 5000}, CTX)
    assert outcome.is_error and "at most" in outcome.output
    assert memories.items == []


async def test_search_memory_returns_matching_facts_of_the_agent() -> None:
    tools, _ = make_tools()
    await tools.execute("save_memory", {"content": "Deploys happen on Fridays"}, CTX)
    await tools.execute("save_memory", {"content": "Favourite colour is teal"}, CTX)
    await tools.execute("save_memory", {"content": "Deploys need approval"}, ToolContext("s2", "agent-b"))
    outcome = await tools.execute("search_memory", {"query": "deploys"}, CTX)
    assert not outcome.is_error
    assert "Deploys happen on Fridays" in outcome.output
    assert "approval" not in outcome.output
    assert "teal" not in outcome.output


async def test_search_memory_says_plainly_when_nothing_matches() -> None:
    tools, _ = make_tools()
    outcome = await tools.execute("search_memory", {"query": "nothing here"}, CTX)
    assert not outcome.is_error
    assert "No memories match" in outcome.output


async def test_search_memory_with_a_bad_limit_is_an_error_outcome() -> None:
    tools, _ = make_tools()
    outcome = await tools.execute("search_memory", {"query": "x", "limit": 0}, CTX)
    assert outcome.is_error and "limit" in outcome.output


async def test_a_repository_failure_becomes_an_error_outcome_not_an_exception() -> None:
    class BrokenMemories(FakeMemories):
        def search(self, query: str, agent_id: str | None = None, limit: int = 10):  # type: ignore[override]
            raise RuntimeError("fts5: syntax error near '\"'")

    tools = BuiltinTools(BrokenMemories(), FakeMessages(), FixedClock())
    outcome = await tools.execute("search_memory", {"query": '"'}, CTX)
    assert outcome.is_error
    assert "search_memory failed" in outcome.output and "syntax error" in outcome.output
