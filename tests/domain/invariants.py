"""Checks shared by example and property tests: what every request sent to a provider must satisfy."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Message, MessageType


def assert_valid_request(messages: Sequence[Message]) -> None:
    """Starts with a user message; an assistant message never follows an assistant message; every tool call is
    directly answered by its result (user messages may follow each other or tool results: the shapes merge them)."""
    if not messages:
        return
    assert messages[0].type is MessageType.USER, "a request starts with a user message"
    last = "user"
    pending: list[str] = []
    for m in messages[1:]:
        if m.type is MessageType.USER:
            assert not pending, "a user message arrived before all tool results"
            last = "user"
        elif m.type is MessageType.AI_RESPONSE:
            assert not pending, "a reply arrived before all tool results"
            assert last in ("user", "tool"), f"reply follows {last}"
            last = "assistant"
        elif m.type is MessageType.TOOL_CALL:
            assert not (pending and last == "tool"), "a new tool call arrived before all tool results"
            pending.append(m.tool_call_id or "")
            last = "assistant"
        elif m.type is MessageType.TOOL_RESULT:
            assert pending, "a tool result without a call"
            assert m.tool_call_id == pending.pop(0), "a tool result answers a different call"
            last = "tool"
        else:
            raise AssertionError(f"{m.type} must not be sent")
    assert not pending, "a tool call was left without its result"
