"""A small builder of stored conversations for context-engine tests."""

from __future__ import annotations

from dataclasses import replace

from domain.models import Message, MessageType, ToolStatus


class Conversation:
    """Appends messages with increasing seq (from 1) and unique ids, the way the message store would."""

    def __init__(self, session_id: str = "s1") -> None:
        self.session_id = session_id
        self.messages: list[Message] = []
        self._calls = 0

    def _add(self, kind: MessageType, content: str = "", **fields: object) -> Message:
        seq = len(self.messages) + 1
        message = Message(id=f"{self.session_id}-m{seq}", session_id=self.session_id, type=kind, content=content,
                          seq=seq)
        message = replace(message, **fields)  # type: ignore[arg-type]
        self.messages.append(message)
        return message

    def user(self, text: str, **fields: object) -> Message:
        return self._add(MessageType.USER, text, **fields)

    def assistant(self, text: str, **fields: object) -> Message:
        return self._add(MessageType.AI_RESPONSE, text, **fields)

    def error(self, text: str = "The provider is unavailable.") -> Message:
        return self._add(MessageType.ERROR, text)

    def tool_round(self, output: str, name: str = "read_file", *, text: str | None = None,
                   has_image: bool = False) -> tuple[Message, Message]:
        """An optional assistant reply, one tool call and its result."""
        if text is not None:
            self.assistant(text)
        self._calls += 1
        call_id = f"{self.session_id}-call{self._calls}"
        call = self._add(MessageType.TOOL_CALL, tool_call_id=call_id, tool_name=name, tool_input='{"path": "a.py"}')
        result = self._add(MessageType.TOOL_RESULT, tool_call_id=call_id, tool_name=name, tool_output=output,
                           tool_status=ToolStatus.SUCCESS, has_image=has_image)
        return call, result

    def exchange(self, question: str, answer: str) -> None:
        self.user(question)
        self.assistant(answer)
