"""Domain messages and tools in the Chat Completions shape (system message, assistant tool_calls, tool role)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from data.attachments.media import MediaSource
from data.providers.attachment_shape import openai_parts
from data.providers.conversation import AttachmentBlock, CallBlock, ResultBlock, TextBlock, Turn, to_turns
from data.providers.rules import OPENAI
from domain.attachment import AttachmentKind
from domain.models import Message, ReasoningBlock, ReasoningKind, ToolDefinition

MAX_ID_LENGTH = 40  # OpenAI rejects longer tool_call ids


def safe_call_id(call_id: str) -> str:
    """The id itself when short enough, else a stable short digest of it (same for call and result)."""
    if len(call_id) <= MAX_ID_LENGTH:
        return call_id
    return "call_" + hashlib.sha1(call_id.encode()).hexdigest()[:32]


def own_reasoning(blocks: Sequence[ReasoningBlock], owner: tuple[str, str]) -> str | None:
    """The reasoning_content a turn's replies carried, if the target model produced them itself (else None)."""
    texts = [b.text for b in blocks if b.kind is ReasoningKind.REASONING_CONTENT and b.belongs_to(*owner)]
    return "".join(texts) if texts else None


def openai_messages(
    system_prompt: str | None, messages: Sequence[Message], *, tool_blocks: bool = True,
    echo: str | None = None, owner: tuple[str, str] | None = None, media: MediaSource | None = None,
    forms: str = OPENAI,
) -> list[dict[str, Any]]:
    """A system message, then user / assistant (with tool_calls) / tool messages, results right after calls.

    With `echo` (the field a compatible server reads, e.g. reasoning_content), an assistant turn that made tool calls
    carries the reasoning the target model `owner` (provider id, model id) produced for it; with reasoning_content, a
    tool-call turn another model wrote carries an empty one (DeepSeek refuses a tool-call turn without the field)."""
    shaped: list[dict[str, Any]] = []
    if system_prompt and system_prompt.strip():
        shaped.append({"role": "system", "content": system_prompt})
    for turn in to_turns(messages, user_first=True, tool_blocks=tool_blocks):
        texts = [b.text for b in turn.blocks if isinstance(b, TextBlock)]
        if turn.role == "assistant":
            calls = [b for b in turn.blocks if isinstance(b, CallBlock)]
            message: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) or None}
            reasoning = own_reasoning(turn.reasoning, owner) if calls and echo and owner else None
            if reasoning is not None or (calls and echo == "reasoning_content"):
                message[str(echo)] = reasoning or ""
            if calls:
                message["tool_calls"] = [
                    {
                        "id": safe_call_id(call.id),
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(dict(call.input))},
                    }
                    for call in calls
                ]
            shaped.append(message)
            continue
        for block in turn.blocks:
            if isinstance(block, ResultBlock):
                shaped.append({"role": "tool", "tool_call_id": safe_call_id(block.id), "content": block.marked_output})
        files = [b.attachment for b in turn.blocks if isinstance(b, AttachmentBlock)]
        returned = tool_images(turn, media, forms)  # a tool message holds text only: its images follow as user input
        if files or returned:  # a list of parts: each file in its native form, then the text
            parts = returned + [part for file in files for part in openai_parts(file, media, forms)]
            parts += [{"type": "text", "text": "\n\n".join(texts)}] if texts else []
            shaped.append({"role": "user", "content": parts})
        elif texts:
            shaped.append({"role": "user", "content": "\n\n".join(texts)})
    return shaped


def tool_images(turn: Turn, media: MediaSource | None, forms: str = OPENAI) -> list[dict[str, Any]]:
    """The images and sound clips the turn's tool results returned, as user content parts, each result's headed by the
    call it answers (Chat Completions takes no images or audio in a tool message)."""
    parts: list[dict[str, Any]] = []
    for block in turn.blocks:
        if isinstance(block, ResultBlock) and block.attachments:
            audio = all(a.kind is AttachmentKind.AUDIO for a in block.attachments)
            parts.append({"type": "text", "text": f"[{'Audio' if audio else 'Images'} returned by the tool "
                                                  f"{block.name} (call {safe_call_id(block.id)})]"})
            parts += [part for file in block.attachments for part in openai_parts(file, media, forms)]
    return parts


def openai_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Function tools."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
        }
        for t in tools
    ]


def openai_request(
    *,
    model_id: str,
    system_prompt: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    max_output_tokens: int,
    max_tokens_field: str,
    echo: str | None = None,
    owner: tuple[str, str] | None = None,
    extra: dict[str, Any] | None = None,
    media: MediaSource | None = None,
    forms: str = OPENAI,
) -> dict[str, Any]:
    """Keyword arguments for chat.completions.create (without stream); `extra`: the reasoning knobs; `forms`: the
    media_forms family its images are converted for."""
    params: dict[str, Any] = {
        "model": model_id,
        "messages": openai_messages(system_prompt, messages, tool_blocks=bool(tools), echo=echo, owner=owner,
                                    media=media, forms=forms),
        max_tokens_field: max_output_tokens,
        **(extra or {}),
    }
    if tools:
        params["tools"] = openai_tools(tools)
    return params
