"""The preview a message gives its session in the sessions list (shared by data/db and data/lite, no SQLAlchemy)."""

from __future__ import annotations

from domain.models import Message, MessageType

PREVIEW_CHARS = 120


def preview(message: Message) -> str | None:
    """The session-list preview a user or reply message gives (None for other kinds or blank text)."""
    if message.type in (MessageType.USER, MessageType.AI_RESPONSE) and message.content.strip():
        return " ".join(message.content.split())[:PREVIEW_CHARS]
    return None
