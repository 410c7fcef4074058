"""The Responses API adapter against the Responses fake: stateless reasoning kept and echoed in order, function
calls and outputs as items, summaries as thinking, usage with cached and reasoning tokens, errors."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from data.providers.factory import SdkAdapterFactory, uses_responses
from data.providers.responses_adapter import ResponsesAdapter
from data.providers.responses_shape import responses_input
from data.providers.retry import RetryPolicy
from domain.errors import BillingError, ContextOverflow, ProviderUnavailable
from domain.events import (
    ReasoningDone,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReported,
)
from domain.models import (
    Message,
    ModelCapabilities,
    Provider,
    ProviderApi,
    ProviderType,
    ReasoningBlock,
    ReasoningKind,
    ThinkingForm,
)
from tests.fakeservers import ErrorReply, Reply, ScriptedBrain, ToolCall
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.providers.helpers import KEY, WEATHER, History, RecordingSleep, collect, post_json

GPT5 = ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON, efforts=("minimal", "low", "medium", "high"))


def responses_adapter(base_url: str, retries: int = 0, sleep: RecordingSleep | None = None) -> ResponsesAdapter:
    policy = RetryPolicy(max_retries=retries, sleep=sleep or RecordingSleep())
    provider = Provider(id="openai", name="OpenAI", type=ProviderType.OPENAI, base_url=base_url,
                        api=ProviderApi.RESPONSES)
    adapter = SdkAdapterFactory(timeout=10.0, env={}, retry=policy).create(provider, KEY)
    assert isinstance(adapter, ResponsesAdapter)
    return adapter


def send(adapter: ResponsesAdapter, messages: list[Message], *, model: str = "gpt-5-mini",
         caps: ModelCapabilities | None = GPT5, reasoning: str = "medium", max_output: int = 512) -> Any:
    return adapter.send_message_stream(model_id=model, system_prompt="Be brief.", messages=messages,
                                       tools=(WEATHER,), max_output_tokens=max_output, reasoning=reasoning,
                                       capabilities=caps, cache_key="session-1")


def with_reasoning(history: History, index: int, events: list[StreamEvent]) -> None:
    """Stores each ReasoningDone as the app does: the reply's on the reply, a call's on that call's message."""
    for done in (e for e in events if isinstance(e, ReasoningDone)):
        at = index if done.call_id is None else next(
            i for i, m in enumerate(history.messages) if m.tool_call_id == done.call_id and m.type.value == "tool_call")
        history.messages[at] = replace(history.messages[at], reasoning=(*history.messages[at].reasoning, done.block))


def test_auto_picks_the_responses_api_for_openai_itself_only():
    assert uses_responses(ProviderApi.AUTO, "https://api.openai.com/v1/")
    assert not uses_responses(ProviderApi.AUTO, "http://localhost:11434/v1")
    assert not uses_responses(ProviderApi.AUTO, "https://openrouter.ai/api/v1")
    assert uses_responses(ProviderApi.RESPONSES, "http://127.0.0.1:9/v1")
    assert not uses_responses(ProviderApi.CHAT_COMPLETIONS, "https://api.openai.com/v1")


async def test_a_stateless_request_streams_the_summary_as_thinking_and_keeps_the_done_items_reasoning():
    brain = ScriptedBrain([Reply(thinking=("Weighing ", "options."), text_chunks=("Hel", "lo"))])
    with FakeResponsesServer(brain) as fake:
        events = await collect(send(responses_adapter(fake.base_url), History().user("hi").messages))
    body = fake.requests[-1].raw
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"summary": "auto", "effort": "medium"}
    assert body["instructions"] == "Be brief." and body["max_output_tokens"] == 512
    assert body["prompt_cache_key"] == "session-1"
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Weighing options."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
    [done] = [e.block for e in events if isinstance(e, ReasoningDone) and e.call_id is None]
    assert done.item_id in fake.issued and done.data == fake.issued[done.item_id]  # not the added event's cut copy
    assert done.text == "Weighing options." and done.belongs_to("openai", "gpt-5-mini")
    [usage] = [e.usage for e in events if isinstance(e, UsageReported)]
    assert usage.input_tokens == fake.stats[-1].input_tokens and usage.reasoning_tokens > 0
    assert events[-1] == StreamDone("end_turn")


