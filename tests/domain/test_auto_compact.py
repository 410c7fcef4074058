"""AutoCompactUseCase: threshold, cut, checkpoint/update prompts, retry and fallback, chunking, loop guard."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from domain.context.prompts import CHECKPOINT_PROMPT, FOCUS_HEADER, UPDATE_PROMPT
from domain.errors import ContextOverflow, ProviderUnavailable
from domain.models import AiModel, MessageType, Retirement
from domain.settings import ContextSettings
from tests.domain.engine_setup import HAIKU, SONNET, Engine
from tests.fakes import FakeModelRepository, FakeSummarizer


async def run(engine: Engine, **kwargs: object):
    return await engine.compact("s1", provider_id="anthropic", model_id=SONNET.id, **kwargs)  # type: ignore[arg-type]


async def test_unknown_window_is_a_no_op() -> None:
    engine = Engine(models=FakeModelRepository([replace(SONNET, context_window_size=None)]))
    engine.chat(60)
    result = await run(engine)
    assert not result.did_compact and result.reason == "unknown_window"
    assert engine.summarizer.calls == []


async def test_below_the_threshold_nothing_is_compacted() -> None:
    engine = Engine()
    engine.chat(10)  # ~4,000 tokens of a 10,000 window
    result = await run(engine)
    assert not result.did_compact and result.reason == "below_threshold"
    assert engine.summarizer.calls == [] and engine.sessions.apply_calls == 0


async def test_above_the_threshold_older_messages_are_summarized_and_persisted() -> None:
    engine = Engine()
    engine.chat(45)  # ~18,000 tokens
    result = await run(engine)
    session = engine.sessions.get("s1")
    assert result.did_compact and not result.fallback
    assert session is not None and session.compacted_summary == "## Goal\nSummary."
    assert session.compaction_count == 1 and session.compact_boundary is not None
    boundary_message = engine.messages.since("s1", session.compact_boundary)[0]
    assert boundary_message.type is MessageType.USER
    assert result.tokens_before > 8_500 and result.tokens_after < result.tokens_before
    (record,) = engine.sessions.compactions("s1")
    assert (record.tokens_before, record.tokens_after, record.trigger) == (result.tokens_before, result.tokens_after,
                                                                          "auto")


async def test_kept_part_is_about_a_quarter_of_the_window() -> None:
    engine = Engine()
    engine.chat(45)
    await run(engine)
    session = engine.sessions.get("s1")
    assert session is not None and session.compact_boundary is not None
    kept = engine.estimator.estimate_messages(engine.messages.since("s1", session.compact_boundary))
    assert 1_500 <= kept <= 2_500


async def test_first_compaction_uses_the_checkpoint_prompt_on_the_cheaper_sibling() -> None:
    engine = Engine()
    engine.chat(45)
    await run(engine)
    call = engine.summarizer.calls[0]
    assert CHECKPOINT_PROMPT in call.prompt and "question 0" in call.prompt
    assert call.model_id == HAIKU.id and call.provider_id == "anthropic"
    assert call.max_tokens == 2_048


async def test_second_compaction_merges_into_previous_summary_with_the_update_prompt() -> None:
    engine = Engine()
    engine.chat(45)
    await run(engine)
    engine.summarizer.default = "## Goal\nUpdated summary."
    engine.chat(40)
    first_calls = len(engine.summarizer.calls)
    result = await run(engine)
    assert len(engine.summarizer.calls) == first_calls + 1
    last = engine.summarizer.calls[-1]
    assert result.did_compact
    assert UPDATE_PROMPT in last.prompt and "## Goal\nSummary." in last.prompt
    assert "question 0:" not in last.prompt  # already summarized messages are not sent again
    session = engine.sessions.get("s1")
    assert session is not None and session.compaction_count == 2
    assert session.compacted_summary == "## Goal\nUpdated summary."


async def test_a_failed_summary_is_retried_once() -> None:
    engine = Engine(summarizer=FakeSummarizer(ProviderUnavailable(), "## Goal\nSecond try."))
    engine.chat(45)
    result = await run(engine)
    assert result.did_compact and len(engine.summarizer.calls) == 2


async def test_summarization_failure_falls_back_and_leaves_the_session_unchanged() -> None:
    engine = Engine(summarizer=FakeSummarizer(ProviderUnavailable(), ProviderUnavailable()))
    engine.chat(45)
    before = engine.sessions.get("s1")
    result = await run(engine)
    assert not result.did_compact and result.fallback
    assert engine.sessions.get("s1") == before and engine.sessions.apply_calls == 0


async def test_a_blank_summary_counts_as_a_failure() -> None:
    engine = Engine(summarizer=FakeSummarizer("  ", "\n"))
    engine.chat(45)
    result = await run(engine)
    assert result.fallback and result.reason == "summarizer_blank"


async def test_oversized_input_is_summarized_in_chunks_and_merged() -> None:
    small = replace(HAIKU, context_window_size=8_000, max_output_tokens=1_000)
    engine = Engine(models=FakeModelRepository([replace(SONNET, context_window_size=200_000), small]))
    engine.chat(800)  # ~210,000 tokens, far beyond the summarizer's 8,000
    result = await run(engine)
    prompts = engine.summarizer.prompts
    assert result.did_compact and len(prompts) > 5
    assert CHECKPOINT_PROMPT in prompts[0]
    assert all(UPDATE_PROMPT in p for p in prompts[1:])
    assert all(len(p) < 8_000 * 3 for p in prompts)
    assert "question 0:" in prompts[0] and any("question 300:" in p for p in prompts)


async def test_a_summarizer_overflow_splits_the_chunk_smaller() -> None:
    engine = Engine(summarizer=FakeSummarizer(ContextOverflow(tokens=9_000, limit=8_000), default="## Goal\nOK."))
    engine.chat(45)
    result = await run(engine)
    prompts = engine.summarizer.prompts
    assert result.did_compact and len(prompts) >= 3
    assert len(prompts[1]) < len(prompts[0])


async def test_force_compacts_below_the_threshold_with_focus_instructions() -> None:
    engine = Engine()
    engine.chat(15)
    result = await run(engine, force=True, instructions="Keep the database schema details.", trigger="manual")
    assert result.did_compact
    assert FOCUS_HEADER in engine.summarizer.prompts[0]
    assert "Keep the database schema details." in engine.summarizer.prompts[0]
    assert engine.sessions.compactions("s1")[0].trigger == "manual"


async def test_loop_guard_stops_retrying_until_new_messages_arrive() -> None:
    engine = Engine(summarizer=FakeSummarizer(default="## Goal\n" + "very long summary " * 1_800))
    engine.chat(45)
    first = await run(engine)
    assert first.reason == "loop_guard"
    calls = len(engine.summarizer.calls)
    second = await run(engine)
    assert not second.did_compact and second.reason == "loop_guard"
    assert len(engine.summarizer.calls) == calls
    engine.chat(1)
    await run(engine)
    assert len(engine.summarizer.calls) > calls


async def test_a_summary_that_frees_nothing_is_not_stored() -> None:
    engine = Engine(summarizer=FakeSummarizer(default="## Goal\n" + "enormous " * 20_000))
    engine.chat(45)
    result = await run(engine)
    assert not result.did_compact and result.reason == "no_gain"
    assert engine.sessions.apply_calls == 0


async def test_a_summary_made_stale_by_a_concurrent_change_is_dropped() -> None:
    engine = Engine()

    class EditingSummarizer(FakeSummarizer):
        async def summarize(self, **kwargs: object) -> str:  # type: ignore[override]
            session = engine.sessions.get("s1")
            assert session is not None
            engine.sessions.update(replace(session, compacted_summary="edited by the user", compact_boundary=1))
            return "## Goal\nStale."

    engine.summarizer = EditingSummarizer()
    engine.chat(45)
    result = await run(engine)
    assert not result.did_compact and result.reason == "stale"
    session = engine.sessions.get("s1")
    assert session is not None and session.compacted_summary == "edited by the user"


async def test_compaction_model_can_be_overridden_in_settings() -> None:
    engine = Engine(settings=ContextSettings(compaction_model_id=SONNET.id))
    engine.chat(45)
    await run(engine)
    assert engine.summarizer.calls[0].model_id == SONNET.id


async def test_tool_definitions_count_towards_the_threshold() -> None:
    from domain.models import ToolDefinition

    engine = Engine()
    engine.chat(20)
    alone = await run(engine)
    assert alone.reason == "below_threshold"
    tool = ToolDefinition("t", "word " * (8_500 - alone.tokens_before + 200), {"type": "object"})
    assert (await run(engine, tools=[tool])).did_compact


async def test_a_retired_sibling_never_summarizes_and_a_retiring_one_only_when_no_other_is_there() -> None:
    """By the clock's day (2026-01-01): a Haiku retired the day before is skipped, one retiring later is taken only
    while no Haiku without a retirement is there."""
    retired = replace(HAIKU, retirement=Retirement(date(2025, 12, 31)))
    retiring = AiModel(id="claude-3-5-haiku", display_name=None, provider_id="anthropic", context_window_size=200_000,
                       retirement=Retirement(date(2026, 2, 19)))
    live = AiModel(id="claude-haiku-5", display_name=None, provider_id="anthropic", context_window_size=200_000)
    chosen = []
    for models in ([SONNET, retired], [SONNET, retired, retiring], [SONNET, retired, retiring, live]):
        engine = Engine(models=FakeModelRepository(models))
        engine.chat(45)
        await run(engine)
        chosen.append(engine.summarizer.calls[0].model_id)
    assert chosen == [SONNET.id, retiring.id, live.id]


async def test_a_local_model_without_siblings_summarizes_with_itself() -> None:
    local = AiModel(id="llama3.1:8b", display_name=None, provider_id="ollama", context_window_size=10_000)
    engine = Engine(models=FakeModelRepository([local]))
    engine.chat(45)
    await engine.compact("s1", provider_id="ollama", model_id=local.id)
    assert engine.summarizer.calls[0].model_id == local.id
