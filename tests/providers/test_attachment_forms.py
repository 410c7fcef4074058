"""Attachments through the real SDKs to the fake servers, in each provider's native form: the fakes check the media
type against the bytes, decode the base64 and open the PDF, and price each image by the provider's formula."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from data.providers.gemini_files import UploadGone
from data.providers.rules import anthropic_image_tokens, family, gemini_image_tokens, openai_image_tokens
from domain.attachment import Attachment
from domain.errors import InvalidResponse
from domain.models import Message, MessageType, ProviderType
from tests.attachment_samples import PYTHON_SOURCE, jpeg, pdf, png
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, FakeProviderServer
from tests.fakeservers.media_rules import MediaPart
from tests.providers.helpers import KEY, adapter_for, collect

FLAVOURS = {ProviderType.ANTHROPIC: FakeAnthropicServer, ProviderType.OPENAI: FakeOpenAIServer,
            ProviderType.GEMINI: FakeGeminiServer}
FORMULA = {"anthropic": anthropic_image_tokens, "openai": openai_image_tokens, "gemini": gemini_image_tokens}


@pytest.fixture(params=list(FLAVOURS), ids=lambda t: t.value)
def kind(request: pytest.FixtureRequest) -> ProviderType:
    return request.param


@pytest.fixture
def server(kind: ProviderType) -> Iterator[FakeProviderServer]:
    with FLAVOURS[kind](api_key=KEY) as fake:
        yield fake


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))


def _send(kind: ProviderType, server: FakeProviderServer, intake: AttachmentIntake, files: tuple[Attachment, ...],
          text: str = "What is in these?", retries: int = 0):
    from tests.fakeservers import Reply

    server.brain.push(Reply.of_text("Seen."))  # type: ignore[attr-defined]
    adapter = adapter_for(kind, server.base_url, retries=retries)
    adapter.media = MediaSource(intake.files)  # type: ignore[attr-defined]
    message = Message("u1", "s1", MessageType.USER, text, attachments=files)
    return collect(adapter.send_message_stream(model_id="test-model", system_prompt=None, messages=[message],
                                               tools=(), max_output_tokens=256))


def _media(server: FakeProviderServer) -> list[MediaPart]:
    return server.requests[-1].media


async def test_a_png_a_jpeg_a_pdf_and_python_arrive_in_native_form(kind, server, intake) -> None:
    shot = intake.from_bytes("shot.png", png(640, 480))
    photo = intake.from_bytes("photo.jpg", jpeg(800, 600))
    report = intake.from_bytes("report.pdf", pdf(["Revenue rose 12%", "Costs fell"]))
    code = intake.from_bytes("greet.py", PYTHON_SOURCE.encode())
    await _send(kind, server, intake, (shot, photo, report, code))

    media = _media(server)
    assert [(m.kind, m.media_type) for m in media] == [("image", "image/png"), ("image", "image/jpeg"),
                                                        ("pdf", "application/pdf")]
    # the base64 round trip: the server decoded exactly the stored bytes
    assert [m.sha256 for m in media] == [shot.sha256, photo.sha256, report.sha256]
    assert [(m.width, m.height) for m in media[:2]] == [(640, 480), (800, 600)]
    assert media[2].pages == 2
    fam = family(kind)
    assert [m.tokens for m in media[:2]] == [FORMULA[fam](640, 480), FORMULA[fam](800, 600)]
    text = server.requests[-1].last_user_text
    assert "File greet.py:" in text and PYTHON_SOURCE in text and text.endswith("What is in these?")
    assert "[Attached: shot.png (image, " in text
    body = server.log[-1].json()
    if kind is ProviderType.ANTHROPIC:
        blocks = body["messages"][0]["content"]
        assert [b["type"] for b in blocks] == ["text", "image", "text", "image", "document", "text", "text"]
        assert blocks[4]["title"] == "report.pdf" and blocks[4]["source"]["media_type"] == "application/pdf"
    if kind is ProviderType.OPENAI:
        parts = body["messages"][0]["content"]
        assert [p["type"] for p in parts] == ["text", "image_url", "text", "image_url", "file", "text", "text"]
        assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
        assert parts[4]["file"]["filename"] == "report.pdf"
        assert parts[4]["file"]["file_data"].startswith("data:application/pdf;base64,")
    if kind is ProviderType.GEMINI:
        parts = body["contents"][0]["parts"]
        assert [next(iter(p)) for p in parts] == ["text", "inlineData", "text", "inlineData", "text", "inlineData",
                                                  "text", "text"]
        assert "application/pdf" in parts[5]["inlineData"].values()
        assert server.files.uploads == 0  # type: ignore[attr-defined]


async def test_an_image_over_the_providers_edge_is_downscaled_and_the_original_kept(kind, server, intake) -> None:
    big = intake.from_bytes("wide.png", png(4000, 1000))
    await _send(kind, server, intake, (big,))
    (sent,) = _media(server)
    edge = {"anthropic": 1568, "openai": 2048, "gemini": 3072}[family(kind)]
    assert max(sent.width or 0, sent.height or 0) == edge and sent.media_type == "image/png"
    assert hashlib.sha256(intake.files.read(big.sha256)).hexdigest() == big.sha256  # the stored original untouched


async def test_an_omitted_attachment_goes_as_its_placeholder_line_and_no_bytes(kind, server, intake) -> None:
    shot = replace(intake.from_bytes("old.png", png()), omitted=True)
    await _send(kind, server, intake, (shot,), text="and now?")
    assert _media(server) == []
    assert "[Attachment old.png (image, " in server.requests[-1].last_user_text
    assert "original kept — ask to see it again" in server.requests[-1].last_user_text


async def test_a_pdf_for_a_model_without_pdf_input_goes_as_its_extracted_text(kind, server, intake) -> None:
    report = replace(intake.from_bytes("report.pdf", pdf(["Revenue rose 12%", "Costs fell"])), as_text=True)
    await _send(kind, server, intake, (report,))
    assert _media(server) == []
    text = server.requests[-1].last_user_text
    assert "Text extracted from report.pdf (pdf, " in text and "Revenue rose 12%" in text and "Costs fell" in text


async def test_the_fake_refuses_an_image_whose_declared_type_is_not_its_bytes(kind, server, intake) -> None:
    lie = replace(intake.from_bytes("shot.png", png()), media_type="image/jpeg")
    with pytest.raises(InvalidResponse) as caught:
        await _send(kind, server, intake, (lie,))
    expected = {"anthropic": "The image was specified using the image/jpeg media type, but the image appears to be "
                             "a image/png image",
                "openai": "You uploaded an unsupported image", "gemini": "Unable to process input image"}
    assert expected[family(kind)] in str(caught.value)


@pytest.fixture
def small_inline_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini's inline limit lowered to 1,000 bytes, so a small PDF takes the Files API route."""
    from data.providers import rules as attachment_rules

    monkeypatch.setitem(attachment_rules.LIMITS, "gemini",
                        replace(attachment_rules.LIMITS["gemini"], inline_max_bytes=1000))


