"""Domain messages and tools in the Anthropic Messages API's shape, with prompt-caching breakpoints."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from data.providers.conversation import CallBlock, ResultBlock, TextBlock, to_turns
from domain.models import Message, ToolDefinition

EPHEMERAL = {"type": "ephemeral"}
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def safe_tool_id(call_id: str) -> str:
    """Anthropic accepts tool ids of [a-zA-Z0-9_-] only; ids from other providers are made to fit."""
    return _ID_UNSAFE.sub("_", call_id) or "call"


def anthropic_messages(
    messages: Sequence[Message], *, cache: bool = True, tool_blocks: bool = True
) -> list[dict[str, Any]]:
    """User/assistant alternation with tool_result blocks in the user turn right after their tool_use turn."""
    shaped: list[dict[str, Any]] = []
    for turn in to_turns(messages, user_first=True, tool_blocks=tool_blocks):
        content: list[dict[str, Any]] = []
        for block in turn.blocks:
            if isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, CallBlock):
                content.append(
                    {"type": "tool_use", "id": safe_tool_id(block.id), "name": block.name, "input": dict(block.input)}
                )
            elif isinstance(block, ResultBlock):
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": safe_tool_id(block.id),
                    "content": block.output,
                }
                if block.is_error:
                    result["is_error"] = True
                content.append(result)
        shaped.append({"role": turn.role, "content": content})
    if cache and shaped and shaped[-1]["content"]:
        shaped[-1]["content"][-1]["cache_control"] = dict(EPHEMERAL)
    return shaped


def anthropic_system(system_prompt: str | None, *, cache: bool = True) -> list[dict[str, Any]] | None:
    """The system prompt as one text block, cached unless told otherwise (None when there is none)."""
    if not system_prompt or not system_prompt.strip():
        return None
    block: dict[str, Any] = {"type": "text", "text": system_prompt}
    if cache:
        block["cache_control"] = dict(EPHEMERAL)
    return [block]


def anthropic_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions with input_schema."""
    return [
        {"name": tool.name, "description": tool.description, "input_schema": dict(tool.parameters)} for tool in tools
    ]


def anthropic_request(
    *,
    model_id: str,
    system_prompt: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    max_output_tokens: int,
    cache: bool = True,
) -> dict[str, Any]:
    """Keyword arguments for messages.create (without stream); cache=False for one-off prompts (a cache write
    costs more than plain input and would never be read)."""
    params: dict[str, Any] = {
        "model": model_id,
        "max_tokens": max_output_tokens,
        "messages": anthropic_messages(messages, cache=cache, tool_blocks=bool(tools)),
    }
    system = anthropic_system(system_prompt, cache=cache)
    if system:
        params["system"] = system
    if tools:
        params["tools"] = anthropic_tools(tools)
    return params
