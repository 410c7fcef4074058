"""Reattach: finds an earlier attachment of a session so the next message can carry it again."""

from __future__ import annotations

from dataclasses import dataclass

from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.models import MessageType, SessionId
from domain.ports import MessageRepository


@dataclass(frozen=True)
class SessionAttachment:
    """An attachment as it appears in a session: the file and the seq of the message that carried it."""

    attachment: Attachment
    seq: int


class SessionAttachmentsQuery:
    """Lists a session's attachments and finds one by file name or sha256 prefix (the newest wins)."""

    def __init__(self, messages: MessageRepository) -> None:
        self._messages = messages

    def __call__(self, session_id: SessionId) -> list[SessionAttachment]:
        """Every attachment of the session's user messages, oldest first."""
        return [SessionAttachment(a, m.seq) for m in self._messages.snapshot(session_id)
                if m.type is MessageType.USER for a in m.attachments]

    def find(self, session_id: SessionId, ref: str) -> Attachment:
        """The newest attachment named `ref` (or whose sha256 starts with it, at least 6 characters); InvalidInput
        naming the session's attachments when there is none."""
        found = self(session_id)
        for item in reversed(found):
            if item.attachment.name == ref or (len(ref) >= 6 and item.attachment.sha256.startswith(ref.lower())):
                return item.attachment
        names = ", ".join(dict.fromkeys(item.attachment.name for item in found)) or "none"
        raise InvalidInput(f"This conversation has no attachment {ref!r}; its attachments: {names}.")
