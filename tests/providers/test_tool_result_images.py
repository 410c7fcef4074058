"""Images a tool returned, sent back in each API's own tool-result form against its fake (which refuses the wrong
forms with the API's error): Anthropic image blocks inside tool_result, Gemini functionResponse parts, Responses
input_image in the function_call_output, Chat Completions an image input in a user message after the tool messages."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from domain.errors import InvalidResponse
from domain.models import Message
from tests.attachment_samples import png
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_server import normalize as anthropic_normalize
from tests.fakeservers.brain import ToolResultPart
from tests.fakeservers.gemini_media import GeminiMediaRefused
from tests.fakeservers.gemini_server import normalize as gemini_normalize
from tests.fakeservers.media_rules import MediaRefused
from tests.fakeservers.openai_media import OpenAIMediaRefused
from tests.fakeservers.openai_server import normalize as openai_normalize
from tests.fakeservers.responses_rules import normalize as responses_normalize
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.providers.helpers import KEY, WEATHER, History, adapter_for, collect
from tests.providers.test_responses import responses_adapter

FLAVOURS = ("anthropic", "openai", "gemini", "responses")


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


def _history(intake: AttachmentIntake, *, error: bool = False) -> tuple[list[Message], str]:
    shot = intake.from_bytes("screenshot-image-1.png", png(320, 200))
    history = History().user("Take a screenshot").call("call_1", "browser__screenshot", {})
    history.result("call_1", "browser__screenshot", "[image: screenshot]", error=error)
    history.messages[-1] = replace(history.messages[-1], attachments=(shot,))
    return history.messages, shot.sha256


def _server(flavour: str) -> Any:
    brain = ScriptedBrain(default=Reply.of_text("I see a picture."))
    if flavour == "responses":
        return FakeResponsesServer(brain, api_key=KEY)
    kinds = {"anthropic": FakeAnthropicServer, "openai": FakeOpenAIServer, "gemini": FakeGeminiServer}
    return kinds[flavour](brain, api_key=KEY)


async def _send(flavour: str, server: Any, intake: AttachmentIntake, messages: list[Message]) -> None:
    from domain.models import ProviderType

    adapter: Any = responses_adapter(server.base_url) if flavour == "responses" else adapter_for(
        ProviderType(flavour), server.base_url)
    adapter.media = MediaSource(intake.files)
    await collect(adapter.send_message_stream(model_id="test-model", system_prompt=None, messages=messages,
                                              tools=(WEATHER,), max_output_tokens=256))


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_tools_image_reaches_the_model_as_an_image_in_the_apis_tool_result_form(flavour, intake) -> None:
    messages, digest = _history(intake)
    with _server(flavour) as server:
        await _send(flavour, server, intake, messages)
        request, body = server.requests[-1], server.log[-1].json()
    assert getattr(server, "refusals", []) == []
    [media] = request.media
    assert (media.kind, media.media_type, media.sha256, media.width, media.height) == (
        "image", "image/png", digest, 320, 200)  # the stored bytes, decoded by the fake
    results = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]
    if flavour == "anthropic":
        [result] = results
        assert result.media == (media,)
        assert [b["type"] for b in body["messages"][2]["content"][0]["content"]] == ["text", "text", "image"]
    elif flavour == "gemini":
        [result] = results
        assert result.media == (media,)
        [part] = body["contents"][2]["parts"][0]["functionResponse"]["parts"]
        assert set(part) & {"inlineData", "inline_data"}  # protobuf JSON: either spelling
    elif flavour == "responses":
        [result] = results
        assert result.media == (media,)
        assert [p["type"] for p in body["input"][2]["output"]] == ["input_text", "input_text", "input_image"]
    else:  # Chat Completions: the tool message is text; the image follows as user input naming the call
        assert results[0].media == ()
        tool, after = body["messages"][2], body["messages"][3]
        assert tool["role"] == "tool" and isinstance(tool["content"], str)
        assert after["role"] == "user"
        assert [p["type"] for p in after["content"]] == ["text", "text", "image_url"]
        assert "browser__screenshot" in after["content"][0]["text"]


async def test_an_error_results_images_go_to_anthropic_as_text_lines_only(intake) -> None:
    messages, _ = _history(intake, error=True)
    with _server("anthropic") as server:
        await _send("anthropic", server, intake, messages)
        content = server.log[-1].json()["messages"][2]["content"][0]["content"]
    assert isinstance(content, str) and "screenshot-image-1.png" in content and "not sent" in content


async def test_an_omitted_tool_image_goes_as_its_placeholder_line(intake) -> None:
    messages, _ = _history(intake)
    result = messages[-1]
    messages[-1] = replace(result, attachments=tuple(replace(a, omitted=True, note="not sent: test-model takes no "
                                                             "images") for a in result.attachments))
    for flavour in FLAVOURS:
        with _server(flavour) as server:
            await _send(flavour, server, intake, messages)
            request = server.requests[-1]
        assert request.media == [], flavour
        assert "takes no images" in request.serialized(), flavour


# The fakes refuse the forms the APIs refuse, with their errors.

def test_chat_completions_refuses_an_image_in_a_tool_message() -> None:
    body = {"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]}
    with pytest.raises(OpenAIMediaRefused, match=re.escape("Image URLs are only allowed for messages with role "
                                                           "'user', but this message with role 'tool' contains an "
                                                           "image URL.")):
        openai_normalize(body, {})


def test_anthropic_refuses_an_image_in_an_error_result_and_an_unknown_block_in_a_result() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    for result, message in (
        ({"is_error": True, "content": [{"type": "text", "text": "x"}, image]},
         "all content must be type 'text' if 'is_error' is true"),
        ({"content": [{"type": "tool_use", "id": "x", "name": "t", "input": {}}]},
         "Input tag 'tool_use' found using 'type' does not match any of the expected tags"),
    ):
        body = {"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", **result}]}]}
        with pytest.raises(MediaRefused, match=message):
            anthropic_normalize(body, {})


def test_gemini_refuses_a_text_part_inside_a_function_response() -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "t", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "t", "response": {"output": "x"},
                                                         "parts": [{"text": "a picture"}]}}]}]}
    with pytest.raises(GeminiMediaRefused, match=r"Unknown name \"text\" at 'contents\[2\].parts\[0\]"
                                                 r".function_response.parts\[0\]': Cannot find field."):
        gemini_normalize("m", False, body, {})


def test_responses_refuses_an_output_text_part_in_a_function_call_output() -> None:
    body = {"model": "m", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": [{"type": "output_text", "text": "x"}]}]}
    with pytest.raises(OpenAIMediaRefused, match="Supported values are: 'input_text', 'input_image', and "
                                                 "'input_file'"):
        responses_normalize(body, {})


async def test_the_responses_fake_answers_a_wrong_output_part_with_a_400_through_the_sdk(intake) -> None:
    messages, _ = _history(intake)
    with FakeResponsesServer(ScriptedBrain(default=Reply.of_text("x")), api_key=KEY) as server:
        adapter = responses_adapter(server.base_url)
        adapter.media = MediaSource(intake.files)
        bad = replace(messages[-1], attachments=(replace(messages[-1].attachments[0], media_type="image/jpeg"),))
        with pytest.raises(InvalidResponse, match="unsupported image"):
            await collect(adapter.send_message_stream(model_id="test-model", system_prompt=None,
                                                      messages=[*messages[:-1], bad], tools=(WEATHER,),
                                                      max_output_tokens=256))
    assert json.dumps(server.refusals)
