"""SendMessageUseCase: the happy path, the tool loop, truncation, usage, calibration, title, model choice."""

from __future__ import annotations

import json

from domain.context.estimator import calibration_key
from domain.events import (
    ChatError,
    CompactCompleted,
    CompactStarted,
    ContextStatusChanged,
    ResponseComplete,
    TextDelta,
    TitleGenerated,
    ToolCallStarted,
    ToolResultStored,
    ToolRoundLimitReached,
)
from domain.models import MessageType, ToolStatus
from domain.provider_ports import ToolOutcome
from domain.settings import ContextSettings
from tests.fakes_turn import make_world, reply, tool_round


def kinds(events: list[object]) -> list[str]:
    return [type(e).__name__ for e in events]


async def test_user_message_is_stored_before_the_provider_is_called() -> None:
    world = make_world()
    seen_at_request: list[list[str]] = []
    adapter = world.adapter()
    original = adapter.send_message_stream

    def spying(**kwargs):  # type: ignore[no-untyped-def]
        seen_at_request.append([m.content for m in world.stored() if m.type is MessageType.USER])
        return original(**kwargs)

    adapter.send_message_stream = spying  # type: ignore[method-assign]
    adapter.scripts.append(reply("Hi there"))
    await world.turn("Hello")
    assert seen_at_request == [["Hello"]]


async def test_plain_reply_streams_text_and_is_stored_with_its_model() -> None:
    world = make_world()
    world.adapter().scripts.append(reply("Hi there", input_tokens=50))
    events = await world.turn("Hello")
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hi there"]
    stored = world.stored()
    assert [m.type for m in stored] == [MessageType.USER, MessageType.AI_RESPONSE]
    assert stored[1].content == "Hi there"
    assert stored[1].model_id == "claude-big" and stored[1].provider_id == "anthropic"
    assert not stored[1].incomplete
    request = world.adapter().requests[0]
    assert request.system_prompt == "You are helpful."
    assert [m.content for m in request.messages] == ["Hello"]


async def test_events_after_the_answer_come_in_order() -> None:
    world = make_world()
    world.adapter().scripts.append(reply("Fine"))
    events = await world.turn("How are you?")
    names = kinds(events)
    assert names[:1] == ["TextDelta"]
    after = names[names.index("ResponseComplete"):]
    # nothing to compact at 0% of the window: no "Compacting…" is announced (only compactions that run are)
    assert after == ["ResponseComplete", "ContextStatusChanged", "TitleGenerated"]
    assert not any(isinstance(e, CompactStarted | CompactCompleted) for e in events)


async def test_tool_loop_runs_the_tool_stores_call_and_result_and_asks_again() -> None:
    world = make_world(handlers={"http_request": lambda args, ctx: f"page of {args['url']}"})
    world.adapter().scripts.extend([
        tool_round(("c1", "http_request", {"url": "https://example.com"}), text="Let me look."),
        reply("The page says hello."),
    ])
    events = await world.turn("What is on example.com?")
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    results = [e for e in events if isinstance(e, ToolResultStored)]
    assert [(s.call_id, s.name) for s in started] == [("c1", "http_request")]
    assert len(results) == 1 and not results[0].is_error and not results[0].truncated
    stored = world.stored()
    assert [m.type for m in stored] == [
        MessageType.USER, MessageType.AI_RESPONSE, MessageType.TOOL_CALL, MessageType.TOOL_RESULT,
        MessageType.AI_RESPONSE,
    ]
    call, result = stored[2], stored[3]
    assert json.loads(call.tool_input or "") == {"url": "https://example.com"}
    assert call.tool_call_id == result.tool_call_id == "c1"
    assert result.tool_output == "page of https://example.com" and result.tool_status is ToolStatus.SUCCESS
    second = world.adapter().requests[1]
    assert [m.type for m in second.messages][-2:] == [MessageType.TOOL_CALL, MessageType.TOOL_RESULT]
    assert world.tools.calls[0][2].session_id == "s1" and world.tools.calls[0][2].agent_id == "default"


async def test_round_limit_stops_the_turn_with_an_event_and_answers_every_call() -> None:
    world = make_world(settings=ContextSettings(max_tool_rounds=3), handlers={"echo": lambda a, c: "ok"})
    world.adapter().scripts.extend(tool_round((f"c{i}", "echo", {})) for i in range(3))
    events = await world.turn("Loop forever")
    assert len(world.adapter().requests) == 3
    limit = [e for e in events if isinstance(e, ToolRoundLimitReached)]
    assert limit == [ToolRoundLimitReached(3)]
    assert len(world.tools.calls) == 2
    stored = world.stored()
    calls = {m.tool_call_id for m in stored if m.type is MessageType.TOOL_CALL}
    results = {m.tool_call_id: m for m in stored if m.type is MessageType.TOOL_RESULT}
    assert calls == set(results) == {"c0", "c1", "c2"}
    assert results["c2"].tool_status is ToolStatus.ERROR
    assert "limit of 3 tool rounds" in (results["c2"].tool_output or "")
    assert any(isinstance(e, ResponseComplete) for e in events)


