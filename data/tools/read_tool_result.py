"""The read_tool_result tool: pages through the full original of a truncated or pruned tool result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.tools.base import ToolArgumentError, optional_int, require_str
from domain.models import MessageType, ToolDefinition
from domain.ports import MessageRepository
from domain.provider_ports import ToolContext, ToolOutcome

DEFAULT_LENGTH = 10_000
MAX_LENGTH = 20_000

DEFINITION = ToolDefinition(
    name="read_tool_result",
    description=(
        "Read part of an earlier tool result in full, by the message id named in its truncation or trim marker. "
        "Returns the characters from offset, the total length and the next offset to read."
    ),
    parameters={
        "type": "object",
        "properties": {
            "message_id": {"type": "string", "description": "Id of the tool result message."},
            "offset": {"type": "integer", "minimum": 0, "description": "First character to read (0)."},
            "length": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LENGTH,
                "description": f"How many characters to read ({DEFAULT_LENGTH}).",
            },
        },
        "required": ["message_id"],
    },
)


class ReadToolResultTool:
    """Runs read_tool_result; only results of the calling session are readable."""

    definition = DEFINITION

    def __init__(self, messages: MessageRepository) -> None:
        self._messages = messages

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        message_id = require_str(arguments, "message_id").strip()
        offset = optional_int(arguments, "offset", 0, minimum=0, maximum=2**31)
        length = optional_int(arguments, "length", DEFAULT_LENGTH, minimum=1, maximum=MAX_LENGTH)
        message = self._messages.get(message_id)
        if message is None or message.session_id != context.session_id:
            raise ToolArgumentError(f"No tool result with id {message_id!r} in this conversation.")
        if message.type is not MessageType.TOOL_RESULT:
            raise ToolArgumentError(f"Message {message_id!r} is a {message.type.value} message, not a tool result.")
        full = self._messages.full_output(message_id)
        text = full if full is not None else (message.tool_output or "")
        total = len(text)
        if offset > total:
            raise ToolArgumentError(f"Offset {offset} is past the end of the result ({total} characters).")
        end = min(offset + length, total)
        where = f"next offset: {end}" if end < total else "end of result"
        header = f"[{message.tool_name or 'tool'} result {message_id}: characters {offset}-{end} of {total}; {where}]"
        return ToolOutcome(f"{header}\n{text[offset:end]}")
