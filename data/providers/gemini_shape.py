"""Domain messages and tools in the Gemini shape: user/model contents, function calls and user-role responses."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from google.genai import types

from data.providers.conversation import CallBlock, ResultBlock, TextBlock, to_turns
from domain.models import Message, ToolDefinition

# Gemini 3 rejects replayed function calls without a thought signature; history from storage (or another
# provider) has none, and this documented sentinel tells the API to skip the check.
SKIP_SIGNATURE = "skip_thought_signature_validator"


def _sentinel_bytes() -> bytes:
    # the SDK base64-encodes bytes on the wire, so decode the sentinel to have it appear verbatim
    return base64.urlsafe_b64decode(SKIP_SIGNATURE + "=" * (-len(SKIP_SIGNATURE) % 4))


def gemini_contents(messages: Sequence[Message], *, tool_blocks: bool = True) -> list[types.Content]:
    """Alternating user/model contents; each function response answers its call in the next user content."""
    contents: list[types.Content] = []
    for turn in to_turns(messages, user_first=True, tool_blocks=tool_blocks):
        parts: list[types.Part] = []
        signed = False
        for block in turn.blocks:
            if isinstance(block, TextBlock):
                parts.append(types.Part(text=block.text))
            elif isinstance(block, CallBlock):
                call = types.FunctionCall(id=block.id, name=block.name, args=dict(block.input))
                part = types.Part(function_call=call)
                if not signed:
                    part = types.Part(function_call=call, thought_signature=_sentinel_bytes())
                    signed = True
                parts.append(part)
            elif isinstance(block, ResultBlock):
                response: dict[str, Any] = {"error": block.output} if block.is_error else {"output": block.output}
                result = types.FunctionResponse(id=block.id, name=block.name, response=response)
                parts.append(types.Part(function_response=result))
        contents.append(types.Content(role="model" if turn.role == "assistant" else "user", parts=parts))
    return contents


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
    system_prompt: str | None, tools: Sequence[ToolDefinition], max_output_tokens: int
) -> types.GenerateContentConfig:
    """System instruction, tools (never called automatically by the SDK) and the output limit."""
    config = types.GenerateContentConfig(
        max_output_tokens=max_output_tokens,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    if system_prompt and system_prompt.strip():
        config.system_instruction = system_prompt
    shaped = gemini_tools(tools)
    if shaped:
        config.tools = list(shaped)
    return config
