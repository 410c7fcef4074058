"""Compact now, reset context and edit summary: the user's manual controls over the context."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.errors import InvalidInput, NotFound
from domain.usecases.compact_now import CompactNowUseCase
from domain.usecases.edit_summary import EditSummaryUseCase
from domain.usecases.reset_context import ResetContextUseCase
from tests.domain.engine_setup import Engine


async def test_compact_now_compacts_below_the_threshold_with_the_sessions_model() -> None:
    engine = Engine()
    engine.chat(15)
    result = await CompactNowUseCase(engine.sessions, engine.compact)("s1", instructions="  Focus on the API.  ")
    assert result.did_compact
    assert "Focus on the API." in engine.summarizer.prompts[0]
    assert engine.sessions.compactions("s1")[0].trigger == "manual"


async def test_compact_now_without_a_model_is_a_clear_error() -> None:
    engine = Engine()
    session = engine.sessions.get("s1")
    assert session is not None
    engine.sessions.update(replace(session, current_provider_id=None, current_model_id=None))
    with pytest.raises(InvalidInput, match="provider and model"):
        await CompactNowUseCase(engine.sessions, engine.compact)("s1")


async def test_compact_now_on_an_unknown_session_is_not_found() -> None:
    engine = Engine()
    with pytest.raises(NotFound):
        await CompactNowUseCase(engine.sessions, engine.compact)("nope")


async def test_compact_now_rejects_huge_focus_instructions() -> None:
    engine = Engine()
    with pytest.raises(InvalidInput, match="too long"):
        await CompactNowUseCase(engine.sessions, engine.compact)("s1", instructions="x" * 5_000)


async def test_reset_context_clears_summary_and_boundary_and_keeps_every_message() -> None:
    engine = Engine()
    engine.chat(45)
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    count = engine.messages.count("s1")
    session = ResetContextUseCase(engine.sessions, engine.clock)("s1")
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
        ResetContextUseCase(engine.sessions, engine.clock)("nope")


async def test_compact_now_on_a_short_conversation_keeps_only_the_newest_turn() -> None:
    engine = Engine()
    engine.chat(3)
    result = await CompactNowUseCase(engine.sessions, engine.compact)("s1")
    session = engine.sessions.get("s1")
    assert result.did_compact and session is not None
    assert [m.content[:10] for m in engine.messages.since("s1", session.compact_boundary or 0)] == [
        "question 2", "answer 2: "
    ]


async def test_compact_now_with_a_single_turn_has_nothing_to_compact() -> None:
    engine = Engine()
    engine.chat(1)
    result = await CompactNowUseCase(engine.sessions, engine.compact)("s1")
    assert not result.did_compact and result.reason == "nothing_to_compact"


async def test_edit_summary_rejects_a_summary_too_big_to_send_every_time() -> None:
    engine = Engine()
    engine.chat(45)
    await engine.compact("s1", provider_id="anthropic", model_id="claude-sonnet-4-5")
    with pytest.raises(InvalidInput, match="too long"):
        EditSummaryUseCase(engine.sessions, engine.clock)("s1", "x" * 60_000)
    session = engine.sessions.get("s1")
    assert session is not None and session.compacted_summary == "## Goal\nSummary."
