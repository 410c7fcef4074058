"""The three SDK adapters against the fake servers: text, split tool calls, usage, every error kind, broken streams."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from itertools import pairwise

import pytest

from domain.errors import (
    AuthenticationFailed,
    ContextOverflow,
    InvalidResponse,
    NetworkError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from domain.events import StreamDone, TextDelta, ToolCallRequested, UsageReported
from domain.models import ProviderType
from tests.fakeservers import (
    ErrorReply,
    FakeAnthropicServer,
    FakeGeminiServer,
    FakeOpenAIServer,
    FakeProviderServer,
    Reply,
    ScriptedBrain,
    ToolCall,
)
from tests.providers.helpers import KEY, History, adapter_for, collect, stream

FLAVOURS = {
    ProviderType.ANTHROPIC: FakeAnthropicServer,
    ProviderType.OPENAI: FakeOpenAIServer,
    ProviderType.GEMINI: FakeGeminiServer,
}


@pytest.fixture(params=list(FLAVOURS), ids=lambda t: t.value)
def kind(request: pytest.FixtureRequest) -> ProviderType:
    return request.param


@pytest.fixture
def brain() -> ScriptedBrain:
    return ScriptedBrain()


@pytest.fixture
def server(kind: ProviderType, brain: ScriptedBrain) -> Iterator[FakeProviderServer]:
    with FLAVOURS[kind](brain, api_key=KEY) as fake:
        yield fake


async def test_streamed_text_arrives_in_pieces_and_ends_with_usage_and_end_turn(kind, server, brain):
    brain.push(Reply(text_chunks=("Hel", "lo, ", "world")))
    events = await collect(stream(adapter_for(kind, server.base_url), History().user("hi")))
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(texts) == "Hello, world"
    assert len(texts) >= 2
    assert isinstance(events[-1], StreamDone) and events[-1].stop_reason == "end_turn"
    usage = [e.usage for e in events if isinstance(e, UsageReported)]
    assert usage and usage[-1].input_tokens == server.stats[-1].input_tokens
    assert usage[-1].output_tokens == server.stats[-1].output_tokens > 0


async def test_tool_call_with_json_arguments_split_across_chunks_arrives_whole(kind, server, brain):
    arguments = {"city": "Reykjavík", "note": "x" * 40, "nested": {"days": [1, 2, 3]}}
    brain.push(Reply(text_chunks=("Checking.",), tool_calls=(ToolCall("get_weather", arguments, id="call_1"),),
                     tool_argument_chunk=5))
    events = await collect(stream(adapter_for(kind, server.base_url), History().user("weather?")))
    calls = [e for e in events if isinstance(e, ToolCallRequested)]
    assert [(c.id, c.name, dict(c.input)) for c in calls] == [("call_1", "get_weather", arguments)]
    assert isinstance(events[-1], StreamDone) and events[-1].stop_reason == "tool_use"


async def test_a_tool_round_trip_sends_each_result_paired_with_its_call(kind, server, brain):
    brain.push(Reply(text_chunks=("It is sunny.",)))
    history = (
        History()
        .user("weather in Oslo and Rome?")
        .ai("Let me check.")
        .call("call_a", "get_weather", {"city": "Oslo"})
        .call("call_b", "get_weather", {"city": "Rome"})
        .result("call_a", "get_weather", "rain, 8°C")
        .result("call_b", "get_weather", "city service down", error=True)
    )
    events = await collect(stream(adapter_for(kind, server.base_url), history))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is sunny."
    received = server.requests[-1]
    calls = [(p.id, p.name, dict(p.input)) for m in received.messages for p in m.parts if hasattr(p, "input")]
    results = [(p.id, p.text, p.is_error) for m in received.messages for p in m.parts if hasattr(p, "is_error")]
    assert calls == [("call_a", "get_weather", {"city": "Oslo"}), ("call_b", "get_weather", {"city": "Rome"})]
    assert [r[0] for r in results] == ["call_a", "call_b"]
    assert "rain, 8°C" in results[0][1] and "city service down" in results[1][1]
    assert received.system == "Be brief."
    assert received.tool_names == ("get_weather",)
    assert received.messages[0].role == "user"


async def test_second_request_reports_the_shared_prefix_as_cached_tokens(kind, server, brain):
    brain.push("First answer is here.", "Second answer.")
    adapter = adapter_for(kind, server.base_url)
    history = History().user("A long question " * 40)
    await collect(stream(adapter, history))
    history.ai("First answer is here.").user("and then?")
    events = await collect(stream(adapter, history))
    usage = next(e.usage for e in events if isinstance(e, UsageReported))
    assert usage.cache_read_tokens == server.stats[-1].cached_tokens > 0
    assert usage.input_tokens == server.stats[-1].input_tokens > usage.cache_read_tokens


ERRORS = [
    (ErrorReply("auth"), AuthenticationFailed),
    (ErrorReply("rate_limit", retry_after=7), RateLimited),
    (ErrorReply("overflow", tokens=250_000, limit=200_000), ContextOverflow),
    (ErrorReply("overloaded"), ProviderUnavailable),
    (ErrorReply("server_error"), ProviderUnavailable),
    (ErrorReply("bad_request", message="messages: field required"), InvalidResponse),
]


@pytest.mark.parametrize(("directive", "expected"), ERRORS, ids=[e[0].kind for e in ERRORS])
async def test_each_error_body_reaches_the_caller_as_its_domain_error(kind, server, brain, directive, expected):
    brain.push(directive)
    with pytest.raises(expected) as caught:
        await collect(stream(adapter_for(kind, server.base_url), History().user("hi")))
    assert KEY not in str(caught.value) and caught.value.message
    if expected is ContextOverflow:
        assert (caught.value.tokens, caught.value.limit) == (250_000, 200_000)
    if expected is RateLimited and kind is not ProviderType.GEMINI:
        assert caught.value.retry_after == 7


async def test_gemini_rate_limit_carries_the_retry_delay_of_its_body(brain):
    brain.push(ErrorReply("rate_limit", retry_after=12))
    with FakeGeminiServer(brain) as fake, pytest.raises(RateLimited) as caught:
        await collect(stream(adapter_for(ProviderType.GEMINI, fake.base_url), History().user("hi")))
    assert caught.value.retry_after == 12


async def test_a_wrong_key_is_an_authentication_error_that_never_shows_the_key(kind, server):
    wrong = "sk-wrong-VERY-SECRET-0000"
    with pytest.raises(AuthenticationFailed) as caught:
        await collect(stream(adapter_for(kind, server.base_url, key=wrong), History().user("hi")))
    assert wrong not in str(caught.value) and wrong not in repr(caught.value.args)


async def test_an_error_event_in_the_middle_of_a_stream_is_provider_unavailable(kind, server, brain):
    brain.push(ErrorReply("midstream_error"))
    seen: list[object] = []
    with pytest.raises(ProviderUnavailable):
        async for event in stream(adapter_for(kind, server.base_url), History().user("hi")):
            seen.append(event)
    assert seen == [TextDelta("partial ")]


async def test_a_stream_cut_off_midway_is_a_network_error(kind, server, brain):
    brain.push(ErrorReply("cut_off", chunks_before=("one ", "two ")))
    seen: list[object] = []
    with pytest.raises(NetworkError):
        async for event in stream(adapter_for(kind, server.base_url), History().user("hi")):
            seen.append(event)
    assert seen == [TextDelta("one "), TextDelta("two ")]


async def test_a_malformed_sse_line_is_an_invalid_response(kind, server, brain):
    brain.push(ErrorReply("malformed"))
    with pytest.raises(InvalidResponse):
        await collect(stream(adapter_for(kind, server.base_url), History().user("hi")))


async def test_simple_completion_returns_the_whole_streamed_text_without_cache_markers(kind, server, brain):
    brain.push("A short title")
    adapter = adapter_for(kind, server.base_url)
    text = await adapter.generate_simple_completion(
        "test-model", "Title this", system="You write titles.", max_tokens=20
    )
    assert text == "A short title"
    assert server.requests[-1].system == "You write titles." and server.requests[-1].max_tokens == 20
    assert server.requests[-1].last_user_text == "Title this"
    assert "cache_control" not in json.dumps(server.requests[-1].raw)


async def test_simple_completion_errors_are_domain_errors(kind, server, brain):
    brain.push(ErrorReply("overflow", tokens=9, limit=5))
    with pytest.raises(ContextOverflow):
        await adapter_for(kind, server.base_url).generate_simple_completion("test-model", "x")


async def test_an_unreachable_server_is_a_network_error(kind):
    with socket.socket() as bound_not_listening:  # holds the port so nothing else can answer on it
        bound_not_listening.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound_not_listening.getsockname()[1]}"
        url += "/v1" if kind is ProviderType.OPENAI else ""
        with pytest.raises(NetworkError) as caught:
            await collect(stream(adapter_for(kind, url), History().user("hi")))
    assert isinstance(caught.value, ProviderError) and KEY not in str(caught.value)


async def test_closing_a_stream_early_releases_it_and_the_adapter_keeps_working(kind, server, brain):
    brain.push(Reply(text_chunks=("a", "b", "c", "d")), "again")
    adapter = adapter_for(kind, server.base_url)
    events = stream(adapter, History().user("hi"))
    first = await anext(events)
    await events.aclose()  # type: ignore[attr-defined]
    assert first == TextDelta("a")
    after = await collect(stream(adapter, History().user("hi")))
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == "again"


async def test_a_provider_message_echoing_the_key_is_redacted(kind, server, brain):
    brain.push(ErrorReply("bad_request", message=f"invalid header value {KEY} for field"))
    with pytest.raises(InvalidResponse) as caught:
        await collect(stream(adapter_for(kind, server.base_url), History().user("hi")))
    assert KEY not in str(caught.value) and "[redacted]" in str(caught.value)


async def test_a_malformed_stream_of_a_simple_completion_is_an_invalid_response(kind, server, brain):
    brain.push(ErrorReply("malformed"))
    with pytest.raises(InvalidResponse):
        await adapter_for(kind, server.base_url).generate_simple_completion("test-model", "x")


async def test_listing_models_with_a_wrong_key_is_an_authentication_error(kind, server):
    with pytest.raises(AuthenticationFailed):
        await adapter_for(kind, server.base_url, key="sk-wrong-key-xyz").list_models()


async def test_an_interrupted_call_and_a_leading_assistant_message_still_make_a_valid_request(kind, server, brain):
    brain.push("fine")
    history = History().ai("Summary so far.").user("go on").ai().call("call_x", "get_weather", {}).user("stop that")
    await collect(stream(adapter_for(kind, server.base_url), history))
    received = server.requests[-1]
    assert received.messages[0].role == "user"
    results = [p for m in received.messages for p in m.parts if hasattr(p, "is_error")]
    assert [(r.id, r.is_error or "interrupted" in r.text.lower()) for r in results] == [("call_x", True)]
    roles = [m.role for m in received.messages if m.role != "tool"]
    assert all(a != b for a, b in pairwise(roles))


async def test_a_request_without_tools_sends_earlier_tool_rounds_as_text(kind, server, brain):
    brain.push("ok")
    history = History().user("q").ai().call("c1", "get_weather", {"city": "Oslo"}).result("c1", "get_weather", "sun")
    await collect(stream(adapter_for(kind, server.base_url), history.user("and now?"), tools=()))
    received = server.requests[-1]
    assert received.tool_names == ()
    assert all(not hasattr(p, "id") for m in received.messages for p in m.parts)
    assert "sun" in "".join(m.text for m in received.messages)
