"""ReplyDraft: the streaming reply stored as it grows, so a killed process loses at most a second of it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from domain.chat.records import MessageFactory
from domain.chat.stream import RoundState
from domain.chat.turn_store import TurnStore
from domain.models import Message, ModelId, ProviderId
from domain.ports import Clock

DRAFT_INTERVAL_SECONDS = 1.0
DRAFT_CHARS = 2_048


class ReplyDraft:
    """One round's reply while it streams: stored (marked incomplete, in its own short transaction) once a second or
    every 2 KB of new text, then completed in place by the round's own transaction (same id, same seq)."""

    def __init__(
        self,
        store: TurnStore,
        factory: MessageFactory,
        clock: Clock,
        *,
        provider_id: ProviderId,
        model_id: ModelId,
        interval_seconds: float = DRAFT_INTERVAL_SECONDS,
        chars: int = DRAFT_CHARS,
    ) -> None:
        self._store, self._factory, self._clock = store, factory, clock
        self._provider_id, self._model_id = provider_id, model_id
        self._interval, self._chars = interval_seconds, chars
        self.id = factory.new_id()
        self.written: Message | None = None  # the draft as stored last (None until the first write)
        self._size = 0
        self._since: datetime | None = None

    def grew(self, state: RoundState) -> None:
        """Called after each streamed delta: writes the draft when a second passed or 2 KB arrived since the last
        write (the first delta starts the clock)."""
        now = self._clock.now()
        if self._since is None:
            self._since = now
        size = state.chars
        waited = (now - self._since).total_seconds()
        if size - self._size >= self._chars or (waited >= self._interval and size > self._size):
            draft = self.message(state, incomplete=True)
            self.written = self._store.write_draft(draft, exists=self.written is not None)
            self._size, self._since = size, now

    def message(
        self,
        state: RoundState,
        *,
        incomplete: bool,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
    ) -> Message:
        """The reply as it stands, under the draft's id."""
        reply = self._factory.reply(
            state.text, thinking=state.thinking, provider_id=self._provider_id, model_id=self._model_id,
            input_tokens=input_tokens, output_tokens=output_tokens, incomplete=incomplete, message_id=self.id,
            reasoning=state.reasoning(), reasoning_tokens=state.usage.reasoning_tokens or None,
            thinking_ms=state.thinking_ms,
        )
        return replace(reply, web=state.web) if state.web is not None else reply
