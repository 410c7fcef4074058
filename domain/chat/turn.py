"""What one turn has produced so far, so that a failure or cancellation keeps it in a valid stored state."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.chat.records import MessageFactory
from domain.chat.round_sender import RoundAttempt
from domain.chat.target import TurnTarget
from domain.chat.tool_runner import INTERRUPTED_OUTPUT
from domain.errors import PalimpsestError
from domain.events import ChatError
from domain.ports import MessageRepository

PREVIEW_CHARS = 120


@dataclass
class TurnProgress:
    """The running turn: the target, the unsaved round, tool calls stored but not yet answered, the preview."""

    factory: MessageFactory
    preview: str
    target: TurnTarget | None = None
    attempt: RoundAttempt | None = None
    pending_calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name

    def keep_partial(self, messages: MessageRepository) -> None:
        """Stores the unsaved partial reply as incomplete and answers unanswered tool calls with an error."""
        attempt, target = self.attempt, self.target
        self.attempt = None
        if attempt is not None and target is not None:
            state = attempt.state
            if state.text or state.thinking:
                messages.add(
                    self.factory.reply(
                        state.text, thinking=state.thinking, provider_id=target.provider.id,
                        model_id=attempt.model.id, incomplete=True,
                    )
                )
                self.preview = state.text or self.preview
        for call_id, name in list(self.pending_calls.items()):
            messages.add(
                self.factory.tool_result(
                    self.factory.new_id(), call_id, name, INTERRUPTED_OUTPUT, is_error=True,
                )
            )
        self.pending_calls.clear()


def preview_of(text: str) -> str:
    """A one-line preview of a message for the session list."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def chat_error(err: PalimpsestError) -> ChatError:
    """The ChatError event for a known error."""
    return ChatError(err.kind, err.message, retryable=bool(getattr(err, "transient", False)))