async def test_a_100kb_tool_result_is_stored_truncated_with_the_full_original_archived() -> None:
    page = "x" * 100_000
    world = make_world(handlers={"http_request": lambda a, c: page})
    world.adapter().scripts.extend([tool_round(("c1", "http_request", {"url": "https://big"})), reply("Big page.")])
    events = await world.turn("Fetch the big page")
    result_event = next(e for e in events if isinstance(e, ToolResultStored))
    stored = world.messages.get(result_event.message_id)
    assert stored is not None and stored.tool_output is not None
    assert result_event.truncated and result_event.chars == len(stored.tool_output)
    assert stored.tool_output.startswith("x" * 30_000)
    assert "showing first 30000 of 100000 characters" in stored.tool_output
    assert stored.id in stored.tool_output  # the marker names the message read_tool_result pages through
    assert len(stored.tool_output) < 30_000 + 400
    assert stored.tool_output_original_chars == 100_000
    assert world.messages.full_output(stored.id) == page


async def test_a_failing_tool_becomes_an_error_result_and_the_turn_continues() -> None:
    def broken(arguments, context):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk on fire")

    world = make_world(handlers={"broken": broken, "picky": lambda a, c: ToolOutcome("bad url", is_error=True)})
    world.adapter().scripts.extend([
        tool_round(("c1", "broken", {}), ("c2", "picky", {"url": 3}), ("c3", "not_offered", {})),
        reply("Sorry, the tools failed."),
    ])
    events = await world.turn("Try the tools")
    results = [e for e in events if isinstance(e, ToolResultStored)]
    assert [r.is_error for r in results] == [True, True, True]
    outputs = [m.tool_output or "" for m in world.stored() if m.type is MessageType.TOOL_RESULT]
    assert "disk on fire" in outputs[0] and outputs[1] == "bad url" and "not available" in outputs[2]
    assert not any(isinstance(e, ChatError) for e in events)
    assert world.stored()[-1].content == "Sorry, the tools failed."


async def test_usage_of_every_round_accumulates_on_the_session() -> None:
    world = make_world(handlers={"echo": lambda a, c: "ok"})
    world.adapter().scripts.extend([tool_round(("c1", "echo", {}), input_tokens=300),
                                    reply("one", input_tokens=400, output_tokens=20)])
    events = await world.turn("first")
    complete = next(e for e in events if isinstance(e, ResponseComplete))
    assert complete.usage.input_tokens == 700 and complete.usage.output_tokens == 25
    world.adapter().scripts.append(reply("two", input_tokens=500, output_tokens=30))
    await world.turn("second")
    session = world.sessions.get("s1")
    assert (session.total_input_tokens, session.total_output_tokens) == (1_200, 55)


async def test_reported_input_tokens_feed_the_model_calibration() -> None:
    world = make_world()
    text = "Calibrate me, please. " * 200
    reported = 2 * world.estimator.estimate_text(text)  # the provider counts about twice what we estimate
    world.adapter().scripts.append(reply("ok", input_tokens=reported))
    await world.turn(text)
    ratio = world.calibration.get(calibration_key("anthropic", "claude-big"))
    assert ratio is not None and 1.5 < ratio <= 2.0


async def test_first_exchange_gets_a_title_and_later_ones_do_not() -> None:
    world = make_world()
    adapter = world.adapter()
    adapter.completions.append('"Planning a trip to Kyoto."')
    adapter.scripts.extend([reply("Sure."), reply("Again.")])
    first = await world.turn("Help me plan a trip to Kyoto")
    assert [e for e in first if isinstance(e, TitleGenerated)] == [TitleGenerated("Planning a trip to Kyoto")]
    assert world.sessions.get("s1").title == "Planning a trip to Kyoto"
    assert "Help me plan a trip to Kyoto" in adapter.completion_prompts[0][1]
    second = await world.turn("And Osaka?")
    assert not any(isinstance(e, TitleGenerated) for e in second)
    assert len(adapter.completion_prompts) == 1


