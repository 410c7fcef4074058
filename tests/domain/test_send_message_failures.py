"""SendMessageUseCase when things go wrong: cancellation, failures midway, provider errors, context overflow."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from domain.errors import AuthenticationFailed, ContextOverflow, NetworkError, RateLimited
from domain.events import (
    ChatError,
    CompactCompleted,
    CompactStarted,
    ResponseComplete,
    TextDelta,
    ToolCallStarted,
)
from domain.models import Message, MessageType, ToolStatus
from domain.settings import ContextSettings
from tests.fakes_turn import Hang, TurnWorld, make_world, reply, tool_round

SUMMARY = "Goal: keep chatting. Critical Context: the user's cat is called Miso."


def seed_history(world: TurnWorld, turns: int, chars: int = 8_000) -> None:
    """Stored earlier turns of about chars/4 tokens per message (so no title is generated)."""
    filler = "lorem ipsum " * (chars // 12)
    for i in range(turns):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"Question {i}: {filler}"))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"Answer {i}: {filler}"))


async def test_cancelling_midstream_keeps_the_partial_reply_marked_incomplete() -> None:
    world = make_world()
    hang = Hang()
    world.adapter().scripts.append([TextDelta("Once upon a "), TextDelta("time"), hang])
    events: list[object] = []

    async def consume() -> None:
        async for event in world.send("s1", "Tell me a story"):
            events.append(event)

    task = asyncio.create_task(consume())
    await hang.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stored = world.stored()
    assert [m.type for m in stored] == [MessageType.USER, MessageType.AI_RESPONSE]
    assert stored[0].content == "Tell me a story"
    assert stored[1].content == "Once upon a time" and stored[1].incomplete
    assert world.sessions.get("s1").message_count == 2
    assert not any(isinstance(e, ResponseComplete) for e in events)


async def test_closing_the_generator_keeps_the_partial_reply() -> None:
    world = make_world()
    world.adapter().scripts.append([TextDelta("Half an answer"), Hang()])
    turn = world.send("s1", "Question")
    first = await turn.__anext__()
    assert first == TextDelta("Half an answer")
    await turn.aclose()
    last = world.stored()[-1]
    assert last.type is MessageType.AI_RESPONSE and last.content == "Half an answer" and last.incomplete


async def test_stopping_while_a_tool_is_pending_answers_the_call_so_history_stays_valid() -> None:
    world = make_world(handlers={"http_request": lambda a, c: "never read"})
    world.adapter().scripts.append(tool_round(("c1", "http_request", {"url": "https://x"}), text="Fetching"))
    turn = world.send("s1", "Fetch x")
    async for event in turn:
        if isinstance(event, ToolCallStarted):
            break
    await turn.aclose()
    stored = world.stored()
    assert [m.type for m in stored] == [
        MessageType.USER, MessageType.AI_RESPONSE, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
    ]
    assert stored[3].tool_call_id == "c1" and stored[3].tool_status is ToolStatus.ERROR
    assert world.tools.calls == []


async def test_a_stream_failing_midway_keeps_the_partial_reply_and_reports_the_error() -> None:
    world = make_world()
    world.adapter().scripts.append([TextDelta("The first half"), NetworkError("connection reset")])
    events = await world.turn("Explain")
    assert isinstance(events[-1], ChatError)
    assert events[-1].kind == "network" and events[-1].retryable
    last = world.stored()[-1]
    assert last.content == "The first half" and last.incomplete


async def test_a_provider_error_before_any_output_keeps_the_users_message() -> None:
    world = make_world()
    world.adapter().scripts.append(AuthenticationFailed("Anthropic"))
    events = await world.turn("Are you there?")
    assert [type(e) for e in events] == [ChatError]
    assert events[0].kind == "authentication" and "Anthropic" in events[0].message and not events[0].retryable
    assert [m.content for m in world.stored()] == ["Are you there?"]


async def test_rate_limiting_is_reported_as_retryable() -> None:
    world = make_world()
    world.adapter().scripts.append(RateLimited(retry_after=3))
    events = await world.turn("hi")
    assert events[-1] == ChatError("rate_limited", "The provider is rate limiting requests. Try again in 3 s.", True)


async def test_overflow_records_the_limit_compacts_and_retries_once_to_an_answer() -> None:
    world = make_world(summaries=(SUMMARY,))
    seed_history(world, 6)
    adapter = world.adapter()
    adapter.scripts.extend([ContextOverflow(tokens=26_000, limit=12_000), reply("Recovered answer")])
    events = await world.turn("What is my cat called?")
    assert not any(isinstance(e, ChatError) for e in events)
    assert world.models.recorded_limits == [("anthropic", "claude-big", 12_000)]
    assert world.models.get("anthropic", "claude-big").context_window_size == 12_000
    started = [e for e in events if isinstance(e, CompactStarted)]
    assert started[0].trigger == "overflow"
    done = next(e for e in events if isinstance(e, CompactCompleted))
    assert done.did_compact and done.tokens_after < done.tokens_before
    assert len(adapter.requests) == 2
    retry = adapter.requests[1]
    assert SUMMARY in (retry.system_prompt or "")
    assert len(retry.messages) < len(adapter.requests[0].messages)
    assert retry.messages[-1].content == "What is my cat called?"
    assert world.stored()[-1].content == "Recovered answer"
    assert [r.trigger for r in world.sessions.compactions("s1")] == ["overflow"]
    ratio = world.calibration.get("anthropic/claude-big")  # the refused size taught the estimator
    assert ratio is not None and ratio > 1.0


async def test_second_overflow_sends_the_summary_and_the_newest_turns_that_fit() -> None:
    world = make_world(summaries=(SUMMARY,))
    seed_history(world, 6)
    adapter = world.adapter()
    adapter.scripts.extend([
        ContextOverflow(tokens=26_000, limit=12_000),
        ContextOverflow(tokens=14_000, limit=12_000),
        reply("Answer from a fitted request"),
    ])
    events = await world.turn("Newest question")
    assert not any(isinstance(e, ChatError) for e in events)
    assert len(adapter.requests) == 3
    second, third = adapter.requests[1], adapter.requests[2]
    assert SUMMARY in (third.system_prompt or "")
    assert len(third.messages) < len(second.messages)
    assert third.messages[-1].content == "Newest question"
    assert world.stored()[-1].content == "Answer from a fitted request"


async def test_when_the_forced_compaction_fails_the_retry_is_the_fitted_request_not_the_refused_one() -> None:
    world = make_world(summaries=(NetworkError("summarizer down"), NetworkError("summarizer down")))
    world.summarizer.default = SUMMARY  # later compactions (after the answer) may succeed
    seed_history(world, 1)  # our estimate (~4,000) is far below what the provider counted (26,000)
    adapter = world.adapter()
    adapter.scripts.extend([
        ContextOverflow(tokens=26_000, limit=12_000),
        reply("Answer from a fitted request"),
        reply("NO_REPLY"),  # the memory flush after the answer, if it fires
    ])
    events = await world.turn("Newest question")
    assert not any(isinstance(e, ChatError) for e in events)
    done = next(e for e in events if isinstance(e, CompactCompleted))
    assert not done.did_compact and done.fallback
    # the unchanged request is not sent a second time only to be refused again: the retry is the fitted one
    first, retry = adapter.requests[0], adapter.requests[1]
    assert len(retry.messages) < len(first.messages) and retry.messages[-1].content == "Newest question"
    assert world.stored()[-1].content == "Answer from a fitted request"


async def test_a_third_overflow_is_reported_and_nothing_is_lost() -> None:
    world = make_world(summaries=(SUMMARY,))
    seed_history(world, 6)
    world.adapter().scripts.extend([ContextOverflow(tokens=26_000, limit=12_000)] * 3)
    events = await world.turn("Still too long?")
    assert isinstance(events[-1], ChatError) and events[-1].kind == "context_overflow"
    assert len(world.adapter().requests) == 3
    assert world.stored()[-1].content == "Still too long?"
    assert world.messages.count("s1") == 13


async def test_switching_to_a_smaller_window_compacts_before_sending() -> None:
    world = make_world()
    world.summarizer.default = SUMMARY
    seed_history(world, 5)  # about 20,000 tokens, far over gpt-small's 8,000
    world.sessions.update(replace(world.sessions.get("s1"), current_provider_id="anthropic",
                                  current_model_id="claude-big"))
    world.adapter("openai").scripts.append(reply("Small model answer"))
    events = await world.turn("Continue on the small model", provider_id="openai")
    names = [type(e).__name__ for e in events]
    assert names.index("CompactStarted") < names.index("TextDelta")
    assert next(e for e in events if isinstance(e, CompactStarted)).trigger == "model_switch"
    request = world.adapter("openai").requests[0]
    assert SUMMARY in (request.system_prompt or "")
    assert world.estimator.estimate_request(request.system_prompt, request.messages, request.tools) < 8_000
    assert request.messages[-1].content == "Continue on the small model"
    assert world.models.recorded_limits == []
    assert not any(isinstance(e, ChatError) for e in events)


async def test_max_tokens_stop_on_a_nearly_full_window_forces_a_compaction() -> None:
    world = make_world(window=12_000)
    world.summarizer.default = SUMMARY
    seed_history(world, 3, chars=5_600)  # about 8,400 of 12,000 tokens: less room than max_output_tokens
    world.adapter().scripts.extend([reply("cut off mid", stop="max_tokens"), reply("NO_REPLY")])  # answer, flush
    events = await world.turn("Write a long essay")
    started = [e for e in events if isinstance(e, CompactStarted)]
    assert [s.trigger for s in started] == ["overflow"]
    done = next(e for e in events if isinstance(e, CompactCompleted))
    assert done.did_compact


async def test_a_max_tokens_stop_with_room_left_does_not_force_compaction() -> None:
    world = make_world(settings=ContextSettings(max_output_tokens=1_000))
    world.adapter().scripts.append(reply("long", stop="max_tokens"))
    events = await world.turn("Write")
    assert not any(isinstance(e, CompactStarted | CompactCompleted) for e in events)


async def test_output_tokens_requested_never_exceed_the_room_left_in_the_window() -> None:
    world = make_world(window=12_000)
    seed_history(world, 2)
    world.adapter().scripts.extend([reply("ok"), reply("NO_REPLY")])  # the answer, then the memory flush
    await world.turn("go")
    request = world.adapter().requests[0]
    used = world.estimator.estimate_request(request.system_prompt, request.messages, request.tools)
    assert request.max_output_tokens <= 12_000 - used


async def test_a_request_grown_past_the_window_without_a_switch_is_compacted_as_overflow() -> None:
    world = make_world(window=12_000)
    world.summarizer.default = SUMMARY
    seed_history(world, 4)  # about 16,000 tokens of history on a 12,000-token model
    world.adapter().scripts.append(reply("fine"))
    events = await world.turn("next")
    assert next(e.trigger for e in events if isinstance(e, CompactStarted)) == "overflow"
    assert not any(isinstance(e, ChatError) for e in events)


async def test_a_session_whose_first_turn_failed_still_gets_a_title_later() -> None:
    from domain.events import TitleGenerated

    world = make_world()
    world.adapter().scripts.extend([NetworkError("down"), reply("Now it works")])
    await world.turn("first try")
    events = await world.turn("second try")
    assert any(isinstance(e, TitleGenerated) for e in events)


async def test_retrying_a_failed_turn_answers_the_stored_message_without_storing_it_twice() -> None:
    world = make_world()
    world.adapter().scripts.append(RateLimited(retry_after=1))
    await world.turn("What is the capital of Portugal?")
    world.adapter().scripts.append(reply("Lisbon."))
    events = [e async for e in world.send("s1", "", retry=True)]
    assert any(isinstance(e, ResponseComplete) for e in events)
    stored = world.stored()
    assert [(m.type, m.content) for m in stored] == [
        (MessageType.USER, "What is the capital of Portugal?"),
        (MessageType.AI_RESPONSE, "Lisbon."),
    ]
    sent = world.adapter().requests[-1].messages
    assert [m.content for m in sent if m.type is MessageType.USER] == ["What is the capital of Portugal?"]


async def test_retrying_after_a_partial_reply_replaces_it_on_the_path_and_never_sends_it() -> None:
    world = make_world()
    world.adapter().scripts.append([TextDelta("Lisbon is the capital, and "), NetworkError("connection reset")])
    await world.turn("What is the capital of Portugal?")
    partial = world.stored()[-1]
    assert partial.incomplete and partial.content.endswith(" ")
    world.adapter().scripts.append(reply("Lisbon."))
    events = [e async for e in world.send("s1", "", retry=True)]
    assert any(isinstance(e, ResponseComplete) for e in events)
    sent = world.adapter().requests[-1].messages
    assert [(m.type, m.content) for m in sent] == [(MessageType.USER, "What is the capital of Portugal?")]
    assert [(m.content, m.active) for m in world.stored()] == [("What is the capital of Portugal?", True),
                                                               ("Lisbon.", True)]
    everything = world.messages.snapshot("s1", include_inactive=True)
    assert [(m.content, m.incomplete, m.active) for m in everything] == [
        ("What is the capital of Portugal?", False, True), ("Lisbon is the capital, and ", True, False),
        ("Lisbon.", False, True),
    ]


async def test_retrying_with_no_user_message_is_a_clear_error() -> None:
    world = make_world()
    events = [e async for e in world.send("s1", "", retry=True)]
    assert [type(e) for e in events] == [ChatError]
    assert events[0].kind == "invalid_input" and "no message to retry" in events[0].message
    assert world.stored() == []


async def test_a_message_that_alone_cannot_fit_the_window_is_refused_before_anything_is_stored() -> None:
    world = make_world(window=8_000)
    events = await world.turn("lorem ipsum dolor " * 4_000)  # about 18,000 tokens for an 8,000-token window
    assert [type(e).__name__ for e in events] == ["ChatError"]
    assert events[0].kind == "invalid_input" and "too long for claude-big" in events[0].message
    assert "8,000-token window" in events[0].message and "characters) fit" in events[0].message
    assert world.stored() == [] and world.adapter().requests == []


async def test_a_long_message_that_fits_alone_is_sent_and_compaction_makes_room_for_it() -> None:
    world = make_world(window=8_000)
    world.adapter().scripts.append(reply("read it"))
    events = await world.turn("lorem ipsum " * 800)  # about 2,000 tokens: fits with room to answer
    assert not any(type(e).__name__ == "ChatError" for e in events)
    assert [m.type.value for m in world.stored()] == ["user", "ai_response"]
