"""An MCP tool result (text, images, audio, embedded resources, links) as the text and images a tool result carries."""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types

from data.attachments.audio import wav_seconds
from domain.attachment import Attachment, AttachmentKind
from domain.errors import InvalidInput
from domain.provider_ports import ToolOutcome

log = logging.getLogger(__name__)
StoreImage = Callable[[str, bytes], Attachment]  # AttachmentIntake.from_bytes: checks and stores, or InvalidInput
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_AUDIO_EXTENSIONS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3",
                     "audio/ogg": "ogg", "audio/flac": "flac"}


def outcome_of(result: types.CallToolResult, store: StoreImage | None = None, *, tool: str = "tool") -> ToolOutcome:
    """The result's blocks joined as text; with `store`, each image (an image block, or an embedded image
    resource) is stored and carried as an attachment of the result (the text names it where it stood); an image
    that cannot be stored stays a one-line description. A result marked as an error is an error outcome."""
    images: list[Attachment] = []
    parts = [_block_text(block, store, images, tool) for block in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    return ToolOutcome(f"Error: {text}" if result.is_error else text, is_error=bool(result.is_error),
                       attachments=tuple(images))


def _block_text(block: Any, store: StoreImage | None, images: list[Attachment], tool: str) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        stored = _stored(block.data, block.mime_type, store, images, tool)
        return stored or f"[image: {block.mime_type}, {_decoded_size(block.data):,} bytes]"
    if isinstance(block, types.AudioContent):
        _stored_audio(block.data, block.mime_type, store, images, tool)
        return _audio_line(block.data, block.mime_type)
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        mime = resource.mime_type or "binary"
        stored = _stored(resource.blob, mime, store, images, tool) if mime.startswith("image/") else None
        return stored or f"[resource {resource.uri}: {mime}, {_decoded_size(resource.blob):,} bytes]"
    if isinstance(block, types.ResourceLink):
        described = f" — {block.description}" if block.description else ""
        return f"[resource link {block.uri} ({block.name}){described}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _stored(data: str, mime: str, store: StoreImage | None, images: list[Attachment], tool: str) -> str | None:
    """The line naming an image stored as an attachment, or None when it is not (no store, bad data, refused)."""
    if store is None:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    name = f"{tool}-image-{len(images) + 1}.{_EXTENSIONS.get(mime, 'img')}"
    try:
        attachment = store(name, raw)
    except InvalidInput as err:  # not a readable image: the model reads why instead
        log.info("An image from %s was not kept: %s", tool, err)
        return f"[image: {mime}, {len(raw):,} bytes, not readable: {err}]"
    if attachment.kind is not AttachmentKind.IMAGE:
        return None
    images.append(attachment)
    return f"[image: {attachment.label}]"


def _stored_audio(data: str, mime: str, store: StoreImage | None, media: list[Attachment], tool: str) -> None:
    """A sound clip kept as an attachment of the result (sent to models that take audio); nothing when it cannot
    be (no store, bad data, not a clip the intake recognises)."""
    if store is None:
        return
    try:
        raw = base64.b64decode(data, validate=True)
        attachment = store(f"{tool}-audio-{len(media) + 1}.{_AUDIO_EXTENSIONS.get(mime, 'audio')}", raw)
    except (binascii.Error, ValueError, InvalidInput) as err:
        log.info("Audio from %s was not kept: %s", tool, err)
        return
    if attachment.kind is AttachmentKind.AUDIO:
        media.append(attachment)


def _audio_line(data: str, mime: str) -> str:
    """`[audio: TYPE, N bytes, S s]`: what a model without audio input reads (the length when it is a WAV file)."""
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return f"[audio: {mime}, {len(data):,} bytes]"
    seconds = wav_seconds(raw)
    length = f", {seconds:.1f} s" if seconds is not None else ""
    return f"[audio: {mime}, {len(raw):,} bytes{length}]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
