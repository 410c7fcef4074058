"""A real token estimator that counts the texts it measures and the messages it is asked to estimate."""

from __future__ import annotations

from domain.context.estimator import TokenEstimator
from domain.models import Message


class CountingEstimator(TokenEstimator):
    """Counts `estimate_text` calls (texts measured) and `estimate_message` calls (messages asked for)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts_measured = 0
        self.messages_asked = 0

    def estimate_text(self, text: str) -> int:
        self.texts_measured += 1
        return super().estimate_text(text)

    def estimate_message(self, message: Message) -> int:
        self.messages_asked += 1
        return super().estimate_message(message)
