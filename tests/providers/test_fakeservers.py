"""The fake servers themselves: window enforcement, token counters, prefix-cache stats, loud scripted brains."""

from __future__ import annotations

import pytest

from domain.errors import ContextOverflow, ProviderUnavailable
from domain.models import ProviderType
from tests.fakeservers import (
    FakeAnthropicServer,
    FakeGeminiServer,
    FakeOpenAIServer,
    ScriptedBrain,
    approx_counter,
    o200k_counter,
)
from tests.fakeservers.tokens import common_prefix_length
from tests.providers.helpers import History, adapter_for, collect, stream


def test_counters_count_tokens():
    assert approx_counter("abcdefgh") == 2
    assert 0 < o200k_counter("Hello there, general Kenobi.") < 12


def test_common_prefix_length_finds_the_shared_start():
    assert common_prefix_length("abcdef", "abcxyz") == 3
    assert common_prefix_length("", "abc") == 0
    assert common_prefix_length("same", "same") == 4


async def test_a_context_window_is_enforced_with_the_real_overflow_body_and_the_brain_is_not_asked():
    brain = ScriptedBrain(["should not be used"])
    with FakeOpenAIServer(brain, context_windows={"small": 50}, counter=o200k_counter) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url)
        with pytest.raises(ContextOverflow) as caught:
            await collect(stream(adapter, History().user("word " * 200), model="small"))
    assert caught.value.limit == 50 and (caught.value.tokens or 0) > 50
    assert brain.seen == [] and fake.stats == []


async def test_stats_record_input_cached_output_tokens_and_time_per_request():
    with FakeAnthropicServer(ScriptedBrain(["a", "b"])) as fake:
        adapter = adapter_for(ProviderType.ANTHROPIC, fake.base_url)
        history = History().user("x " * 100)
        await collect(stream(adapter, history))
        await collect(stream(adapter, history.ai("a").user("y")))
    first, second = fake.stats
    assert first.cached_tokens == 0 and second.cached_tokens > 0
    assert second.input_tokens > first.input_tokens and first.output_tokens >= 1
    assert first.server_seconds >= 0 and first.stream


async def test_an_exhausted_scripted_brain_fails_loudly_as_a_server_error():
    with FakeAnthropicServer(ScriptedBrain()) as fake, pytest.raises(ProviderUnavailable):
        await collect(stream(adapter_for(ProviderType.ANTHROPIC, fake.base_url), History().user("hi")))
    assert len(fake.requests) == 1
    assert [type(f).__name__ for f in fake.failures] == ["BrainExhausted"]


async def test_three_fakes_share_one_brain_and_the_environment_points_the_factory_at_them():
    from data.providers.factory import SdkAdapterFactory
    from domain.events import TextDelta
    from domain.models import Provider
    from tests.fakeservers import fake_provider_servers

    brain = ScriptedBrain(["from anthropic", "from openai", "from gemini"])
    texts = []
    with fake_provider_servers(brain) as fakes:
        env = fakes.env()
        factory = SdkAdapterFactory(max_retries=0, env=env)
        for kind, variable in ((ProviderType.ANTHROPIC, "ANTHROPIC_API_KEY"), (ProviderType.OPENAI, "OPENAI_API_KEY"),
                               (ProviderType.GEMINI, "GEMINI_API_KEY")):
            adapter = factory.create(Provider(id=kind.value, name=kind.value, type=kind), env[variable])
            events = await collect(stream(adapter, History().user("hi")))
            texts.append("".join(e.text for e in events if isinstance(e, TextDelta)))
    assert texts == ["from anthropic", "from openai", "from gemini"]
    assert [r.flavour for r in brain.seen] == ["anthropic", "openai", "gemini"]


async def test_each_fake_also_answers_non_streamed_requests_the_sdks_can_read():
    import anthropic
    import openai
    from google import genai
    from google.genai import types

    brain = ScriptedBrain(["plain one", "plain two", "plain three"])
    with FakeAnthropicServer(brain) as a, FakeOpenAIServer(brain) as o, FakeGeminiServer(brain) as g:
        claude = anthropic.AsyncAnthropic(api_key="k", base_url=a.base_url, max_retries=0)
        message = await claude.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "q"}])
        gpt = openai.AsyncOpenAI(api_key="k", base_url=o.base_url, max_retries=0)
        completion = await gpt.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        options = types.HttpOptions(base_url=g.base_url, api_version="v1beta")
        gemini = genai.Client(api_key="k", vertexai=False, http_options=options)
        response = await gemini.aio.models.generate_content(model="m", contents="q")
    assert message.content[0].text == "plain one"  # type: ignore[union-attr]
    assert completion.choices[0].message.content == "plain two"
    assert response.text == "plain three"
    assert [s.stream for s in a.stats + o.stats + g.stats] == [False, False, False]


def test_a_client_hanging_up_is_not_printed_as_a_server_error_but_real_errors_are(capsys) -> None:
    from tests.fakeservers.server import _QuietHTTPServer

    server = _QuietHTTPServer.__new__(_QuietHTTPServer)  # handle_error needs no socket
    try:
        raise BrokenPipeError(32, "Broken pipe")
    except BrokenPipeError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a real bug in a flavour")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert "a real bug in a flavour" in capsys.readouterr().err
