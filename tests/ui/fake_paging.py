"""The fake backend's reading at a search hit (the newest page, or a window around a hit far back, newer pages on
demand), regenerating a reply and editing a message (the active path then ends at the new one)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from domain.errors import NotFound
from domain.events import ChatEvent
from domain.models import Message, MessageType, Session
from domain.usecases.open_at_message import HitPage
from tests.ui.gate import Gate
from ui.backend import ConversationPage, Selection


class FakePaging:
    """Mixed into FakeChatBackend; relies on its sessions, messages and turn playing."""

    messages: dict[str, list[Message]]
    off_path: dict[str, list[Message]]
    calls: list[tuple[object, ...]]
    newer_gate: Gate | None

    def _session(self, session_id: str) -> Session:
        raise NotImplementedError

    async def load_conversation(self, session_id: str, tail: int) -> ConversationPage:
        raise NotImplementedError

    def _play(self, session_id: str, default: str) -> AsyncIterator[ChatEvent]:
        raise NotImplementedError

    def _store(self, sid: str, type_: MessageType, text: str = "", **fields: object) -> Message:
        raise NotImplementedError

    async def open_at(self, session_id: str, message_id: str, tail: int) -> HitPage:
        """Like the real one; a message of `off_path` (another branch's path, by message id) is switched to."""
        self.calls.append(("open_at", session_id, message_id))
        switched = message_id in self.off_path
        if switched:
            self.messages[session_id] = list(self.off_path.pop(message_id))
        messages = self.messages[session_id]
        at = next((i for i, m in enumerate(messages) if m.id == message_id), None)
        if at is None:
            raise NotFound("message", message_id)
        if len(messages) - at + 2 <= tail:  # in the newest page: that page, as the real one
            page = await self.load_conversation(session_id, tail)
        else:  # far back: a window around it (half before it), newer pages on demand
            start = max(at - tail // 2, 0)
            page = self._window(session_id, start, start + tail)
        hit = messages[at]
        return HitPage(page, message_id, switched, page.boundary_seq is not None and hit.seq < page.boundary_seq)

    async def load_newer(self, session_id: str, after_seq: int, limit: int) -> ConversationPage:
        self.calls.append(("load_newer", session_id, after_seq))
        if self.newer_gate is not None:
            await self.newer_gate.passed()
        start = sum(1 for m in self.messages[session_id] if m.seq <= after_seq)
        return self._window(session_id, start, start + limit)

    def _window(self, session_id: str, start: int, end: int) -> ConversationPage:
        """Messages start..end of the path, and how many follow (the newest reply's text when any do)."""
        session = self._session(session_id)
        messages = self.messages[session_id]
        boundary = session.compact_boundary if session.compacted_summary else None
        behind = sum(1 for m in messages if boundary is not None and m.seq < boundary)
        newer = max(len(messages) - end, 0)
        reply = next((m.content for m in reversed(messages) if m.type is MessageType.AI_RESPONSE and m.content), None)
        return ConversationPage(session, tuple(messages[start:end]), len(messages), (), boundary, behind,
                                newer_count=newer, newest_reply=reply if newer else None)

    async def regenerate(self, session_id: str, message_id: str, selection: Selection) -> AsyncIterator[ChatEvent]:
        """A new answer to the user message the reply answered: the path ends at that message, then the new reply."""
        self.calls.append(("regenerate", session_id, message_id))
        path = self.messages[session_id]
        at = next(i for i, m in enumerate(path) if m.id == message_id)
        asked = max(i for i in range(at) if path[i].type is MessageType.USER)
        del path[asked + 1:]
        async for event in self._play(session_id, "Regenerated reply."):
            yield event

    async def edit(self, session_id: str, message_id: str, text: str, selection: Selection
                   ) -> AsyncIterator[ChatEvent]:
        """A new version of a user message: the path ends before it, then the new text and its reply."""
        self.calls.append(("edit", session_id, message_id, text))
        path = self.messages[session_id]
        del path[next(i for i, m in enumerate(path) if m.id == message_id):]
        self._store(session_id, MessageType.USER, text)
        async for event in self._play(session_id, f"You said: {text}"):
            yield event
