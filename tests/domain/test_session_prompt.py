"""A session's own system prompt: SetSessionPromptUseCase, and the loader sending it (memory still appended) so the
request, the gauge and compaction all follow it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Memory, Message, MessageType
from domain.usecases.set_session_prompt import MAX_SYSTEM_PROMPT_CHARS, SetSessionPromptUseCase
from tests.fakes_turn import TurnWorld, make_world, reply


def _set(world: TurnWorld) -> SetSessionPromptUseCase:
    return SetSessionPromptUseCase(world.sessions, world.clock)


async def test_the_sessions_prompt_replaces_the_agents_in_the_request_and_memory_is_still_appended() -> None:
    world = make_world()
    world.memories.add(Memory("m1", "The user's name is Ada.", datetime(2026, 1, 1, tzinfo=UTC), "default"))
    world.clock.advance(60)
    session = _set(world)("s1", "  You answer in French.\n")
    assert session.system_prompt == "You answer in French." and session.updated_at == world.clock.now()
    world.adapter().scripts.append(reply("Bonjour"))
    await world.turn("Who am I?")
    system = world.adapter().requests[0].system_prompt or ""
    assert system.startswith("You answer in French.") and "You are helpful." not in system
    assert "The user's name is Ada." in system
    assert world.context("s1").system_prompt == system


async def test_blank_or_none_goes_back_to_the_agents_prompt() -> None:
    world = make_world()
    set_prompt = _set(world)
    set_prompt("s1", "Be terse.")
    assert set_prompt("s1", "   ").system_prompt is None
    set_prompt("s1", "Be terse.")
    assert set_prompt("s1", None).system_prompt is None
    world.adapter().scripts.append(reply("Hi"))
    await world.turn("Hello")
    assert world.adapter().requests[0].system_prompt == "You are helpful."


def test_the_gauges_system_row_follows_the_sessions_prompt() -> None:
    world = make_world()
    agents = world.status("s1").breakdown.system
    _set(world)("s1", "A long house style. " * 200)
    longer = world.status("s1").breakdown.system
    assert longer > agents + 500
    _set(world)("s1", "")
    assert world.status("s1").breakdown.system == agents


def test_too_long_a_prompt_or_an_unknown_session_is_refused_and_nothing_changes() -> None:
    world = make_world()
    set_prompt = _set(world)
    set_prompt("s1", "Kept.")
    with pytest.raises(InvalidInput, match=f"at most {MAX_SYSTEM_PROMPT_CHARS:,} characters"):
        set_prompt("s1", "x" * (MAX_SYSTEM_PROMPT_CHARS + 1))
    assert world.sessions.get("s1").system_prompt == "Kept."
    with pytest.raises(NotFound):
        set_prompt("nope", "Hi")
    assert set_prompt("s1", "x" * MAX_SYSTEM_PROMPT_CHARS).system_prompt == "x" * MAX_SYSTEM_PROMPT_CHARS


async def test_auto_compaction_counts_the_sessions_prompt() -> None:
    world = make_world(window=10_000)
    world.summarizer.default = "## Goal\nSummary."
    for i in range(12):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"question {i}: " + "word " * 100))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"answer {i}: " + "word " * 100))
    assert not (await world.auto_compact(world.context("s1"))).did_compact  # under the threshold with the agent's
    _set(world)("s1", "House rules. " * 2_000)
    assert world.status("s1").used > world.status("s1").threshold
    assert (await world.auto_compact(world.context("s1"))).did_compact
