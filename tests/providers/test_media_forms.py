"""Images in a type a provider does not take go in one it does (data/providers/media_forms): through the real SDKs to
fakes that refuse what the real APIs refuse (Gemini: "Unsupported MIME type: image/gif"; OpenAI: an animated GIF;
Ollama: a GIF data URL, a `file` part), a still GIF, an animated GIF, a BMP and a TIFF are accepted by each; the
stored original is never changed."""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from domain.attachment import Attachment
from domain.models import Message, MessageType, ProviderType
from tests.attachment_samples import bmp, gif, jpeg, pdf, tiff
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.ollama_server import FakeOllamaServer
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.server import FakeProviderServer
from tests.providers.helpers import KEY, adapter_for, collect, post_json
from tests.providers.test_responses import responses_adapter

FLAVOURS = ("anthropic", "openai", "responses", "gemini", "ollama")
RED = (220, 30, 30)  # the first frame of tests.attachment_samples.gif
# what each flavour is sent for: a still GIF, an animated GIF, a BMP, a TIFF
SENT_AS = {
    "anthropic": ("image/gif", "image/gif", "image/png", "image/png"),  # Anthropic reads GIFs (the first frame)
    "openai": ("image/gif", "image/png", "image/png", "image/png"),  # non-animated GIF only
    "responses": ("image/gif", "image/png", "image/png", "image/png"),
    "gemini": ("image/png", "image/png", "image/png", "image/png"),  # PNG, JPEG, WEBP, HEIC, HEIF
    "ollama": ("image/png", "image/png", "image/png", "image/png"),  # Ollama decodes JPEG, PNG and WEBP data URLs
}
SERVERS: dict[str, Any] = {"anthropic": FakeAnthropicServer, "openai": FakeOpenAIServer,
                           "responses": FakeResponsesServer, "gemini": FakeGeminiServer, "ollama": FakeOllamaServer}


@pytest.fixture(params=FLAVOURS)
def flavour(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(flavour: str) -> Iterator[FakeProviderServer]:
    brain = ScriptedBrain(default=Reply.of_text("Seen."))
    with SERVERS[flavour](brain, api_key=KEY) as fake:
        yield fake


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


def _adapter(flavour: str, base_url: str) -> Any:
    if flavour == "responses":
        return responses_adapter(base_url)
    kind = {"anthropic": ProviderType.ANTHROPIC, "openai": ProviderType.OPENAI, "gemini": ProviderType.GEMINI,
            "ollama": ProviderType.OPENAI_COMPATIBLE}[flavour]
    return adapter_for(kind, base_url)


async def _sent(flavour: str, server: FakeProviderServer, intake: AttachmentIntake, file: Attachment) -> MediaPart:
    adapter = _adapter(flavour, server.base_url)
    adapter.media = MediaSource(intake.files)
    message = Message("u1", "s1", MessageType.USER, "What is this?", attachments=(file,))
    await collect(adapter.send_message_stream(model_id="test-model", system_prompt=None, messages=[message], tools=(),
                                              max_output_tokens=256))
    (part,) = server.requests[-1].media
    assert hashlib.sha256(intake.files.read(file.sha256)).hexdigest() == file.sha256  # the original untouched
    return part


async def test_a_still_gif_goes_where_it_is_taken_and_as_png_to_gemini_and_ollama(flavour, server, intake) -> None:
    still = intake.from_bytes("logo.gif", gif(60, 40))
    part = await _sent(flavour, server, intake, still)
    assert (part.media_type, part.width, part.height) == (SENT_AS[flavour][0], 60, 40)
    if part.media_type == "image/gif":
        assert part.sha256 == still.sha256  # sent as stored


async def test_an_animated_gif_goes_as_its_first_frame_where_animation_is_refused(flavour, server, intake) -> None:
    animated = intake.from_bytes("spinner.gif", gif(60, 40, frames=3))
    part = await _sent(flavour, server, intake, animated)
    assert (part.media_type, part.width, part.height) == (SENT_AS[flavour][1], 60, 40)
    if part.media_type == "image/png":
        from PIL import Image

        with Image.open(io.BytesIO(part.data)) as frame:
            assert not getattr(frame, "is_animated", False)
            assert frame.convert("RGB").getpixel((5, 5)) == RED  # the first frame


async def test_a_bmp_is_attached_and_sent_to_every_provider_as_png(flavour, server, intake) -> None:
    picture = intake.from_bytes("scan.bmp", bmp(50, 30))
    assert picture.media_type == "image/bmp" and (picture.width, picture.height) == (50, 30)
    part = await _sent(flavour, server, intake, picture)
    assert (part.media_type, part.width, part.height) == (SENT_AS[flavour][2], 50, 30)


async def test_a_tiff_is_attached_and_sent_to_every_provider_as_png(flavour, server, intake) -> None:
    picture = intake.from_bytes("scan.tiff", tiff(50, 30))
    assert picture.media_type == "image/tiff"
    part = await _sent(flavour, server, intake, picture)
    assert (part.media_type, part.width, part.height) == (SENT_AS[flavour][3], 50, 30)


async def test_a_large_gif_over_the_inline_limit_is_uploaded_to_gemini_as_png(intake, monkeypatch) -> None:
    from dataclasses import replace

    from data.providers import rules as attachment_rules

    monkeypatch.setitem(attachment_rules.LIMITS, "gemini",
                        replace(attachment_rules.LIMITS["gemini"], inline_max_bytes=100))
    animated = intake.from_bytes("spinner.gif", gif(60, 40, frames=3))
    with FakeGeminiServer(ScriptedBrain(default=Reply.of_text("Seen.")), api_key=KEY) as server:
        part = await _sent("gemini", server, intake, animated)
        stored = list(server.files.files.values())
    assert server.files.uploads == 1 and stored[0].mime_type == "image/png"
    assert part.media_type == "image/png"


def test_the_text_of_a_bmp_like_file_is_not_taken_for_an_image(intake) -> None:
    note = intake.from_bytes("cars.txt", b"BMW and Audi: the list of cars to look at this weekend.\n")
    assert note.kind.value == "text"


# The fakes themselves: each refuses what its API refuses, with the real body.

def test_the_gemini_fake_refuses_a_gif_with_geminis_unsupported_mime_type_error() -> None:
    body = {"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/gif", "data": base64.b64encode(gif()).decode()}}, {"text": "what?"}]}]}
    with FakeGeminiServer(ScriptedBrain(default=Reply.of_text("Seen.")), api_key=KEY) as server:
        status, answer = post_json(f"{server.base_url}/v1beta/models/gemini-2.5-flash:generateContent", body,
                               {"x-goog-api-key": KEY})
    assert status == 400
    assert answer["error"] == {"code": 400, "message": "Unsupported MIME type: image/gif", "status": "INVALID_ARGUMENT"}


