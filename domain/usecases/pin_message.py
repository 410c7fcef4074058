"""Pin message: a pinned message is always sent, even once it lies behind the compaction boundary."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import NotFound
from domain.models import Message, MessageId
from domain.ports import MessageRepository


class PinMessageUseCase:
    """Pins or unpins one message."""

    def __init__(self, messages: MessageRepository) -> None:
        self._messages = messages

    def __call__(self, message_id: MessageId, pinned: bool = True) -> Message:
        """The updated message; NotFound for an unknown id."""
        message = self._messages.get(message_id)
        if message is None:
            raise NotFound("message", message_id)
        if message.pinned == pinned:
            return message
        return self._messages.update(replace(message, pinned=pinned))
