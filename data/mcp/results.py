"""An MCP tool result (text, images, audio, embedded resources, links) as the text and images a tool result carries."""

from __future__ import annotations

import base64
import binascii
import io
import json
import logging
import wave
from collections.abc import Callable
from typing import Any

import mcp_types as types

from domain.attachment import Attachment, AttachmentKind
from domain.errors import InvalidInput
from domain.provider_ports import ToolOutcome

log = logging.getLogger(__name__)
StoreImage = Callable[[str, bytes], Attachment]  # AttachmentIntake.from_bytes: checks and stores, or InvalidInput
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


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


def _audio_line(data: str, mime: str) -> str:
    """`[audio: TYPE, N bytes, S s]`: what a model without audio input reads (the length when it is a WAV file)."""
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return f"[audio: {mime}, {len(data):,} bytes]"
    seconds = _wav_seconds(raw)
    length = f", {seconds:.1f} s" if seconds is not None else ""
    return f"[audio: {mime}, {len(raw):,} bytes{length}]"


def _wav_seconds(raw: bytes) -> float | None:
    """The length of a PCM WAV clip in seconds; None for any other format or a broken header."""
    if not (raw.startswith(b"RIFF") and raw[8:12] == b"WAVE"):
        return None
    try:
        with wave.open(io.BytesIO(raw), "rb") as clip:
            rate = clip.getframerate()
            return clip.getnframes() / rate if rate else None
    except (wave.Error, EOFError, ValueError):
        return None


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
