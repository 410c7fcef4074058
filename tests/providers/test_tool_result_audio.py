"""Audio a tool returned, sent to Gemini through the real SDK against its fake: a user part with the clip's
inline_data right after the function responses (a functionResponse's parts take images and documents, and the fake
refuses audio there with the API's "Unsupported MIME type"); left out, it goes as its description line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from domain.attachment import AttachmentKind
from domain.models import Message, ProviderType
from tests.audio_clips import wav
from tests.fakeservers import FakeGeminiServer, Reply, ScriptedBrain
from tests.fakeservers.brain import ToolResultPart
from tests.fakeservers.gemini_media import GeminiMediaRefused
from tests.fakeservers.gemini_server import normalize as gemini_normalize
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


def _history(intake: AttachmentIntake) -> list[Message]:
    clip = intake.from_bytes("say-audio-1.wav", wav(1.0))
    assert clip.kind is AttachmentKind.AUDIO and clip.duration_ms == 1000
    history = History().user("Say hello").call("call_1", "tts__say", {})
    history.result("call_1", "tts__say", "[audio: audio/wav, 32,044 bytes, 1.0 s]")
    history.messages[-1] = replace(history.messages[-1], attachments=(clip,))
    return history.messages


async def _send(server: Any, intake: AttachmentIntake, messages: list[Message]) -> None:
    adapter: Any = adapter_for(ProviderType.GEMINI, server.base_url)
    adapter.media = MediaSource(intake.files)
    await collect(adapter.send_message_stream(model_id="gemini-2.5-flash", system_prompt=None, messages=messages,
                                              tools=(WEATHER,), max_output_tokens=256))


async def test_a_tools_audio_reaches_gemini_as_an_audio_part_after_the_function_response(intake) -> None:
    messages = _history(intake)
    with FakeGeminiServer(ScriptedBrain(default=Reply.of_text("I hear silence.")), api_key=KEY) as server:
        await _send(server, intake, messages)
        request, body = server.requests[-1], server.log[-1].json()
    assert getattr(server, "refusals", []) == []
    [media] = request.media
    assert (media.kind, media.media_type, media.size, media.tokens) == ("audio", "audio/wav", 32_044, 32)
    [result] = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert result.media == () and result.text.startswith("[audio: audio/wav")
    parts = body["contents"][2]["parts"]
    assert "functionResponse" in parts[0] and "parts" not in parts[0]["functionResponse"]
    assert "tts__say" in parts[1]["text"]
    assert set(parts[-1]) & {"inlineData", "inline_data"}


async def test_an_omitted_tool_audio_goes_as_its_placeholder_line(intake) -> None:
    messages = _history(intake)
    result = messages[-1]
    messages[-1] = replace(result, attachments=tuple(replace(a, omitted=True, note="not sent: m takes no audio")
                                                     for a in result.attachments))
    with FakeGeminiServer(ScriptedBrain(default=Reply.of_text("ok")), api_key=KEY) as server:
        await _send(server, intake, messages)
        request = server.requests[-1]
    assert request.media == [] and "takes no audio" in request.serialized()


def test_gemini_refuses_audio_inside_a_function_response() -> None:
    import base64

    body = {"contents": [{"role": "user", "parts": [{"functionResponse": {
        "id": "c1", "name": "tts__say", "response": {"output": "x"},
        "parts": [{"inlineData": {"mimeType": "audio/wav", "data": base64.b64encode(wav(0.1)).decode()}}]}}]}]}
    with pytest.raises(GeminiMediaRefused, match="Unsupported MIME type: audio/wav"):
        gemini_normalize("m", False, body, {})
