"""What one turn has produced so far, so that a failure or cancellation keeps it in a valid stored state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from domain.chat.draft import ReplyDraft
from domain.chat.records import MessageFactory
from domain.chat.round_sender import RoundAttempt
from domain.chat.tool_runner import INTERRUPTED_OUTPUT
from domain.chat.turn_store import TurnStore
from domain.errors import NetworkError, PalimpsestError, ProviderTimeout
from domain.events import ChatError
from domain.models import Message, ReplyEnd


@dataclass
class TurnProgress:
    """The running turn: the unsaved round and the tool calls stored but not yet answered."""

    factory: MessageFactory
    attempt: RoundAttempt | None = None
    draft: ReplyDraft | None = None
    pending_calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name

    def keep_partial(self, store: TurnStore, ended: ReplyEnd | None = None) -> None:
        """Stores the unsaved partial reply as incomplete, with why it `ended` (completing its draft), and answers
        unanswered tool calls with an error."""
        attempt, draft = self.attempt, self.draft
        self.attempt = self.draft = None
        reply: Message | None = None
        if attempt is not None and draft is not None:
            state = attempt.state
            if state.text or state.thinking:
                reply = replace(draft.message(state, incomplete=True), end_reason=ended)
        interrupted = [
            self.factory.tool_result(self.factory.new_id(), call_id, name, INTERRUPTED_OUTPUT, is_error=True)
            for call_id, name in self.pending_calls.items()
        ]
        self.pending_calls.clear()
        if reply is not None or interrupted:
            store.save_partial(reply, interrupted, draft=draft is not None and draft.written is not None)


def end_reason(error: BaseException) -> ReplyEnd | None:
    """Why a turn that raised `error` ended: a known failure cut it off; a cancel or a closed stream (Stop, Ctrl+C)
    stopped it; anything else (a bug) is not said."""
    if isinstance(error, PalimpsestError):
        return ReplyEnd.CUT
    if isinstance(error, asyncio.CancelledError | GeneratorExit | KeyboardInterrupt):
        return ReplyEnd.STOPPED
    return None


def chat_error(err: PalimpsestError) -> ChatError:
    """The ChatError event for a known error."""
    # a slow model, or a server that was not running yet: worth one more try by hand, if not at once by itself
    retryable = bool(getattr(err, "transient", False)) or isinstance(err, (ProviderTimeout, NetworkError))
    return ChatError(err.kind, err.message, retryable=retryable, error=err)
