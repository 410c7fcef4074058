"""An MCP tool result as the text a tool result carries: text whole, binary content as a one-line description."""

from __future__ import annotations

import base64

import mcp_types as types

from data.mcp.results import outcome_of
from tests.audio_clips import wav

PNG = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()


def test_text_blocks_are_joined_and_binary_content_is_described_in_one_line() -> None:
    result = types.CallToolResult(content=[
        types.TextContent(type="text", text="first"),
        types.ImageContent(type="image", data=PNG, mime_type="image/png"),
        types.AudioContent(type="audio", data=base64.b64encode(b"x" * 2048).decode(), mime_type="audio/wav"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="file:///notes/todo.md", mime_type="text/markdown", text="- buy milk")),
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///notes/scan.pdf", mime_type="application/pdf", blob=base64.b64encode(b"%PDF" * 10).decode())),
        types.ResourceLink(type="resource_link", uri="file:///notes/big.log", name="big.log", description="the log"),
    ])
    outcome = outcome_of(result)
    assert not outcome.is_error
    assert outcome.output.split("\n") == [
        "first", "[image: image/png, 100 bytes]", "[audio: audio/wav, 2,048 bytes]",
        "[resource file:///notes/todo.md]", "- buy milk",
        "[resource file:///notes/scan.pdf: application/pdf, 40 bytes]",
        "[resource link file:///notes/big.log (big.log) — the log]",
    ]


def test_an_error_result_is_an_error_outcome_and_structured_content_stands_in_for_missing_text() -> None:
    failed = outcome_of(types.CallToolResult(content=[types.TextContent(type="text", text="no such file")],
                                             is_error=True))
    assert (failed.output, failed.is_error) == ("Error: no such file", True)
    structured = outcome_of(types.CallToolResult(content=[], structured_content={"count": 3}))
    assert structured.output == '{"count": 3}'
    assert outcome_of(types.CallToolResult(content=[])).output == "(the tool returned nothing)"


def test_with_a_store_an_image_becomes_an_attachment_of_the_result_and_a_broken_one_stays_a_line(tmp_path) -> None:
    from data.attachments.files import AttachmentFiles
    from data.attachments.intake import AttachmentIntake
    from tests.attachment_samples import png

    intake = AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))
    good = base64.b64encode(png(64, 48)).decode()
    result = types.CallToolResult(content=[
        types.TextContent(type="text", text="two pictures"),
        types.ImageContent(type="image", data=good, mime_type="image/png"),
        types.ImageContent(type="image", data=PNG, mime_type="image/png"),  # a PNG signature, no image
    ])
    outcome = outcome_of(result, intake.from_bytes, tool="shot")
    [image] = outcome.attachments
    assert (image.name, image.width, image.height) == ("shot-image-1.png", 64, 48)
    assert intake.files.read(image.sha256) == png(64, 48)
    lines = outcome.output.split("\n")
    assert lines[:2] == ["two pictures", "[image: shot-image-1.png (image, " + lines[1].split("(image, ")[1]]
    assert lines[2].startswith("[image: image/png, 100 bytes, not readable: ")



def test_audio_is_described_with_its_length_when_it_is_a_readable_wav() -> None:
    data = wav(1.5)
    result = types.CallToolResult(content=[
        types.AudioContent(type="audio", data=base64.b64encode(data).decode(), mime_type="audio/wav"),
        types.AudioContent(type="audio", data=base64.b64encode(b"ID3" + b"\x00" * 61).decode(), mime_type="audio/mpeg"),
    ])
    assert outcome_of(result).output.split("\n") == [
        f"[audio: audio/wav, {len(data):,} bytes, 1.5 s]", "[audio: audio/mpeg, 64 bytes]"]


def test_with_a_store_audio_becomes_an_audio_attachment_of_the_result_with_its_description(tmp_path) -> None:
    from data.attachments.files import AttachmentFiles
    from data.attachments.intake import AttachmentIntake
    from domain.attachment import AttachmentKind

    intake = AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))
    data = wav(2.0)
    result = types.CallToolResult(content=[
        types.AudioContent(type="audio", data=base64.b64encode(data).decode(), mime_type="audio/wav")])
    outcome = outcome_of(result, intake.from_bytes, tool="say")
    [clip] = outcome.attachments
    assert (clip.name, clip.kind, clip.media_type, clip.duration_ms) == ("say-audio-1.wav", AttachmentKind.AUDIO,
                                                                        "audio/wav", 2000)
    assert intake.files.read(clip.sha256) == data
    assert outcome.output == f"[audio: audio/wav, {len(data):,} bytes, 2.0 s]"