async def test_gemini_uploads_a_file_over_the_inline_limit_once_and_remembers_it(intake, small_inline_limit) -> None:
    report = intake.from_bytes("report.pdf", pdf(["Revenue rose 12%"] * 3))
    assert report.size > 1000
    with FakeGeminiServer(api_key=KEY) as server:
        await _send(ProviderType.GEMINI, server, intake, (report,))
        await _send(ProviderType.GEMINI, server, intake, (report,))  # a new adapter: as a new process would
        assert server.files.uploads == 1
        parts = server.log[-1].json()["contents"][0]["parts"]
        assert "fileData" in parts[1] and "inlineData" not in str(parts)
        (sent,) = _media(server)
        assert (sent.sha256, sent.pages) == (report.sha256, 3)  # the uploaded bytes are the stored file


async def test_gemini_uploads_again_once_the_file_is_near_its_expiry(intake, small_inline_limit) -> None:
    from datetime import timedelta

    report = intake.from_bytes("report.pdf", pdf(["Revenue rose 12%"] * 3))
    with FakeGeminiServer(api_key=KEY) as server:
        server.files.lifetime = timedelta(minutes=30)  # less than the hour of margin the app keeps
        await _send(ProviderType.GEMINI, server, intake, (report,))
        server.files.expire_all()
        await _send(ProviderType.GEMINI, server, intake, (report,))
        assert server.files.uploads == 2
        assert _media(server)[0].sha256 == report.sha256