@pytest.mark.parametrize("path, part", [
    ("/v1/chat/completions", {"type": "image_url", "image_url": {"url": "data:image/gif;base64,{data}"}}),
    ("/v1/responses", {"type": "input_image", "image_url": "data:image/gif;base64,{data}", "detail": "auto"}),
])
def test_the_openai_fakes_refuse_an_animated_gif_and_take_a_still_one(path: str, part: dict[str, Any]) -> None:
    def post(server: FakeProviderServer, data: bytes) -> tuple[int, dict[str, Any]]:
        filled = {k: (v.replace("{data}", base64.b64encode(data).decode()) if isinstance(v, str) else
                      {kk: vv.replace("{data}", base64.b64encode(data).decode()) for kk, vv in v.items()})
                  for k, v in part.items()}
        content = [filled, {"type": "text" if "chat" in path else "input_text", "text": "what?"}]
        body: dict[str, Any] = {"model": "gpt-4.1", "stream": False}
        body.update({"messages": [{"role": "user", "content": content}]} if "chat" in path else
                    {"input": [{"role": "user", "content": content}]})
        url = server.base_url.rstrip("/").removesuffix("/v1") + path
        return post_json(url, body, {"Authorization": f"Bearer {KEY}"})

    fake = FakeOpenAIServer if "chat" in path else FakeResponsesServer
    with fake(ScriptedBrain(default=Reply.of_text("Seen.")), api_key=KEY) as server:
        refused = post(server, gif(frames=3))
        taken = post(server, gif())
    assert refused[0] == 400 and refused[1]["error"]["code"] == "invalid_image_format"
    assert refused[1]["error"]["message"].startswith("You uploaded an unsupported image.")
    assert taken[0] == 200


def test_the_ollama_fake_refuses_a_file_part_and_a_gif_as_ollama_does() -> None:
    pdf_part = {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,"
                                         + base64.b64encode(pdf(["x"])).decode()}}
    gif_part = {"type": "image_url", "image_url": {"url": "data:image/gif;base64," + base64.b64encode(gif()).decode()}}
    with FakeOllamaServer(ScriptedBrain(default=Reply.of_text("Seen."))) as server:  # Ollama asks for no key
        answers = [post_json(f"{server.base_url.rstrip('/')}/chat/completions", {
            "model": "llava:7b", "messages": [{"role": "user", "content": [part, {"type": "text", "text": "?"}]}]})
            for part in (pdf_part, gif_part)]
    assert [status for status, _ in answers] == [400, 400]
    assert [body for _, body in answers] == [
        {"error": {"message": "invalid message format", "type": "invalid_request_error", "param": None, "code": None}},
        {"error": {"message": "invalid image input", "type": "invalid_request_error", "param": None, "code": None}}]


def test_the_notices_name_each_converted_image_once_per_target_and_nothing_for_what_goes_as_it_is(intake) -> None:
    from data.providers.media_forms import AttachmentForms

    still, animated = intake.from_bytes("logo.gif", gif()), intake.from_bytes("spinner.gif", gif(frames=3))
    scan = intake.from_bytes("scan.bmp", bmp())
    forms = AttachmentForms(MediaSource(intake.files))
    files = (still, animated, scan)
    assert forms.notices(files, ProviderType.ANTHROPIC, "Anthropic") == [
        "Anthropic does not take BMP images: scan.bmp is sent converted to PNG (the file you attached is kept as it "
        "is)."]
    assert forms.notices(files, ProviderType.OPENAI, "OpenAI")[:1] == [
        "OpenAI does not take animated GIF images: only the first frame of spinner.gif is sent, as a PNG (the file "
        "you attached is kept as it is)."]
    gemini = forms.notices(files, ProviderType.GEMINI, "Gemini")
    assert gemini[0] == ("Gemini does not take GIF images: logo.gif is sent converted to PNG (the file you attached "
                         "is kept as it is).")
    assert "only the first frame of spinner.gif" in gemini[1] and len(gemini) == 3
    assert len(forms.notices(files, ProviderType.OPENAI_COMPATIBLE, "Ollama")) == 3
    assert forms.notices((intake.from_bytes("shot.jpg", jpeg()),), ProviderType.GEMINI, "Gemini") == []
