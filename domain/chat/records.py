"""Builds the messages a turn stores: the user's text, replies, tool calls and tool results."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from domain.models import Message, MessageId, MessageType, ModelId, ProviderId, ReasoningBlock, SessionId, ToolStatus
from domain.ports import Clock

IdFactory = Callable[[], str]


def new_uuid() -> str:
    """A random hex id."""
    return uuid.uuid4().hex


def tool_input_json(arguments: Mapping[str, Any]) -> str:
    """A tool call's input as the JSON string stored on its message (non-JSON values as their text)."""
    return json.dumps(dict(arguments), ensure_ascii=False, default=str)


class MessageFactory:
    """New, not yet stored messages of one session, stamped with the clock and a fresh id."""

    def __init__(self, session_id: SessionId, clock: Clock, new_id: IdFactory = new_uuid) -> None:
        self.session_id = session_id
        self._clock = clock
        self._new_id = new_id

    def new_id(self) -> MessageId:
        return self._new_id()

    def user(self, text: str) -> Message:
        return Message(
            id=self._new_id(), session_id=self.session_id, type=MessageType.USER, content=text,
            created_at=self._clock.now(),
        )

    def reply(
        self,
        text: str,
        *,
        thinking: str | None,
        provider_id: ProviderId,
        model_id: ModelId,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        incomplete: bool = False,
        message_id: MessageId | None = None,
        reasoning: tuple[ReasoningBlock, ...] = (),
        reasoning_tokens: int | None = None,
        thinking_ms: int | None = None,
    ) -> Message:
        return Message(
            id=message_id or self._new_id(), session_id=self.session_id, type=MessageType.AI_RESPONSE, content=text,
            created_at=self._clock.now(), thinking_content=thinking, model_id=model_id, provider_id=provider_id,
            input_tokens=input_tokens, output_tokens=output_tokens, incomplete=incomplete, reasoning=reasoning,
            reasoning_tokens=reasoning_tokens, thinking_ms=thinking_ms,
        )

    def tool_call(
        self,
        call_id: str,
        name: str,
        arguments: Mapping[str, Any],
        *,
        provider_id: ProviderId,
        model_id: ModelId,
        reasoning: tuple[ReasoningBlock, ...] = (),
    ) -> Message:
        return Message(
            id=self._new_id(), session_id=self.session_id, type=MessageType.TOOL_CALL, created_at=self._clock.now(),
            tool_call_id=call_id, tool_name=name, tool_input=tool_input_json(arguments),
            provider_id=provider_id, model_id=model_id, reasoning=reasoning,
        )

    def tool_result(
        self,
        message_id: MessageId,
        call_id: str,
        name: str,
        output: str,
        *,
        is_error: bool,
        original_chars: int | None = None,
    ) -> Message:
        return Message(
            id=message_id, session_id=self.session_id, type=MessageType.TOOL_RESULT, created_at=self._clock.now(),
            tool_call_id=call_id, tool_name=name, tool_output=output,
            tool_status=ToolStatus.ERROR if is_error else ToolStatus.SUCCESS,
            tool_output_original_chars=original_chars,
        )
