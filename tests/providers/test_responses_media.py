"""Attachments on the Responses API, against its fake: input_image / input_file parts decoded, checked and billed as
the real API does, and every wrong form refused with the API's 400 body."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from data.providers.rules import openai_image_tokens
from domain.errors import InvalidResponse
from domain.events import UsageReported
from domain.models import Message, MessageType
from tests.attachment_samples import PYTHON_SOURCE, jpeg, pdf, png
from tests.fakeservers import Reply, ScriptedBrain
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.providers.helpers import KEY, collect
from tests.providers.test_responses import post, responses_adapter


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


PNG, PDF = png(), pdf(["one page"])
IMAGE_FORMATS = ("You uploaded an unsupported image. Please make sure your image has of one the following formats: "
                 "['png', 'jpeg', 'gif', 'webp'].")
PDF_EXPECTED = ("Expected a base64-encoded data URL with an application/pdf MIME type (e.g. "
                "'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got")


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


async def _send(server: FakeResponsesServer, intake: AttachmentIntake, message: Message) -> list[Any]:
    adapter = responses_adapter(server.base_url)
    adapter.media = MediaSource(intake.files)
    return await collect(adapter.send_message_stream(model_id="gpt-4.1", system_prompt=None, messages=[message],
                                                     tools=(), max_output_tokens=256))


async def test_a_png_a_jpeg_a_pdf_and_python_arrive_checked_and_the_images_billed_by_openais_formula(intake):
    shot = intake.from_bytes("shot.png", png(640, 480))
    photo = intake.from_bytes("photo.jpg", jpeg(1600, 1200))
    report = intake.from_bytes("report.pdf", pdf(["Revenue rose 12%", "Costs fell"]))
    code = intake.from_bytes("greet.py", PYTHON_SOURCE.encode())
    message = Message("u1", "s1", MessageType.USER, "What are these?", attachments=(shot, photo, report, code))
    server = FakeResponsesServer(ScriptedBrain(default=Reply.of_text("Seen.")), api_key=KEY)
    with server:
        events = await _send(server, intake, message)
        media = server.requests[-1].media
        text_only = server.counter(server.requests[-1].serialized())
    assert server.refusals == [] and server.failures == []
    assert [(m.kind, m.media_type, m.sha256) for m in media] == [
        ("image", "image/png", shot.sha256), ("image", "image/jpeg", photo.sha256),
        ("pdf", "application/pdf", report.sha256)]  # the base64 round trip gives back the stored bytes
    assert [(m.width, m.height, m.tokens) for m in media[:2]] == [
        (640, 480, openai_image_tokens(640, 480)), (1600, 1200, openai_image_tokens(1600, 1200))]
    assert (media[2].pages, media[2].name) == (2, "report.pdf")
    assert openai_image_tokens(1600, 1200) == 765  # fit 2048, shortest side 768: 1024x768 = 4 tiles
    usage = next(e for e in events if isinstance(e, UsageReported))
    assert usage.usage.input_tokens == text_only + sum(m.tokens for m in media)
    assert PYTHON_SOURCE in server.requests[-1].last_user_text


async def test_an_image_declared_as_another_type_is_refused_through_the_sdk(intake):
    lie = replace(intake.from_bytes("shot.png", png()), media_type="image/jpeg")
    message = Message("u1", "s1", MessageType.USER, "look", attachments=(lie,))
    server = FakeResponsesServer(ScriptedBrain(default=Reply.of_text("unused")), api_key=KEY)
    with server, pytest.raises(InvalidResponse, match="You uploaded an unsupported image"):
        await _send(server, intake, message)
    assert server.refusals == [IMAGE_FORMATS] and server.requests == []


WRONG = [
    ({"type": "input_image", "image_url": f"data:image/jpeg;base64,{_b64(PNG)}", "detail": "auto"},
     IMAGE_FORMATS, "input[0].content[1]", "invalid_image_format"),
    ({"type": "input_image", "image_url": "data:image/png;base64,not base64!", "detail": "auto"},
     IMAGE_FORMATS, "input[0].content[1]", "invalid_image_format"),
    ({"type": "input_image", "image_url": _b64(PNG), "detail": "auto"},
     "Invalid 'input[0].content[1].image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. "
     "'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.",
     "input[0].content[1].image_url", "invalid_value"),
    ({"type": "input_image", "image_url": f"data:image/png;base64,{_b64(PNG)}", "detail": "ultra"},
     "Invalid value: 'ultra'. Supported values are: 'low', 'high', and 'auto'.", "input[0].content[1].detail",
     "invalid_value"),
    ({"type": "input_file", "file_data": f"data:application/pdf;base64,{_b64(PDF)}"},
     "Missing required parameter: 'input[0].content[1].filename'.", "input[0].content[1].filename",
     "missing_required_parameter"),
    ({"type": "input_file", "filename": "r.pdf", "file_data": _b64(PDF)},
     f"Invalid file data: 'input[0].content[1].file_data'. {PDF_EXPECTED} a value without the 'data:' prefix.",
     "input[0].content[1].file_data", "invalid_value"),
    ({"type": "input_file", "filename": "r.pdf", "file_data": f"data:text/plain;base64,{_b64(PDF)}"},
     f"Invalid file data: 'input[0].content[1].file_data'. {PDF_EXPECTED} unsupported MIME type 'text/plain'.",
     "input[0].content[1].file_data", "invalid_value"),
    ({"type": "input_file", "filename": "r.pdf", "file_data": f"data:application/pdf;base64,{_b64(b'%PDF-1.7 no')}"},
     "The file 'r.pdf' is not a valid PDF.", "input[0].content[1].file_data", "invalid_value"),
]


@pytest.mark.parametrize(("part", "message", "param", "code"), WRONG,
                         ids=["type-lie", "bad-base64", "no-data-url", "detail", "no-filename", "pdf-no-data-url",
                              "pdf-wrong-mime", "pdf-broken"])
def test_a_wrong_form_gets_the_apis_400_body(part: dict[str, Any], message: str, param: str, code: str) -> None:
    fake = FakeResponsesServer(ScriptedBrain(default=Reply.of_text("unused")))
    with fake:
        status, body = post(fake.base_url, {"model": "gpt-4.1", "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "look"}, part]}]})
    assert status == 400
    assert body == {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}
    assert fake.requests == [] and fake.refusals == [message]


def test_an_image_in_an_assistant_message_and_an_oversized_file_are_refused() -> None:
    image = {"type": "input_image", "image_url": f"data:image/png;base64,{_b64(PNG)}", "detail": "auto"}
    huge = "data:application/pdf;base64," + "A" * (50 * 1024 * 1024)
    with FakeResponsesServer(ScriptedBrain(default=Reply.of_text("unused"))) as fake:
        status, body = post(fake.base_url, {"model": "gpt-4.1", "input": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": [image]}]})
        big_status, big = post(fake.base_url, {"model": "gpt-4.1", "input": [
            {"role": "user", "content": [{"type": "input_file", "filename": "big.pdf", "file_data": huge}]}]})
    assert status == 400 and body["error"] == {
        "message": "Invalid value: 'input_image'. Supported values are: 'output_text' and 'refusal'.",
        "type": "invalid_request_error", "param": "input[1].content[0].type", "code": "invalid_value"}
    assert big_status == 400 and big["error"]["code"] == "string_above_max_length"
    assert big["error"]["message"] == (
        "Invalid 'input[0].content[0].file_data': string too long. Expected a string with maximum length 52428800, "
        f"but got a string with length {len(huge)} instead.")
