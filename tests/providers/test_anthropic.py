"""Anthropic specifics through AsyncAnthropic: caching, ping, thinking, cache usage, models, no late retry."""

from __future__ import annotations

import json
import urllib.request

from domain.errors import ProviderUnavailable
from domain.events import StreamDone, TextDelta, ThinkingDelta, UsageReported
from domain.models import ModelSource, ProviderType
from tests.fakeservers import ErrorReply, FakeAnthropicServer, Reply, ScriptedBrain
from tests.providers.helpers import KEY, History, RecordingSleep, adapter_for, collect, stream

ANTHROPIC = ProviderType.ANTHROPIC


async def test_cache_control_marks_the_system_block_and_the_last_block_of_the_last_message():
    history = History().user("q").ai("a").user("follow-up")
    with FakeAnthropicServer(ScriptedBrain(["ok"])) as fake:
        await collect(stream(adapter_for(ANTHROPIC, fake.base_url), history))
    raw = fake.requests[-1].raw
    assert raw["system"] == [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    assert raw["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = [b for m in raw["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 1
    assert [m["role"] for m in raw["messages"]] == ["user", "assistant", "user"]


async def test_the_key_is_sent_as_a_bearer_token_and_accepted():
    with FakeAnthropicServer(ScriptedBrain(["ok"]), api_key=KEY) as fake:
        await collect(stream(adapter_for(ANTHROPIC, fake.base_url), History().user("hi")))
    assert fake.presented_key(fake.log[-1]) == KEY


async def test_ping_events_between_deltas_are_ignored():
    with FakeAnthropicServer(ScriptedBrain(["pong text", "pong text"])) as fake:
        body = json.dumps({"model": "m", "max_tokens": 5, "stream": True,
                           "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(fake.base_url + "/v1/messages", data=body, method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert b"event: ping" in response.read()
        events = await collect(stream(adapter_for(ANTHROPIC, fake.base_url), History().user("hi")))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "pong text"
    assert isinstance(events[-1], StreamDone)


async def test_thinking_deltas_stream_as_thinking():
    brain = ScriptedBrain([Reply(thinking=("Let me ", "think."), text_chunks=("Answer",))])
    with FakeAnthropicServer(brain) as fake:
        events = await collect(stream(adapter_for(ANTHROPIC, fake.base_url), History().user("hi")))
    assert [e.text for e in events if isinstance(e, ThinkingDelta)] == ["Let me ", "think."]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Answer"]


async def test_usage_counts_cache_reads_and_writes_into_input_tokens():
    with FakeAnthropicServer(ScriptedBrain(["one", "two"])) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url)
        history = History().user("long context " * 50)
        first = await collect(stream(adapter, history))
        second = await collect(stream(adapter, history.ai("one").user("more")))
    u1 = next(e.usage for e in first if isinstance(e, UsageReported))
    u2 = next(e.usage for e in second if isinstance(e, UsageReported))
    assert u1.cache_read_tokens == 0 and u1.cache_write_tokens == u1.input_tokens == fake.stats[0].input_tokens
    assert u2.cache_read_tokens == fake.stats[1].cached_tokens > 0
    assert u2.input_tokens == u2.cache_read_tokens + u2.cache_write_tokens == fake.stats[1].input_tokens


async def test_list_models_reports_input_window_and_output_limit():
    models = [{"id": "claude-a", "display_name": "Claude A", "max_input_tokens": 200_000, "max_tokens": 64_000},
              {"id": "claude-b", "display_name": "Claude B", "max_input_tokens": 1_000_000, "max_tokens": 128_000}]
    with FakeAnthropicServer(models=models) as fake:
        listed = await adapter_for(ANTHROPIC, fake.base_url).list_models()
    assert [(m.id, m.display_name, m.context_window_size, m.max_output_tokens) for m in listed] == [
        ("claude-a", "Claude A", 200_000, 64_000), ("claude-b", "Claude B", 1_000_000, 128_000)]
    assert all(m.source is ModelSource.FETCHED and m.provider_id == "anthropic" for m in listed)


async def test_a_midstream_overload_after_text_is_not_retried():
    sleep = RecordingSleep()
    with FakeAnthropicServer(ScriptedBrain([ErrorReply("midstream_error"), "never sent"])) as fake:
        adapter = adapter_for(ANTHROPIC, fake.base_url, retries=2, sleep=sleep)
        try:
            await collect(stream(adapter, History().user("hi")))
        except ProviderUnavailable as error:
            assert "overloaded" in str(error)
        else:
            raise AssertionError("expected ProviderUnavailable")
    assert len(fake.requests) == 1 and sleep.delays == []