async def test_a_file_gemini_no_longer_has_is_uploaded_again_and_the_request_resent(intake, small_inline_limit):
    report = intake.from_bytes("report.pdf", pdf(["x"] * 3))
    with FakeGeminiServer(api_key=KEY) as server:
        await _send(ProviderType.GEMINI, server, intake, (report,))
        server.files.files.clear()  # the server forgot it (deleted, or its 48 hours passed) while the app remembers it
        with pytest.raises(UploadGone, match="no longer has an attachment uploaded earlier"):  # without retries
            await _send(ProviderType.GEMINI, server, intake, (report,))
        await _send(ProviderType.GEMINI, server, intake, (report,), retries=1)
        assert server.files.uploads == 2 and _media(server)[0].sha256 == report.sha256


def test_gemini_uploads_the_largest_files_until_what_stays_inline_fits_the_request() -> None:
    from data.providers.gemini_files import upload_plan
    from domain.attachment import AttachmentKind

    def pdf_of(name: str, mib: int) -> Attachment:
        return Attachment(name * 64, f"{name}.pdf", "application/pdf", AttachmentKind.PDF, mib * 1024 * 1024, pages=1)

    small, mid, big, huge = pdf_of("a", 2), pdf_of("b", 5), pdf_of("c", 6), pdf_of("d", 9)
    assert upload_plan([small, mid]) == set()  # 7 MiB inline: fits
    assert upload_plan([huge]) == {huge.sha256}  # over the 7 MiB inline limit by itself
    assert upload_plan([small, mid, big, pdf_of("e", 6)]) == {big.sha256}  # 19 MiB: 13 MiB stay inline
    assert upload_plan([mid, big, pdf_of("e", 6), pdf_of("f", 5)]) == {big.sha256, "e" * 64}  # 22 -> 10 MiB
    assert upload_plan([replace(big, omitted=True), mid]) == set()  # a placeholder carries no bytes


def test_the_responses_api_gets_input_image_and_input_file_parts(intake) -> None:
    import base64

    from data.providers.responses_shape import responses_input

    shot = intake.from_bytes("shot.png", png(640, 480))
    report = intake.from_bytes("report.pdf", pdf(["Revenue rose 12%"]))
    code = intake.from_bytes("greet.py", PYTHON_SOURCE.encode())
    message = Message("u1", "s1", MessageType.USER, "What are these?", attachments=(shot, report, code))
    (item,) = responses_input([message], media=MediaSource(intake.files))
    kinds = [part["type"] for part in item["content"]]
    assert kinds == ["input_text", "input_image", "input_file", "input_text", "input_text"]
    image, file = item["content"][1], item["content"][2]
    assert base64.b64decode(image["image_url"].removeprefix("data:image/png;base64,")) == intake.files.read(shot.sha256)
    assert file["filename"] == "report.pdf"
    assert base64.b64decode(file["file_data"].removeprefix("data:application/pdf;base64,")) == \
        intake.files.read(report.sha256)
    assert PYTHON_SOURCE in item["content"][3]["text"] and item["content"][4]["text"] == "What are these?"
