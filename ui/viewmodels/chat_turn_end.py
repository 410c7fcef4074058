"""The chat screen's turn edges: a message refused or queued before a turn starts, and the read-back after one ends
(the partial reply of a stopped turn, a message that was not stored, the queued message)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from domain.models import Message, MessageType
from ui.attachments_backend import AttachmentPreview
from ui.backend import ConversationBackend, ConversationPage
from ui.error_text import MAX_MESSAGE_CHARS, too_long_text
from ui.models.chat_rows import ChatRow, RowKind
from ui.signals import emit
from ui.viewmodels.chat_state import ChatState
from ui.viewmodels.live_turn import LiveTurn
from ui.viewmodels.stream_end import StreamEnd
from ui.worker import AsyncWorker

PAGE = 120


class ChatTurnEnd:
    """Mixed into ChatViewModel; relies on its state, worker, backend and rows."""

    _backend: ConversationBackend
    _worker: AsyncWorker
    _state: ChatState
    _messages: list[Message]
    _live: LiveTurn | None
    _error_row: ChatRow | None
    _turns: int
    _end: StreamEnd
    _turn_text: str | None  # the message the running turn sends (None: a retry)
    _turn_base: int  # the newest stored seq when the turn began: a user message above it was stored
    _turn_error: bool  # the running turn failed (a queued message then goes back to the composer)
    _turn_files: tuple[AttachmentPreview, ...] = ()  # the files the running turn sends
    _reading_back = False  # the turn ended and its messages are being read back: a new message waits in the queue
    _queued_unseen = False  # part of the queued text was typed while the turn ran, before its outcome was shown
    notice: Any
    text_returned: Any  # Signal(str)
    session_changed: Any
    send: Callable[[str], bool]

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    def _fail(self, error: Exception) -> None:
        raise NotImplementedError

    def _sync_rows(self) -> None:
        raise NotImplementedError

    def _opened(self, page: ConversationPage) -> None:
        raise NotImplementedError

    def _refused_or_queued(self, text: str) -> bool | None:
        """True when the text was queued behind the running turn, False when it is refused as too long (it stays in
        the composer and an error says why), None when it can be sent now."""
        state = self._state
        if len(text) > MAX_MESSAGE_CHARS:  # refused before the backend sees it, like the command line does
            message = too_long_text(len(text))
            if not state.streaming:
                self._error_row = ChatRow(RowKind.ERROR, f"too-long-{self._turns}", text=message)
                self._sync_rows()
            self._set(error=message)
            emit(self.notice, message)
            return False
        if text and (state.streaming or self._reading_back) and not state.loading:
            self._queued_unseen = self._queued_unseen or state.streaming
            self._set(queued=f"{state.queued}\n\n{text}" if state.queued else text)
            return True
        return None

    def _begin_turn(self, text: str | None) -> None:
        """Remembers what the turn sends and where storage stood, for the read-back."""
        self._turn_text, self._turn_error = text, False
        self._turn_base = self._messages[-1].seq if self._messages and self._state.session is not None else 0

    def _forget_turn(self) -> None:
        """Another session opens: the running turn's message belongs to the old one; a queued message returns."""
        self._turn_text, self._turn_error, self._reading_back = None, False, False
        self.cancel_queued()

    def cancel_queued(self) -> None:
        """Withdraws the queued message; its text goes back to the composer."""
        queued, self._queued_unseen = self._state.queued, False
        if queued is not None:
            self._set(queued=None)
            emit(self.text_returned, queued)

    def _after_turn(self) -> None:
        session, end = self._state.session, self._end
        self._sync_rows()  # the finished live rows (a stopped reply marked incomplete) stay until the read-back
        if session is None:
            self._live = None
            self._sync_rows()
            self._turn_ended(stored=False)
            return
        self._reading_back = True

        async def read_back() -> ConversationPage:
            await end.settled()  # a stopped turn is still storing its partial reply: read it back once it has
            return await self._backend.load_conversation(session.id, PAGE)

        def current() -> bool:  # still the same session and turn (not left for another one meanwhile)
            return self._reading_back and self._state.session is not None and self._state.session.id == session.id

        def loaded(page: ConversationPage) -> None:
            if not current():
                return
            self._reading_back = False
            self._live = None  # the stored rows replace the live ones in one update: no gap
            self._state = replace(self._state, live_messages=0)
            self._opened(page)
            emit(self.session_changed, page.session)
            base = self._turn_base
            self._turn_ended(stored=any(m.type is MessageType.USER and m.seq > base for m in page.messages))

        def failed(error: Exception) -> None:
            if current():
                self._reading_back = False
                self._fail(error)
                self._turn_ended(stored=True)  # unknown: assume it was stored rather than offer it twice

        self._worker.call(read_back, loaded, failed)

    def _turn_ended(self, *, stored: bool) -> None:
        """A message that was not stored goes back to the composer; a queued one is sent now, unless the turn
        failed while it was being typed or its message was not stored (then it goes back to the composer too, below
        the unsent message, so nothing is sent behind an error unseen). A message sent after the error was shown,
        while the turn's messages were still being read back, is sent."""
        text, self._turn_text = self._turn_text, None
        unsent = text is not None and not stored
        queued = self._state.queued
        blind = self._turn_error and self._queued_unseen
        if blind or unsent or queued is None:
            self.cancel_queued()
        if unsent:
            if text:
                emit(self.text_returned, text)  # restored above the queued text: the order they were typed in
            if self._turn_files:  # its files go back to the composer too: nothing is lost
                self._set(pending=(*self._turn_files, *self._state.pending))
        self._turn_files = ()
        if queued is None or blind or unsent:
            return
        self._queued_unseen = False
        self._set(queued=None)
        if not self.send(queued):
            emit(self.text_returned, queued)
