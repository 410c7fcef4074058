"""Every known overflow wording, from real bodies: the tokens and the limit read, an input-only limit marked as one,
and the notice restating exactly what the body said (never a sum or comparison it did not make)."""

from __future__ import annotations

import httpx2 as httpx
import openai
import pytest

from data.providers.errors import overflow_from_message, request_id_of
from data.providers.openai_adapter import map_openai_error
from domain.errors import BillingError, ContextOverflow, RateLimited

# (body message, code, tokens, limit, input-only limit, what the notice says)
REAL_BODIES = [
    ("prompt is too long: 208310 tokens > 200000 maximum", None, 208310, 200000, False,
     "208,310 tokens > 200,000 maximum"),
    ("input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or "
     "`max_tokens` and try again", None, 188240, 200000, False,
     "188,240 input tokens + 21,333 max_tokens > the 200,000-token context limit"),
    ("Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please "
     "reduce the length of the messages.", "context_length_exceeded", 289650, 272000, True,
     "289,650 input tokens > the 272,000-token input limit"),
    ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. "
     "Please reduce the length of the messages.", "context_length_exceeded", 130512, 128000, False,
     "130,512 tokens in the messages > the 128,000-token context length"),
    ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, "
     "1000 in the completion). Please reduce the length of the messages or completion.", None, 4000, 4096, False,
     "4,000 tokens in the messages + 1,000 in the completion > the 4,096-token context length"),
    ("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", None, 1200000,
     1048576, False, "1,200,000 input tokens > 1,048,576 allowed"),
    ("This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens (39000 of "
     "text input, 1000 in the output). Please reduce the length of either one.", None, 40000, 32768, False,
     "40,000 tokens requested > the 32,768-token context length"),
    ("request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it",
     "exceed_context_size_error", 5000, 4096, False,
     "5,000 tokens > the 4,096-token context size the server was started with"),
    ("Trying to keep the first 6000 tokens when context the overflows. However, the model is loaded with context "
     "length of only 4096 tokens, which is not enough.", None, 6000, 4096, False,
     "6,000 tokens > the 4,096-token context length the model is loaded with"),
]


@pytest.mark.parametrize(("message", "code", "tokens", "limit", "input_only", "stated"), REAL_BODIES)
def test_every_known_overflow_body_is_read_and_restated_exactly(message, code, tokens, limit, input_only, stated):
    error = overflow_from_message(message, code)
    assert isinstance(error, ContextOverflow)
    assert (error.tokens, error.limit, error.input_limit) == (tokens, limit, input_only)
    assert error.message == f"The conversation is longer than this model accepts (the provider said: {stated})."


@pytest.mark.parametrize("message", [
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "the request exceeds the available context size, try increasing it",
])
def test_overflow_wordings_without_numbers_are_overflows_without_numbers(message):
    error = overflow_from_message(message)
    assert isinstance(error, ContextOverflow) and error.tokens is None and error.limit is None
    assert error.message == "The conversation is longer than this model accepts."


def status_error(status: int, body: dict, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    response = httpx.Response(status, json=body, headers=headers or {}, request=request)
    return openai.APIStatusError("error", response=response, body=body["error"])


@pytest.mark.parametrize(("kind", "code"), [("insufficient_quota", None),
                                            ("invalid_request_error", "insufficient_quota"),
                                            ("insufficient_quota", "insufficient_quota")])
def test_insufficient_quota_in_type_or_code_is_a_billing_error_with_the_request_id(kind, code):
    body = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                      "type": kind, "param": None, "code": code}}
    exc = status_error(429, body, {"x-request-id": "req_abc123"})
    error = map_openai_error(exc).with_request_id(request_id_of(exc))
    assert isinstance(error, BillingError) and not error.transient
    assert error.request_id == "req_abc123" and error.message.endswith("(request id req_abc123)")
    assert "https://platform.openai.com/settings/organization/billing" in error.message


def test_an_ordinary_429_is_still_a_rate_limit():
    body = {"error": {"message": "Rate limit reached", "type": "requests", "param": None,
                      "code": "rate_limit_exceeded"}}
    assert isinstance(map_openai_error(status_error(429, body, {"retry-after": "2"})), RateLimited)


async def test_an_anthropic_error_keeps_its_request_id_for_the_user_to_quote():
    from domain.errors import InvalidResponse
    from domain.models import ProviderType
    from tests.fakeservers import ErrorReply, FakeAnthropicServer, ScriptedBrain
    from tests.providers.helpers import History, adapter_for, collect, stream

    fake = FakeAnthropicServer(ScriptedBrain([ErrorReply("bad_request", message="messages: roles must alternate")]))
    with fake, pytest.raises(InvalidResponse) as caught:
        await collect(stream(adapter_for(ProviderType.ANTHROPIC, fake.base_url), History().user("hi")))
    assert caught.value.request_id and caught.value.request_id.startswith("req_")
    assert caught.value.message.endswith(f"(request id {caught.value.request_id})")


async def test_an_error_event_mid_stream_on_chat_completions_keeps_the_responses_request_id():
    from domain.errors import ProviderError
    from domain.models import ProviderType
    from tests.fakeservers import ErrorReply, FakeOpenAIServer, ScriptedBrain
    from tests.providers.helpers import History, adapter_for, collect, stream

    fake = FakeOpenAIServer(ScriptedBrain([ErrorReply("midstream_error", message="The server had an error")]))
    with fake, pytest.raises(ProviderError) as caught:
        await collect(stream(adapter_for(ProviderType.OPENAI, fake.base_url), History().user("hi")))
    assert caught.value.request_id and caught.value.request_id.startswith("req_")
    assert caught.value.message.endswith(f"(request id {caught.value.request_id})")
