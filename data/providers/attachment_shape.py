"""Attachments in each provider's native wire form: Anthropic image/document blocks, Chat Completions image_url and
file parts, Gemini inline_data (or file_data once uploaded through the Files API); text as text blocks."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from data.attachments.media import MISSING_NOTE, MediaSource
from data.providers.conversation import attachment_heading, attachment_text
from data.providers.rules import ANTHROPIC, GEMINI, LIMITS, OPENAI
from domain.attachment import PDF_TYPE, Attachment, AttachmentKind, placeholder
from domain.errors import StorageError

CHAT_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}  # Chat Completions input_audio.format values


def _media(media: MediaSource | None, attachment: Attachment) -> MediaSource:
    if media is None:
        raise StorageError(f"The attachment {attachment.name} cannot be sent: no attachment store is open.")
    return media


def _as_text(attachment: Attachment, media: MediaSource | None) -> str | None:
    if attachment.omitted:  # a placeholder needs no file
        return attachment_text(attachment, str, str)
    if media is not None and not media.present(attachment):  # deleted from the data folder: the rest still goes
        return placeholder(replace(attachment, omitted=True, note=MISSING_NOTE))
    if attachment.card:  # too large for its budget: the document's card, read on with the document tools
        return _media(media, attachment).card(attachment)
    if attachment.kind is AttachmentKind.TEXT or attachment.as_text:
        source = _media(media, attachment)
        return attachment_text(attachment, source.text, source.pdf_text)
    return None


def anthropic_parts(attachment: Attachment, media: MediaSource | None) -> list[dict[str, Any]]:
    """Content blocks of the Messages API: an image block (base64) after its name, or a document block."""
    text = _as_text(attachment, media)
    if text is not None:
        return [{"type": "text", "text": text}]
    source = _media(media, attachment)
    if attachment.kind is AttachmentKind.PDF:
        return [{"type": "document", "title": attachment.name,
                 "source": {"type": "base64", "media_type": PDF_TYPE, "data": source.base64(attachment)}}]
    data, media_type = source.image(attachment, LIMITS[ANTHROPIC])
    return [{"type": "text", "text": attachment_heading(attachment)},
            {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": _b64(data)}}]


def openai_parts(attachment: Attachment, media: MediaSource | None, forms: str = OPENAI) -> list[dict[str, Any]]:
    """Content parts of a Chat Completions user message: image_url with a data URL, or a file part with file_data;
    `forms`: media_forms.COMPATIBLE for an OpenAI-compatible server (images in the types it decodes)."""
    text = _as_text(attachment, media)
    if text is not None:
        return [{"type": "text", "text": text}]
    source = _media(media, attachment)
    if attachment.kind is AttachmentKind.PDF:
        url = f"data:{PDF_TYPE};base64,{source.base64(attachment)}"
        return [{"type": "file", "file": {"filename": attachment.name, "file_data": url}}]
    if attachment.kind is AttachmentKind.AUDIO:  # planned only as WAV or MP3, for a model that takes audio
        return [{"type": "text", "text": attachment_heading(attachment)},
                {"type": "input_audio", "input_audio": {"data": source.base64(attachment),
                                                        "format": CHAT_AUDIO_FORMATS[attachment.media_type]}}]
    data, media_type = source.image(attachment, LIMITS[OPENAI], forms)
    return [{"type": "text", "text": attachment_heading(attachment)},
            {"type": "image_url", "image_url": {"url": f"data:{media_type};base64,{_b64(data)}"}}]


def responses_parts(attachment: Attachment, media: MediaSource | None) -> list[dict[str, Any]]:
    """Content parts of a Responses API user message: input_image with a data URL, or input_file with file_data."""
    text = _as_text(attachment, media)
    if text is not None:
        return [{"type": "input_text", "text": text}]
    source = _media(media, attachment)
    if attachment.kind is AttachmentKind.PDF:
        url = f"data:{PDF_TYPE};base64,{source.base64(attachment)}"
        return [{"type": "input_file", "filename": attachment.name, "file_data": url}]
    data, media_type = source.image(attachment, LIMITS[OPENAI])
    return [{"type": "input_text", "text": attachment_heading(attachment)},
            {"type": "input_image", "image_url": f"data:{media_type};base64,{_b64(data)}", "detail": "auto"}]


def gemini_parts(attachment: Attachment, media: MediaSource | None,
                 uploaded: Mapping[str, tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """Gemini parts (as dicts for types.Part): inline_data with the bytes, or file_data with the URI of the file
    uploaded through the Files API (`uploaded`: sha256 -> (uri, mime type))."""
    text = _as_text(attachment, media)
    if text is not None:
        return [{"text": text}]
    heading = {"text": attachment_heading(attachment)}
    if uploaded and attachment.sha256 in uploaded:
        uri, mime_type = uploaded[attachment.sha256]
        return [heading, {"file_data": {"file_uri": uri, "mime_type": mime_type}}]
    source = _media(media, attachment)
    if attachment.kind is AttachmentKind.PDF:
        return [heading, {"inline_data": {"mime_type": PDF_TYPE, "data": source.data(attachment)}}]
    if attachment.kind is AttachmentKind.AUDIO:  # sent only when planned for a model that takes audio
        return [heading, {"inline_data": {"mime_type": attachment.media_type, "data": source.data(attachment)}}]
    data, media_type = source.image(attachment, LIMITS[GEMINI])
    return [heading, {"inline_data": {"mime_type": media_type, "data": data}}]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
