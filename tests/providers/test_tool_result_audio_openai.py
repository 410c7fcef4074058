"""Audio a tool returned, sent to an OpenAI audio model through the real SDK against the Chat Completions fake: an
input_audio part (wav or mp3) in a user message right after the tool messages (a tool message holds text only); the
fake refuses input_audio for a model without audio input, in a tool message and in another format, and an audio
model's request with no audio at all; the Responses fake refuses input_audio in a message, with the real bodies."""

from __future__ import annotations

import base64
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from domain.errors import InvalidResponse
from domain.models import Message, ProviderType
from tests.audio_clips import wav
from tests.fakeservers import FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.openai_media import OpenAIMediaRefused, audio_refusal
from tests.fakeservers.openai_server import normalize as openai_normalize
from tests.fakeservers.responses_rules import normalize as responses_normalize
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect

CLIP = base64.b64encode(wav(0.5)).decode()


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


def _history(intake: AttachmentIntake) -> list[Message]:
    clip = intake.from_bytes("say-audio-1.wav", wav(1.0))
    history = History().user("Say hello").call("call_1", "tts__say", {})
    history.result("call_1", "tts__say", "[audio: audio/wav, 32,044 bytes, 1.0 s]")
    history.messages[-1] = replace(history.messages[-1], attachments=(clip,))
    return history.messages


async def _send(server: Any, intake: AttachmentIntake, messages: list[Message], model: str) -> None:
    adapter: Any = adapter_for(ProviderType.OPENAI, server.base_url)
    adapter.media = MediaSource(intake.files)
    await collect(adapter.send_message_stream(model_id=model, system_prompt=None, messages=messages,
                                              tools=(WEATHER,), max_output_tokens=256))


async def test_a_tools_audio_reaches_an_openai_audio_model_as_input_audio_after_the_tool_message(
        intake: AttachmentIntake) -> None:
    with FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("I hear silence.")), api_key=KEY) as server:
        await _send(server, intake, _history(intake), "gpt-4o-audio-preview")
        request, body = server.requests[-1], server.log[-1].json()
    [media] = request.media
    assert (media.kind, media.media_type, media.size, media.tokens) == ("audio", "audio/wav", 32_044, 10)
    tool, user = body["messages"][2], body["messages"][3]
    assert tool["role"] == "tool" and tool["content"].startswith("[audio: audio/wav")
    assert user["role"] == "user"
    assert user["content"][0]["text"] == "[Audio returned by the tool tts__say (call call_1)]"
    audio = user["content"][-1]
    assert audio["type"] == "input_audio" and audio["input_audio"]["format"] == "wav"
    assert base64.b64decode(audio["input_audio"]["data"]) == wav(1.0)


async def test_a_model_without_audio_input_is_refused_with_the_apis_error(intake: AttachmentIntake) -> None:
    with FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("never")), api_key=KEY) as server:
        with pytest.raises(InvalidResponse, match=re.escape("refused the request: This model does not support the "
                                                            "format you provided.")):
            await _send(server, intake, _history(intake), "gpt-4o")
        assert len(server.log) == 1 and server.requests == []


def _body(model: str, role: str, form: str = "wav") -> dict[str, Any]:
    part = {"type": "input_audio", "input_audio": {"data": CLIP, "format": form}}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    if role == "tool":
        messages += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": [part]}]
    else:
        messages.append({"role": "user", "content": [part]})
    return {"model": model, "messages": messages}


@pytest.mark.parametrize(("body", "message", "param", "code"), [
    (_body("gpt-4o-audio-preview", "tool"), "Invalid value: 'input_audio'. Supported values are: 'text'.",
     "messages[2].content[0].type", "invalid_value"),
    (_body("gpt-audio", "user", "ogg"), "Invalid value: 'ogg'. Supported values are: 'wav' and 'mp3'.",
     "messages[1].content[0].input_audio.format", "invalid_value"),
    (_body("gpt-4o-mini", "user"), "This model does not support the format you provided.", "messages",
     "unsupported_format"),
    (_body("gpt-audio", "user", "mp3"), "The audio file could not be decoded or its format is not supported.",
     "messages[1].content[0].input_audio.data", "invalid_value"),
])
def test_chat_completions_refuses_the_audio_parts_the_api_refuses(body: dict[str, Any], message: str, param: str,
                                                                   code: str) -> None:
    with pytest.raises(OpenAIMediaRefused, match=re.escape(message)) as refused:
        openai_normalize(body, {})
    assert (refused.value.param, refused.value.code) == (param, code)


def test_an_audio_model_refuses_a_request_with_no_audio() -> None:
    refusal = audio_refusal({"model": "gpt-4o-audio-preview", "messages": [{"role": "user", "content": "hi"}]})
    assert refusal is not None and refusal.param == "model"
    assert str(refusal) == "This model requires that either input content or output modality contain audio."
    assert audio_refusal(_body("gpt-4o-audio-preview", "user")) is None
    assert audio_refusal({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}) is None


def test_the_responses_api_refuses_input_audio() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": CLIP, "format": "wav"}}
    body = {"model": "gpt-audio", "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}, audio]}]}
    with pytest.raises(OpenAIMediaRefused, match=re.escape("Invalid value: 'input_audio'. Supported values are: "
                                                           "'input_text', 'input_image'")) as refused:
        responses_normalize(body, {})
    assert refused.value.param == "input[0].content[1].type"
