"""Stores one streamed round the way the domain does (reply with its reasoning blocks, tool calls with theirs), so a
later request can be built from it; and sends a round with a reasoning level."""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain.events import ReasoningDone, StreamEvent, TextDelta, ThinkingDelta, ToolCallRequested
from domain.models import Message, MessageType, ModelCapabilities, ReasoningBlock, ToolDefinition
from domain.provider_ports import ModelApiAdapter
from tests.providers.helpers import WEATHER, History, collect


def record_round(history: History, events: Sequence[StreamEvent], provider_id: str, model_id: str) -> History:
    """Appends the reply (text, thinking, its own reasoning blocks) and its tool calls (each with the blocks bound
    to it), as the domain stores them."""
    done = [e for e in events if isinstance(e, ReasoningDone)]
    own: tuple[ReasoningBlock, ...] = tuple(d.block for d in done if d.call_id is None)
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta)) or None
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    n = len(history.messages)
    history.messages.append(Message(id=f"m{n}", session_id="s1", type=MessageType.AI_RESPONSE, seq=n, content=text,
                                    thinking_content=thinking, provider_id=provider_id, model_id=model_id,
                                    reasoning=own))
    for call in (e for e in events if isinstance(e, ToolCallRequested)):
        n = len(history.messages)
        bound = tuple(d.block for d in done if d.call_id == call.id)
        history.messages.append(Message(id=f"m{n}", session_id="s1", type=MessageType.TOOL_CALL, seq=n,
                                        tool_call_id=call.id, tool_name=call.name, tool_input=json.dumps(call.input),
                                        provider_id=provider_id, model_id=model_id, reasoning=bound))
    return history


def answer_calls(history: History, events: Sequence[StreamEvent], output: str = "sunny") -> History:
    """Appends a result for every tool call of the round."""
    for call in (e for e in events if isinstance(e, ToolCallRequested)):
        history.result(call.id, call.name, output)
    return history


async def send(adapter: ModelApiAdapter, history: History, model: str, reasoning: str = "auto",
               tools: tuple[ToolDefinition, ...] = (WEATHER,),
               capabilities: ModelCapabilities | None = None) -> list[StreamEvent]:
    """All events of one round sent with a reasoning level (and the model's capabilities, when given)."""
    extra = {"capabilities": capabilities} if capabilities is not None else {}
    return await collect(adapter.send_message_stream(
        model_id=model, system_prompt="Be brief.", messages=history.messages, tools=tools, max_output_tokens=512,
        reasoning=reasoning, **extra))
