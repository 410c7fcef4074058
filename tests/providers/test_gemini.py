"""Gemini specifics through genai.Client(...).aio: split chunks, thoughts, stop reasons, models, auth variants."""

from __future__ import annotations

import pytest

from domain.errors import AuthenticationFailed
from domain.events import StreamDone, TextDelta, ThinkingDelta, ToolCallRequested
from domain.models import ProviderType
from tests.fakeservers import ErrorReply, FakeGeminiServer, Reply, ScriptedBrain, ToolCall
from tests.providers.helpers import History, adapter_for, collect, stream

GEMINI = ProviderType.GEMINI


async def test_a_response_split_over_several_chunks_streams_every_piece():
    with FakeGeminiServer(ScriptedBrain([Reply(text_chunks=("The ", "quick ", "brown ", "fox"))])) as fake:
        events = await collect(stream(adapter_for(GEMINI, fake.base_url), History().user("hi")))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["The ", "quick ", "brown ", "fox"]
    assert fake.log[-1].path.endswith(":streamGenerateContent") and fake.log[-1].query == {"alt": "sse"}


async def test_requests_use_v1beta_and_send_the_key_in_the_goog_header():
    with FakeGeminiServer(ScriptedBrain(["ok"]), api_key="g-key-123") as fake:
        await collect(stream(adapter_for(GEMINI, fake.base_url, key="g-key-123"), History().user("hi")))
    assert fake.log[-1].path.startswith("/v1beta/models/test-model")
    assert fake.log[-1].headers["x-goog-api-key"] == "g-key-123"


async def test_thought_parts_stream_as_thinking_and_calls_without_ids_get_one():
    reply = Reply(thinking=("pondering",), tool_calls=(ToolCall("get_weather", {"city": "Lima"}),))
    with FakeGeminiServer(ScriptedBrain([reply])) as fake:
        events = await collect(stream(adapter_for(GEMINI, fake.base_url), History().user("hi")))
    assert [e.text for e in events if isinstance(e, ThinkingDelta)] == ["pondering"]
    call = next(e for e in events if isinstance(e, ToolCallRequested))
    assert call.name == "get_weather" and dict(call.input) == {"city": "Lima"} and call.id
    assert events[-1] == StreamDone("tool_use")


async def test_the_system_prompt_goes_in_system_instruction_and_function_responses_are_user_parts():
    history = History().user("q").ai().call("c1", "get_weather", {"city": "X"}).result("c1", "get_weather", "warm")
    with FakeGeminiServer(ScriptedBrain(["ok"])) as fake:
        await collect(stream(adapter_for(GEMINI, fake.base_url), history))
    raw = fake.requests[-1].raw
    assert raw["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert [c["role"] for c in raw["contents"]] == ["user", "model", "user"]
    assert raw["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": "warm"}
    assert raw["contents"][1]["parts"][0]["thoughtSignature"] == "skip_thought_signature_validator"


async def test_max_tokens_finish_is_reported():
    with FakeGeminiServer(ScriptedBrain([Reply(text_chunks=("a", "b"), stop_reason="max_tokens")])) as fake:
        events = await collect(stream(adapter_for(GEMINI, fake.base_url), History().user("hi")))
    assert events[-1] == StreamDone("max_tokens")


async def test_list_models_reports_input_and_output_token_limits():
    models = [
        {"id": "gemini-a", "display_name": "Gemini A", "input_token_limit": 1_048_576, "output_token_limit": 65_536}
    ]
    with FakeGeminiServer(models=models) as fake:
        listed = await adapter_for(GEMINI, fake.base_url).list_models()
    assert [(m.id, m.display_name, m.context_window_size, m.max_output_tokens) for m in listed] == [
        ("gemini-a", "Gemini A", 1_048_576, 65_536)]


@pytest.mark.parametrize("status", [401, 403])
async def test_unauthenticated_and_permission_denied_are_authentication_errors(status):
    brain = ScriptedBrain([ErrorReply("auth", status=status)])
    with FakeGeminiServer(brain) as fake, pytest.raises(AuthenticationFailed):
        await collect(stream(adapter_for(GEMINI, fake.base_url), History().user("hi")))