async def test_a_tool_loop_echoes_reasoning_before_its_call_and_the_output_after_it():
    call = ToolCall("get_weather", {"city": "Oslo"}, id="call_7")
    brain = ScriptedBrain([Reply(thinking=("Need weather.",), tool_calls=(call,), tool_argument_chunk=4),
                           Reply(thinking=("Got it.",), text_chunks=("Sunny.",)), "Bye"])
    with FakeResponsesServer(brain) as fake:
        adapter = responses_adapter(fake.base_url)
        history = History().user("weather in Oslo? " + "Some context about my travel plans. " * 150)
        first = await collect(send(adapter, history.messages))
        requested = [(e.id, dict(e.input)) for e in first if isinstance(e, ToolCallRequested)]
        assert requested == [("call_7", {"city": "Oslo"})]
        assert first[-1] == StreamDone("tool_use")
        history.ai("").call("call_7", "get_weather", {"city": "Oslo"}).result("call_7", "get_weather", "sunny")
        with_reasoning(history, 1, first)
        second = await collect(send(adapter, history.messages))
        history.ai("Sunny.")
        with_reasoning(history, 4, second)
        await collect(send(adapter, history.user("thanks").messages))
    assert fake.refusals == []
    kinds = [item.get("type", item.get("role")) for item in fake.requests[1].raw["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert fake.stats[1].cached_tokens > 1024 and fake.requests[1].raw["prompt_cache_key"] == "session-1"
    third = fake.requests[2].raw["input"]  # a new user turn: the finished loop's reasoning still goes, in place
    assert [item.get("type", item.get("role")) for item in third] == [
        "user", "reasoning", "function_call", "function_call_output", "reasoning", "assistant", "user"]
    assert third[:4] == fake.requests[1].raw["input"]  # the previous request is this one's prefix
    assert fake.stats[2].cached_tokens > 1024 and fake.stats[2].cached_tokens % 128 == 0  # OpenAI's cache steps


async def test_another_models_reasoning_is_never_sent():
    block = ReasoningBlock(kind=ReasoningKind.ENCRYPTED, text="x", data="gAAAAforeign", item_id="rs_foreign",
                           provider_id="openai", model_id="o3")
    history = History().user("hi").ai("hello")
    history.messages[1] = replace(history.messages[1], reasoning=(block,))
    with FakeResponsesServer(ScriptedBrain(["ok"])) as fake:
        await collect(send(responses_adapter(fake.base_url), history.user("again").messages))
    assert fake.refusals == [] and all(i.get("type") != "reasoning" for i in fake.requests[-1].raw["input"])


async def test_a_model_that_does_not_reason_gets_no_reasoning_knobs():
    with FakeResponsesServer(ScriptedBrain(["plain"])) as fake:
        events = await collect(send(responses_adapter(fake.base_url), History().user("hi").messages, model="gpt-4o",
                                    caps=ModelCapabilities()))
    assert fake.refusals == [] and "reasoning" not in fake.requests[-1].raw and "include" not in fake.requests[-1].raw
    assert not any(isinstance(e, ReasoningDone) for e in events)


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return post_json(url + "/responses", body, {"authorization": "Bearer k"})


def test_the_fake_refuses_a_reasoning_item_without_its_following_item_and_an_output_without_its_call():
    with FakeResponsesServer(ScriptedBrain(default=Reply.of_text("x"))) as fake:
        _, made = post(fake.base_url, {"model": "gpt-5", "input": "hi", "store": False,
                                       "include": ["reasoning.encrypted_content"]})
        item = made["output"][0]
        assert item["type"] == "reasoning"
        alone = {"model": "gpt-5", "store": False, "input": [{"role": "user", "content": "hi"}, item,
                                                             {"role": "user", "content": "and?"}]}
        status, body = post(fake.base_url, alone)
        assert status == 400 and body["error"]["message"] == (
            f"Item '{item['id']}' of type 'reasoning' was provided without its required following item.")
        orphan = {"model": "gpt-5", "input": [{"type": "function_call_output", "call_id": "call_9", "output": "x"}]}
        status, body = post(fake.base_url, orphan)
        assert status == 400 and "No tool call found for function call output with call_id call_9" in \
            body["error"]["message"]
        forged = {**alone, "input": [{"role": "user", "content": "hi"}, {**item, "encrypted_content": "gAAAAfake"},
                                     {"role": "assistant", "content": "x"}]}
        status, body = post(fake.base_url, forged)
        assert status == 400 and body["error"]["code"] == "invalid_encrypted_content"
        assert body["error"]["message"] == "The encrypted content gAAA...fake could not be verified."
        assert body["error"]["param"] is None
        kept = [{"role": "user", "content": "hi"}, item, {"role": "assistant", "content": "x"}]
        status, body = post(fake.base_url, {**alone, "model": "gpt-5-mini", "input": kept})  # another model's
        content = item["encrypted_content"]
        assert status == 400 and body["error"] == {
            "message": f"The encrypted content {content[:4]}...{content[-4:]} could not be verified.",
            "type": "invalid_request_error", "param": None, "code": "invalid_encrypted_content"}
        status, _ = post(fake.base_url, {**alone, "input": kept})  # the model that made it: accepted
        assert status == 200


async def test_the_quota_body_is_a_billing_error_not_retried_with_its_request_id():
    sleep = RecordingSleep()
    with FakeResponsesServer(ScriptedBrain(["never"]), quota=True) as fake, pytest.raises(BillingError) as caught:
        await collect(send(responses_adapter(fake.base_url, retries=2, sleep=sleep), History().user("hi").messages))
    assert sleep.delays == [] and len(fake.log) == 1
    message = caught.value.message
    assert "no quota or credit left" in message and "shortly" not in message
    assert "https://platform.openai.com/settings/organization/billing" in message  # where to fix it
    assert caught.value.request_id and caught.value.request_id.startswith("req_") and caught.value.request_id in message


async def test_the_gpt5_overflow_body_names_the_input_limit_and_the_tokens_exactly():
    fake = FakeResponsesServer(ScriptedBrain(["never"]), context_windows={"gpt-5": 50})
    with fake, pytest.raises(ContextOverflow) as caught:
        await collect(send(responses_adapter(fake.base_url), History().user("x" * 400).messages, model="gpt-5"))
    err = caught.value
    tokens = fake.stats[-1].input_tokens if fake.stats else err.tokens
    assert err.limit == 50 and err.input_limit and err.tokens == tokens and err.tokens > 50
    assert f"{err.tokens:,} input tokens > the 50-token input limit" in err.message


async def test_an_error_event_mid_stream_is_a_provider_failure():
    fake = FakeResponsesServer(ScriptedBrain([ErrorReply("midstream_error")]))
    with fake, pytest.raises(ProviderUnavailable) as caught:
        await collect(send(responses_adapter(fake.base_url), History().user("hi").messages))
    assert caught.value.request_id is not None


def test_reasoning_goes_back_where_it_was_produced_before_the_text_and_before_each_call():
    def block(item: str) -> ReasoningBlock:
        return ReasoningBlock(ReasoningKind.ENCRYPTED, data="gAAAA" + item, item_id=item, provider_id="openai",
                              model_id="gpt-5")
    history = History().user("go").ai("Checking both.").call("c1", "get_weather", {"city": "Oslo"})
    history.call("c2", "get_weather", {"city": "Rome"}).result("c1", "get_weather", "sun").result("c2", "get_weather",
                                                                                               "rain")  # loop on
    history.messages[1] = replace(history.messages[1], reasoning=(block("rs_0"),))
    history.messages[2] = replace(history.messages[2], reasoning=(block("rs_1"),))
    history.messages[3] = replace(history.messages[3], reasoning=(block("rs_2"),))
    items = responses_input(history.messages, owner=("openai", "gpt-5"))
    order = [item.get("id") or item.get("call_id") or item.get("role") for item in items]
    assert order == ["user", "rs_0", "assistant", "rs_1", "c1", "rs_2", "c2", "c1", "c2"]
    assert items[1] == {"type": "reasoning", "id": "rs_0", "summary": [], "encrypted_content": "gAAAArs_0"}


def test_a_finished_loops_reasoning_is_sent_with_the_next_user_turn_in_its_place():
    block = ReasoningBlock(ReasoningKind.ENCRYPTED, data="gAAAAold", item_id="rs_old", provider_id="openai",
                           model_id="gpt-5")
    history = History().user("go").ai("Done.").user("next")
    history.messages[1] = replace(history.messages[1], reasoning=(block,))
    items = responses_input(history.messages, owner=("openai", "gpt-5"))
    assert [item.get("type") or item.get("role") for item in items] == ["user", "reasoning", "assistant", "user"]
    assert items[1]["id"] == "rs_old" and items[1]["encrypted_content"] == "gAAAAold"
    other = responses_input(history.messages, owner=("openai", "gpt-5-mini"))
    assert [item.get("role") for item in other] == ["user", "assistant", "user"]  # never another model's
