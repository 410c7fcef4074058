"""Renders messages as a plain-text transcript for the summarizer, and splits it into chunks that fit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain.attachment import placeholder
from domain.context.alternation import is_synthetic
from domain.models import Message, MessageType

BLOCK_SEPARATOR = "\n\n"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters omitted ...]\n{text[-half:]}"


def render_message(message: Message, max_tool_chars: int = 2_000) -> str:
    """One message as a labelled block."""
    if message.type is MessageType.USER:  # attachments as their one-line placeholders: never their bytes
        files = "".join(f"\n{placeholder(replace(a, omitted=True, note=None))}" for a in message.attachments)
        return f"[User]\n{message.content}{files}"
    if message.type is MessageType.AI_RESPONSE:
        return f"[Assistant]\n{message.content}"
    if message.type is MessageType.TOOL_CALL:
        args = _clip(message.tool_input or message.content, max_tool_chars)
        return f"[Assistant called tool {message.tool_name or '?'}]\n{args}"
    if message.type is MessageType.TOOL_RESULT:
        output = message.tool_output if message.tool_output is not None else message.content
        status = " (error)" if message.tool_status is not None and message.tool_status.value == "error" else ""
        return f"[Tool result {message.tool_name or ''}{status}]\n{_clip(output, max_tool_chars)}"
    return f"[Error]\n{message.content}"


def render_blocks(messages: Sequence[Message], max_tool_chars: int = 2_000) -> list[str]:
    """The transcript's blocks, one per stored message (placeholders and errors left out)."""
    return [
        render_message(m, max_tool_chars)
        for m in messages
        if not is_synthetic(m) and m.type is not MessageType.ERROR
    ]


def render_transcript(messages: Sequence[Message], max_tool_chars: int = 2_000) -> str:
    """One labelled block per message ([User], [Assistant], tool calls and results); long tool text clipped."""
    return BLOCK_SEPARATOR.join(render_blocks(messages, max_tool_chars))


def chunk_blocks(blocks: Sequence[str], max_chars: int) -> list[str]:
    """Joins blocks into chunks of at most max_chars; a single larger block is split into pieces."""
    if max_chars <= 0:
        raise ValueError("max_chars must be positive")
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for block in blocks:
        pieces = [block[i : i + max_chars] for i in range(0, len(block), max_chars)] or [""]
        for piece in pieces:
            extra = len(piece) + (len(BLOCK_SEPARATOR) if current else 0)
            if current and size + extra > max_chars:
                chunks.append(BLOCK_SEPARATOR.join(current))
                current, size = [], 0
                extra = len(piece)
            current.append(piece)
            size += extra
    if current:
        chunks.append(BLOCK_SEPARATOR.join(current))
    return chunks
