"""The preview a message gives its session in the sessions list (shared by data/db and data/lite, no SQLAlchemy)."""

from __future__ import annotations

from domain.models import Message, MessageType

PREVIEW_CHARS = 120
_HEAD_FACTOR = 8  # a long text's first 8 × chars characters are read first (every stored message passes here)


def preview(message: Message) -> str | None:
    """The session-list preview a user or reply message gives (None for other kinds or blank text): its first
    PREVIEW_CHARS characters once every run of whitespace is one space."""
    if message.type is not MessageType.USER and message.type is not MessageType.AI_RESPONSE:
        return None
    return collapsed_head(message.content, PREVIEW_CHARS) or None


def collapsed_head(text: str, chars: int) -> str:
    """`" ".join(text.split())[:chars]`, reading only the head of a long text when that is enough: the head's words
    joined are always a start of the whole text's (a word the cut splits is a start of that word), so once they
    reach `chars` the rest cannot change them."""
    head = text[:_HEAD_FACTOR * chars]
    joined = " ".join(head.split())
    if len(head) == len(text) or len(joined) >= chars:
        return joined[:chars]
    return " ".join(text.split())[:chars]