async def test_a_failing_title_request_is_ignored() -> None:
    from domain.errors import NetworkError

    world = make_world()
    world.adapter().completions.append(NetworkError("down"))
    world.adapter().scripts.append(reply("Hello!"))
    events = await world.turn("Hi")
    assert not any(isinstance(e, (TitleGenerated, ChatError)) for e in events)
    assert world.sessions.get("s1").title == "Test"


async def test_switching_provider_and_model_mid_session_sticks_on_the_session() -> None:
    world = make_world()
    world.adapter("anthropic").scripts.append(reply("from claude"))
    world.adapter("openai").scripts.extend([reply("from gpt"), reply("still gpt")])
    await world.turn("one")
    session = world.sessions.get("s1")
    assert (session.current_provider_id, session.current_model_id) == ("anthropic", "claude-big")
    await world.turn("two", provider_id="OpenAI")
    session = world.sessions.get("s1")
    assert (session.current_provider_id, session.current_model_id) == ("openai", "gpt-small")
    await world.turn("three")
    assert len(world.adapter("openai").requests) == 2
    third = world.adapter("openai").requests[1]
    assert [m.content for m in third.messages if m.type is MessageType.USER] == ["one", "two", "three"]
    assert world.adapters.keys_seen[-1] == ("openai", "sk-openai-test")


async def test_explicit_model_on_the_same_provider_is_used_and_remembered() -> None:
    world = make_world()
    world.adapter().scripts.extend([reply("haiku here"), reply("haiku again")])
    await world.turn("one", model_id="claude-haiku")
    await world.turn("two")
    assert [r.model_id for r in world.adapter().requests] == ["claude-haiku", "claude-haiku"]


async def test_memories_of_the_agent_are_injected_as_a_long_term_memory_section() -> None:
    from datetime import UTC, datetime

    from domain.models import Memory

    world = make_world()
    world.memories.add(Memory("m1", "The user's name is Ada.", datetime(2026, 1, 1, tzinfo=UTC), "default"))
    world.adapter().scripts.append(reply("Hi Ada"))
    await world.turn("Who am I?")
    system = world.adapter().requests[0].system_prompt or ""
    assert system.startswith("You are helpful.")
    assert "Long-term memory" in system and "The user's name is Ada." in system


async def test_stats_count_every_stored_message_and_preview_the_reply() -> None:
    world = make_world()
    world.clock.advance(60)
    world.adapter().scripts.append(reply("A short answer"))
    await world.turn("A question")
    session = world.sessions.get("s1")
    assert session.message_count == 2
    assert session.last_message_preview == "A short answer"
    assert session.updated_at == world.clock.now()


async def test_context_status_reports_the_window_after_the_answer() -> None:
    world = make_world(window=50_000)
    world.adapter().scripts.append(reply("ok"))
    events = await world.turn("status please")
    status = next(e for e in events if isinstance(e, ContextStatusChanged)).status
    assert status.window == 50_000 and 0 < status.used < 1_000


async def test_unknown_session_and_empty_text_are_reported_as_errors_without_calling_the_model() -> None:
    world = make_world()
    missing = await world.turn("hello", session_id="nope")
    blank = await world.turn("   ")
    assert [(e.kind) for e in missing] == ["not_found"]
    assert [(e.kind) for e in blank] == ["invalid_input"]
    assert world.adapter().requests == [] and world.stored() == []


async def test_an_unknown_provider_is_an_error_but_the_message_is_kept() -> None:
    world = make_world()
    events = await world.turn("hello", provider_id="mistral")
    assert [type(e) for e in events] == [ChatError]
    assert events[0].kind == "not_found" and "mistral" in events[0].message
    assert [m.content for m in world.stored()] == ["hello"]


async def test_no_compaction_is_announced_when_none_runs() -> None:
    world = make_world(window=None)
    world.adapter().scripts.append(reply("ok"))
    events = await world.turn("no window known")
    assert not any(isinstance(e, CompactStarted | CompactCompleted) for e in events)
    assert world.summarizer.calls == []


async def test_reasoning_is_streamed_and_stored_beside_the_reply() -> None:
    from domain.events import StreamDone, ThinkingDelta

    world = make_world()
    world.adapter().scripts.append([ThinkingDelta("Let me think. "), ThinkingDelta("Done."), TextDelta("42"),
                                    StreamDone("end_turn")])
    events = await world.turn("Answer?")
    assert [e.text for e in events if isinstance(e, ThinkingDelta)] == ["Let me think. ", "Done."]
    reply_message = world.stored()[-1]
    assert reply_message.content == "42" and reply_message.thinking_content == "Let me think. Done."
