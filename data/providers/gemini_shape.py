"""Domain messages and tools in the Gemini shape: user/model contents, function calls and user-role responses, each
part with the thought signature Gemini gave it (only to the model that made it)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from google.genai import types

from data.attachments.media import MediaSource
from data.providers.attachment_shape import gemini_parts
from data.providers.conversation import AttachmentBlock, CallBlock, ResultBlock, TextBlock, to_turns
from domain.attachment import Attachment, AttachmentKind
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, ToolDefinition

# Gemini 3 rejects a step whose first function call has no thought signature. A call that never had one (history
# written by another provider or model) gets this documented placeholder, which tells the API to skip the check;
# a call Gemini signed always goes back with its own signature instead.
SKIP_SIGNATURE = "skip_thought_signature_validator"


def _sentinel_bytes() -> bytes:
    # the SDK base64-encodes bytes on the wire (URL-safe), so decode the sentinel to have it appear verbatim
    return base64.urlsafe_b64decode(SKIP_SIGNATURE + "=" * (-len(SKIP_SIGNATURE) % 4))


def signature_text(raw: bytes) -> str:
    """A part's thought signature as stored (standard base64 of the bytes Gemini sent)."""
    return base64.b64encode(raw).decode("ascii")


def signature_bytes(text: str) -> bytes | None:
    """The bytes of a stored signature (standard or URL-safe base64); None when it is not base64."""
    padded = text + "=" * (-len(text) % 4)
    try:
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


def _signature(blocks: Sequence[ReasoningBlock], owner: tuple[str, str] | None) -> bytes | None:
    """The last signature among `blocks` that the target model made itself (never another model's)."""
    if owner is None:
        return None
    for block in reversed(blocks):
        if block.kind is ReasoningKind.SIGNATURE and block.signature and block.belongs_to(*owner):
            raw = signature_bytes(block.signature)
            if raw:
                return raw
    return None


def _call_signatures(messages: Sequence[Message], owner: tuple[str, str] | None) -> dict[str, bytes]:
    """call id -> the signature Gemini put on that function call part, for the target model's own calls."""
    signed: dict[str, bytes] = {}
    for message in messages:
        if message.type is MessageType.TOOL_CALL and message.reasoning:
            raw = _signature(message.reasoning, owner)
            if raw is not None:
                signed.setdefault(message.tool_call_id or f"call_{message.id}", raw)
    return signed


def _model_parts(blocks: Sequence[Any], reasoning: Sequence[ReasoningBlock], signed: Mapping[str, bytes],
                 owner: tuple[str, str] | None) -> list[types.Part]:
    parts: list[types.Part] = []
    calls = [block for block in blocks if isinstance(block, CallBlock)]
    placeholder_for = calls[0].id if calls and not any(call.id in signed for call in calls) else None
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(types.Part(text=block.text))
        elif isinstance(block, CallBlock):
            call = types.FunctionCall(id=block.id, name=block.name, args=dict(block.input))
            signature = signed.get(block.id) or (_sentinel_bytes() if block.id == placeholder_for else None)
            parts.append(types.Part(function_call=call, thought_signature=signature))
    reply_signature = _signature(reasoning, owner)
    texts = [part for part in parts if part.text is not None]
    if reply_signature is not None and texts:  # the reply's own signature, on its (last) text part
        texts[-1].thought_signature = reply_signature
    return parts


def gemini_contents(messages: Sequence[Message], *, tool_blocks: bool = True,
                    owner: tuple[str, str] | None = None, media: MediaSource | None = None,
                    uploaded: Mapping[str, tuple[str, str]] | None = None) -> list[types.Content]:
    """Alternating user/model contents; each function response answers its call in the next user content. `owner`
    (provider id, model id) is the model the request goes to: only the signatures it made itself are sent back."""
    contents: list[types.Content] = []
    signed = _call_signatures(messages, owner)
    for turn in to_turns(messages, user_first=True, tool_blocks=tool_blocks):
        if turn.role == "assistant":
            contents.append(types.Content(role="model", parts=_model_parts(turn.blocks, turn.reasoning, signed, owner)))
            continue
        parts: list[types.Part] = []
        heard: list[types.Part] = []  # tools' audio: user parts after the function responses
        for block in turn.blocks:
            if isinstance(block, TextBlock):
                parts.append(types.Part(text=block.text))
            elif isinstance(block, AttachmentBlock):
                parts.extend(types.Part(**part) for part in gemini_parts(block.attachment, media, uploaded))
            elif isinstance(block, ResultBlock):
                parts.append(types.Part(function_response=_function_response(block, media, uploaded)))
                heard += _result_audio(block, media)
        contents.append(types.Content(role="user", parts=parts + heard))
    return contents


def _function_response(block: ResultBlock, media: MediaSource | None,
                       uploaded: Mapping[str, tuple[str, str]] | None) -> types.FunctionResponse:
    """A tool's result; the images it returned go inside the functionResponse as inline_data or file_data parts
    (the API's multimodal function response: it takes no text parts, so each image's heading, or the line of an
    image left out, goes in the response's text)."""
    lines, parts = [block.output], []
    for attachment in block.attachments:
        if _is_sent_audio(attachment):
            continue  # after the function responses (_result_audio)
        for part in gemini_parts(attachment, media, uploaded):
            if "inline_data" in part:
                parts.append(types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(**part["inline_data"])))
            elif "file_data" in part:
                parts.append(types.FunctionResponsePart(file_data=types.FunctionResponseFileData(**part["file_data"])))
            else:
                lines.append(str(part.get("text", "")))
    text = "\n".join(lines)
    response: dict[str, Any] = {"error": text} if block.is_error else {"output": text}
    return types.FunctionResponse(id=block.id, name=block.name, response=response, parts=parts or None)


def _is_sent_audio(attachment: Attachment) -> bool:
    return attachment.kind is AttachmentKind.AUDIO and not attachment.omitted


def _result_audio(block: ResultBlock, media: MediaSource | None) -> list[types.Part]:
    """A tool's sound clips as user parts (a text naming the call and the clip, then its inline_data), since a
    functionResponse's parts take images and documents only."""
    out: list[types.Part] = []
    for attachment in block.attachments:
        if _is_sent_audio(attachment):
            out.append(types.Part(text=f"Audio returned by {block.name} (call {block.id}):"))
            out.extend(types.Part(**part) for part in gemini_parts(attachment, media))
    return out


def gemini_tools(tools: Sequence[ToolDefinition]) -> list[types.Tool]:
    """One tool holding every function declaration (JSON schema passed through as is)."""
    if not tools:
        return []
    declarations = [
        types.FunctionDeclaration(name=t.name, description=t.description, parameters_json_schema=dict(t.parameters))
        for t in tools
    ]
    return [types.Tool(function_declarations=declarations)]


def gemini_config(
    system_prompt: str | None, tools: Sequence[ToolDefinition], max_output_tokens: int,
    thinking: types.ThinkingConfig | None = None,
) -> types.GenerateContentConfig:
    """System instruction, tools (never called automatically by the SDK), the output limit and the thinking config."""
    config = types.GenerateContentConfig(
        max_output_tokens=max_output_tokens,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    if system_prompt and system_prompt.strip():
        config.system_instruction = system_prompt
    shaped = gemini_tools(tools)
    if shaped:
        config.tools = list(shaped)
    if thinking is not None:
        config.thinking_config = thinking
    return config
