"""Compact now, reset context and edit summary: the user's manual controls over the context."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput, NotFound
from domain.models import Message, MessageType
from domain.usecases.compact_now import CompactNowUseCase
from domain.usecases.edit_summary import EditSummaryUseCase
from domain.usecases.reset_context import ResetContextUseCase
from tests.domain.engine_setup import Engine
from tests.fakes_turn import TurnWorld, make_world


def compact_now(world: TurnWorld) -> CompactNowUseCase:
    return CompactNowUseCase(world.contexts, world.auto_compact)


def chatted(turns: int) -> TurnWorld:
    world = make_world(window=10_000)
    world.summarizer.default = "## Goal\nSummary."
    for i in range(turns):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"question {i}: " + "word " * 100))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"answer {i}: " + "word " * 100))
    return world


async def test_compact_now_compacts_below_the_threshold_with_the_sessions_model() -> None:
    world = chatted(15)
    result = await compact_now(world)("s1", instructions="  Focus on the API.  ")
    assert result.did_compact
    assert "Focus on the API." in world.summarizer.prompts[0]
    assert world.sessions.compactions("s1")[0].trigger == "manual"


async def test_compact_now_without_a_model_is_a_clear_error() -> None:
    world = chatted(3)
    world.providers.providers.clear()
    with pytest.raises(InvalidInput, match="provider and model"):
        await compact_now(world)("s1")


async def test_compact_now_on_an_unknown_session_is_not_found() -> None:
    with pytest.raises(NotFound):
        await compact_now(make_world())("nope")


async def test_compact_now_rejects_huge_focus_instructions() -> None:
    with pytest.raises(InvalidInput, match="too long"):
        await compact_now(make_world())("s1", instructions="x" * 5_000)


async def test_reset_context_clears_summary_and_boundary_and_keeps_every_message() -> None:
    engine = Engine()
    engine.chat(45)
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    count = engine.messages.count("s1")
    session = ResetContextUseCase(engine.sessions, engine.messages, engine.clock)("s1")
    assert session.compacted_summary is None and session.compact_boundary is None
    assert engine.messages.count("s1") == count


async def test_edit_summary_replaces_the_injected_summary() -> None:
    engine = Engine()
    engine.chat(45)
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    engine.clock.advance(60)
    session = EditSummaryUseCase(engine.sessions, engine.clock)("s1", "  ## Goal\nCorrected.  ")
    assert session.compacted_summary == "## Goal\nCorrected."
    assert session.updated_at == engine.clock.now()


def test_edit_summary_rejects_a_blank_summary() -> None:
    engine = Engine()
    with pytest.raises(InvalidInput, match="empty"):
        EditSummaryUseCase(engine.sessions, engine.clock)("s1", "   ")


def test_edit_summary_of_an_uncompacted_session_is_refused() -> None:
    engine = Engine()
    with pytest.raises(InvalidInput, match="not been compacted"):
        EditSummaryUseCase(engine.sessions, engine.clock)("s1", "text")


def test_reset_of_an_unknown_session_is_not_found() -> None:
    engine = Engine()
    with pytest.raises(NotFound):
        ResetContextUseCase(engine.sessions, engine.messages, engine.clock)("nope")


async def test_compact_now_on_a_short_conversation_keeps_only_the_newest_turn() -> None:
    world = chatted(3)
    result = await compact_now(world)("s1")
    session = world.sessions.get("s1")
    assert result.did_compact and session is not None
    assert [m.content[:10] for m in world.messages.since("s1", session.compact_boundary or 0)] == [
        "question 2", "answer 2: "
    ]


async def test_compact_now_with_a_single_turn_has_nothing_to_compact() -> None:
    result = await compact_now(chatted(1))("s1")
    assert not result.did_compact and result.reason == "nothing_to_compact"


async def test_edit_summary_rejects_a_summary_too_big_to_send_every_time() -> None:
    engine = Engine()
    engine.chat(45)
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    with pytest.raises(InvalidInput, match="too long"):
        EditSummaryUseCase(engine.sessions, engine.clock)("s1", "x" * 60_000)
    session = engine.sessions.get("s1")
    assert session is not None and session.compacted_summary == "## Goal\nSummary."
