"""The engine's side of overflow recovery: forced compaction, then the double fallback to a sendable request."""

from __future__ import annotations

from dataclasses import replace

from domain.context.builder import CompactAwareMessageBuilder
from domain.models import MessageType
from tests.domain.engine_setup import SONNET, Engine
from tests.domain.invariants import assert_valid_request


async def test_overflow_forces_a_compaction_even_below_the_stored_threshold() -> None:
    engine = Engine()
    engine.chat(15)  # ~4,000 tokens: fine for 10,000, too much for a 3,000 window learned from an error
    engine.models.record_limit("anthropic", SONNET.id, 3_000)
    result = await engine.compact("s1", provider_id="anthropic", model_id=SONNET.id, force=True, trigger="overflow")
    assert result.did_compact and engine.sessions.compactions("s1")[0].trigger == "overflow"


async def test_a_second_overflow_after_reactive_compaction_still_yields_a_sendable_request() -> None:
    engine = Engine()
    engine.chat(30)
    engine.say(MessageType.USER, "and now analyse the server log")
    engine.say(MessageType.TOOL_CALL, "", tool_call_id="c1", tool_name="read_log", tool_input="{}")
    engine.say(MessageType.TOOL_RESULT, "", tool_call_id="c1", tool_name="read_log", tool_output="line " * 6_000)
    await engine.compact("s1", provider_id="anthropic", model_id=SONNET.id, force=True, trigger="overflow")
    session = engine.sessions.get("s1")
    assert session is not None and session.compact_boundary is not None
    builder = CompactAwareMessageBuilder()
    built = builder.build(session, engine.messages.since("s1", session.compact_boundary), "P")
    budget = 4_000
    assert engine.estimator.estimate_request(built.system_prompt, built.messages) > budget
    fitted = builder.fit_to_budget(built, budget, engine.estimator)
    assert engine.estimator.estimate_request(fitted.system_prompt, fitted.messages) <= budget
    assert fitted.system_prompt == built.system_prompt  # the summary stays
    assert fitted.messages[0].content == "and now analyse the server log"
    assert fitted.messages[-1].type is MessageType.TOOL_RESULT
    assert_valid_request(fitted.messages)


async def test_switching_to_a_smaller_window_is_handled_by_compacting_for_that_model() -> None:
    small = replace(SONNET, id="claude-haiku-small", context_window_size=4_000, max_output_tokens=1_000)
    engine = Engine()
    engine.models.upsert(small)
    engine.chat(20)
    result = await engine.compact("s1", provider_id="anthropic", model_id=small.id)
    assert result.did_compact and result.tokens_after <= 4_000 * 0.85
