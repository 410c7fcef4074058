"""Transient errors are retried with capped backoff before any output; nothing else is; messages parse N and M."""

from __future__ import annotations

import pytest

from data.providers.errors import overflow_from_message, retry_after_seconds, scrub
from data.providers.retry import RetryPolicy
from domain.errors import ContextOverflow, InvalidResponse, NetworkError, ProviderUnavailable, RateLimited
from domain.events import TextDelta
from domain.models import ProviderType
from tests.fakeservers import ErrorReply, FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, ScriptedBrain
from tests.providers.helpers import History, RecordingSleep, adapter_for, collect, stream

SERVERS = {ProviderType.ANTHROPIC: FakeAnthropicServer, ProviderType.OPENAI: FakeOpenAIServer,
           ProviderType.GEMINI: FakeGeminiServer}


def test_the_three_real_overflow_messages_give_tokens_and_limit():
    assert vars_of(overflow_from_message("prompt is too long: 208310 tokens > 200000 maximum")) == (208310, 200000)
    openai = ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 "
              "tokens. Please reduce the length of the messages.")
    assert vars_of(overflow_from_message(openai, "context_length_exceeded")) == (130512, 128000)
    gemini = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    assert vars_of(overflow_from_message(gemini)) == (1200000, 1048576)


def test_an_overflow_code_without_numbers_is_still_an_overflow():
    assert vars_of(overflow_from_message("too long", "context_length_exceeded")) == (None, None)
    assert overflow_from_message("messages: roles must alternate") is None


def vars_of(error: ContextOverflow | None) -> tuple[int | None, int | None]:
    assert isinstance(error, ContextOverflow)
    return error.tokens, error.limit


def test_retry_after_reads_seconds_and_milliseconds():
    assert retry_after_seconds({"retry-after": "7"}) == 7
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({}) is None


def test_scrub_removes_the_key_from_a_message():
    error = scrub(InvalidResponse("bad key sk-abcdef123 given"), "sk-abcdef123")
    assert "sk-abcdef123" not in str(error) and "[redacted]" in error.message


def test_policy_waits_exponentially_honours_retry_after_and_gives_up_past_the_cap():
    policy = RetryPolicy(max_retries=3, base_delay=0.5, max_delay=10)
    assert [policy.delay(n, ProviderUnavailable()) for n in range(4)] == [0.5, 1.0, 2.0, None]
    assert policy.delay(0, RateLimited(4)) == 4
    assert policy.delay(0, RateLimited(60)) is None
    assert policy.delay(0, ContextOverflow()) is None


@pytest.mark.parametrize("kind", list(SERVERS), ids=lambda k: k.value)
async def test_a_transient_error_is_retried_then_succeeds(kind):
    sleep = RecordingSleep()
    brain = ScriptedBrain([ErrorReply("overloaded"), ErrorReply("rate_limit", retry_after=3), "recovered"])
    with SERVERS[kind](brain) as fake:
        events = await collect(stream(adapter_for(kind, fake.base_url, retries=2, sleep=sleep), History().user("hi")))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "recovered"
    assert len(fake.requests) == 3
    assert sleep.delays[0] > 0 and sleep.delays[1] == (3 if kind is not ProviderType.GEMINI else 3.0)


@pytest.mark.parametrize("kind", list(SERVERS), ids=lambda k: k.value)
async def test_a_bad_request_is_not_retried(kind):
    sleep = RecordingSleep()
    brain = ScriptedBrain([ErrorReply("bad_request"), "unused"])
    with SERVERS[kind](brain) as fake, pytest.raises(InvalidResponse):
        await collect(stream(adapter_for(kind, fake.base_url, retries=2, sleep=sleep), History().user("hi")))
    assert len(fake.requests) == 1 and sleep.delays == []


async def test_a_cut_stream_before_any_output_is_retried_but_after_output_is_not():
    sleep = RecordingSleep()
    brain = ScriptedBrain([ErrorReply("cut_off", chunks_before=()), "second try", ErrorReply("cut_off"), "unused"])
    with FakeOpenAIServer(brain) as fake:
        adapter = adapter_for(ProviderType.OPENAI, fake.base_url, retries=2, sleep=sleep)
        events = await collect(stream(adapter, History().user("hi")))
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "second try"
        with pytest.raises(NetworkError):
            await collect(stream(adapter, History().user("hi")))
    assert len(fake.requests) == 3 and len(sleep.delays) == 1


async def test_retries_give_up_after_max_retries_with_the_last_error():
    sleep = RecordingSleep()
    with FakeAnthropicServer(ScriptedBrain(default=ErrorReply("server_error"))) as fake:
        adapter = adapter_for(ProviderType.ANTHROPIC, fake.base_url, retries=2, sleep=sleep)
        with pytest.raises(ProviderUnavailable):
            await adapter.generate_simple_completion("m", "hi")
    assert len(fake.requests) == 3 and sleep.delays == [0.5, 1.0]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
         "(4000 in the messages, 1000 in the completion). Please reduce the length.", (4000, 4096)),
        ("This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens "
         "(139000 of text input, 1000 in the output).", (140000, 131072)),
        ("Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with "
         "context length of only 8192 tokens, which is not enough.", (9000, 8192)),
        ("the request exceeds the available context size, try increasing it", (None, None)),
        ("input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000", (188240, 200000)),
    ],
)
def test_overflow_messages_of_compatible_servers_are_recognized(message, expected):
    assert vars_of(overflow_from_message(message)) == expected


async def test_a_request_too_large_is_treated_as_a_context_overflow():
    from tests.fakeservers import FakeAnthropicServer as Server
    from tests.fakeservers.server import HttpResponse

    class TooLarge(Server):
        def route(self, raw):
            return HttpResponse.of_json({"type": "error", "error": {"type": "request_too_large",
                                         "message": "Request exceeds the maximum allowed number of bytes."}}, 413)

    with TooLarge() as fake, pytest.raises(ContextOverflow):
        await collect(stream(adapter_for(ProviderType.ANTHROPIC, fake.base_url), History().user("hi")))


async def test_a_simple_completion_cut_off_after_some_text_is_retried_whole():
    sleep = RecordingSleep()
    with FakeGeminiServer(ScriptedBrain([ErrorReply("cut_off"), "complete summary"])) as fake:
        adapter = adapter_for(ProviderType.GEMINI, fake.base_url, retries=1, sleep=sleep)
        assert await adapter.generate_simple_completion("m", "summarize") == "complete summary"
    assert len(fake.requests) == 2 and len(sleep.delays) == 1
