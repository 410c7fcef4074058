"""An MCP tool result (text, images, audio, embedded resources, links) as the text a tool result carries."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import mcp_types as types

from domain.provider_ports import ToolOutcome


def outcome_of(result: types.CallToolResult) -> ToolOutcome:
    """The result's blocks joined as text; a result marked as an error is an error outcome."""
    parts = [_block_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    return ToolOutcome(f"Error: {text}" if result.is_error else text, is_error=bool(result.is_error))


def _block_text(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image: {block.mime_type}, {_decoded_size(block.data):,} bytes]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_decoded_size(block.data):,} bytes]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        mime = resource.mime_type or "binary"
        return f"[resource {resource.uri}: {mime}, {_decoded_size(resource.blob):,} bytes]"
    if isinstance(block, types.ResourceLink):
        described = f" — {block.description}" if block.description else ""
        return f"[resource link {block.uri} ({block.name}){described}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
