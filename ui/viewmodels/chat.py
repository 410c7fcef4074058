"""Drives one chat screen: opens a session, sends and streams, stops, retries; emits the whole state on change."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from domain.attachment import Attachment
from domain.errors import PalimpsestError
from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    CompactStarted,
    ContextStatusChanged,
    MemoryFlushed,
    Notice,
    ResponseComplete,
    TextDelta,
    ThinkingDelta,
    TitleGenerated,
    ToolCallStarted,
    ToolResultStored,
    ToolRoundLimitReached,
    Waiting,
)
from domain.models import Message, Session, SessionId
from ui.backend import ConversationBackend, ConversationPage, Selection
from ui.error_text import describe, notice_text
from ui.models.chat_rows import ChatRow, rows_from_messages, with_error_row
from ui.models.message_list import MessageListModel
from ui.signals import emit
from ui.viewmodels.chat_attachments import ChatAttachments
from ui.viewmodels.chat_branches import ChatBranches
from ui.viewmodels.chat_context import ChatContextOps
from ui.viewmodels.chat_paging import ChatPaging
from ui.viewmodels.chat_state import ChatState, ModelChoice
from ui.viewmodels.chat_turn_end import PAGE, ChatTurnEnd
from ui.viewmodels.live_turn import LiveTurn
from ui.viewmodels.stream_end import StreamEnd
from ui.worker import AsyncWorker, StreamHandle

FLUSH_MS = 33
TURN_AFTER_FRAME_S = 0.016  # a turn's request is built (the whole path read, its context estimated) once the window
# has shown the turn starting: one frame later, not competing with it for the GIL
MEASURE_AFTER_MS = 80  # a page just shown is laid out and painted before the worker's estimate of its whole path
# (about 150 ms of Python for 10,000 messages) competes with it for the GIL


class ChatViewModel(ChatAttachments, ChatTurnEnd, ChatPaging, ChatContextOps, ChatBranches, QObject):
    """The chat screen's verbs; rows go to `model`, everything else to ChatState via state_changed."""

    state_changed = Signal(object)  # ChatState
    notice = Signal(str)  # a non-blocking message for the snackbar
    focus = Signal(str)  # a message id: the view scrolls to it and highlights it briefly (a search hit)
    text_ready = Signal(str, str)  # title, text: a long text to show in a reader (a tool's full output)
    session_changed = Signal(object)  # Session: title or totals changed, the sidebar refreshes
    text_returned = Signal(str)  # a message that was not sent (refused, or queued behind a failed turn)
    edit_requested = Signal(str)  # a message's text to edit in the composer
    open_requested = Signal(str)  # a session to open (a fork just made)
    file_ready = Signal(str)  # a stored attachment copied out under its name, to open in the system's viewer
    thumbnails_changed = Signal()

    def __init__(self, backend: ConversationBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend = backend
        self._worker = worker
        self.model = MessageListModel()
        self._state = ChatState()
        self._messages: list[Message] = []
        self._page: ConversationPage | None = None
        self._live: LiveTurn | None = None
        self._error_row: ChatRow | None = None
        self._handle: StreamHandle | None = None
        self._turns = 0
        self._loading_older = False
        self._stored_rows: list[ChatRow] = []
        self._stored_inputs: tuple[object, ...] = ()
        self._end = StreamEnd()
        self._turn_text: str | None = None
        self._turn_base = 0
        self._turn_error = False
        self._editing: str | None = None
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(self._sync_rows)
        self._shown = 0  # pages shown or left so far: only the newest page shown is measured (‹ › clicked repeatedly)

    @property
    def state(self) -> ChatState:
        """The current state."""
        return self._state

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)

    def _fail(self, error: Exception) -> None:
        self._loading_older = False
        self._set(loading=False, compacting=False, error=describe(error))
        emit(self.notice, describe(error))

    # --- header choices ----------------------------------------------------------------------------
    def set_choices(self, choices: Sequence[ModelChoice], agents: Sequence[Any], default: Selection | None) -> None:
        """Fills the provider/model and agent pickers; keeps the current selection when it is still offered."""
        selection = self._state.selection
        if selection is None or all(c.selection != selection for c in choices):
            selection = default if default is not None else (choices[0].selection if choices else None)
        agent_id = self._state.agent_id or (agents[0].id if agents else None)
        self._set(choices=tuple(choices), agents=tuple(agents), selection=selection, agent_id=agent_id)

    # --- opening -------------------------------------------------------------------------------
    def clear(self) -> None:
        """Shows no session (a new chat not yet sent)."""
        self._forget_turn()
        self._stop_stream()
        self._messages, self._page, self._live, self._error_row = [], None, None, None
        self.model.set_rows([])
        self._set(session=None, context=None, usage=None, error=None, summarized_count=0, has_older=False,
                  path_messages=None, has_newer=False,
                  show_originals=False, streaming=False, compacting=False, reasoning=None)

    def open(self, session_id: SessionId) -> None:
        """Loads a session's newest messages; older ones page in on demand."""
        state = self._state  # the session shown: opened again only from a window around a search hit (to its newest)
        if state.session is not None and state.session.id == session_id and not state.loading and not state.has_newer:
            return
        self._leave()
        self._worker.call(lambda: self._backend.load_conversation(session_id, PAGE), self._opened, self._fail)

    def _leave(self) -> None:
        self._forget_turn()
        self._stop_stream()
        self._live, self._error_row, self._editing = None, None, None
        self._shown += 1
        self._set(loading=True, error=None, show_originals=False)

    def reload(self) -> None:
        """Reloads the open session from storage (after a turn, a compaction or a reset)."""
        session = self._state.session
        if session is not None:
            self._worker.call(lambda: self._backend.load_conversation(session.id, PAGE), self._opened, self._fail)

    def _opened(self, page: ConversationPage) -> None:
        if self._state.has_newer:  # a window around a search hit replaced: the view starts anew (at the newest)
            self.model.set_rows([])
        self._page = page
        self._messages = list(page.messages)
        session = page.session
        selection = self._state.selection
        if session.current_provider_id and session.current_model_id:
            stored = Selection(session.current_provider_id, session.current_model_id)
            selection = stored
        self._set(
            session=session, loading=False, selection=selection, summarized_count=page.summarized_count,
            path_messages=page.total_count,
            has_older=page.has_older, has_newer=page.has_newer,
            agent_id=session.current_agent_id or self._state.agent_id,
            # a page read before the user's newest reasoning choice was stored must not undo that choice
            reasoning=self._state.reasoning if self._reasoning_unsaved else session.reasoning,
        )
        self._sync_rows()
        self._shown += 1
        shown = self._shown
        QTimer.singleShot(MEASURE_AFTER_MS, self, lambda: self.refresh_context() if shown == self._shown else None)

    def _sync_rows(self) -> None:
        page = self._page
        inputs = (id(page), len(self._messages), self._messages[-1] if self._messages else None,
                  self._messages[0] if self._messages else None, self._state.summarized_count,
                  self._state.show_originals, self._state.has_older, self._state.has_newer)
        if inputs != self._stored_inputs:  # rebuilt only when the stored messages or their view changed
            self._stored_rows = rows_from_messages(
                self._messages,
                boundary_seq=page.boundary_seq if page else None,
                summarized_count=self._state.summarized_count,
                show_originals=self._state.show_originals,
                has_older=self._state.has_older, has_newer=self._state.has_newer,
                siblings=page.siblings if page else None,
            )
            self._stored_inputs = inputs
        rows = list(self._stored_rows)
        error_retries = self._error_row is not None and self._error_row.retryable
        if rows and rows[-1].retryable and (self._live is not None or error_retries):
            rows[-1] = replace(rows[-1], retryable=False)  # a turn runs, or its error row offers Retry itself
        if self._live is not None:
            rows += self._live.rows
        elif self._error_row is not None:
            rows = with_error_row(rows, self._error_row)
        self.model.set_rows(rows)
        live_messages = self._live.message_count if self._live is not None else 0
        if live_messages != self._state.live_messages:  # the header counts what the running turn added
            self._set(live_messages=live_messages)

    # --- sending ---------------------------------------------------------------------------------
    def send(self, text: str) -> bool:
        """Sends a user message (creating the session first when needed); False when it cannot be sent now."""
        text = text.strip()
        state = self._state
        refused_or_queued = self._refused_or_queued(text)
        if refused_or_queued is not None:
            return refused_or_queued
        files = tuple(p.attachment for p in state.pending)
        if not (text or files) or not state.can_send or state.selection is None:
            return False
        if self._editing is not None:
            return self._send_edit(text)
        if state.has_newer:  # a window around a search hit: the turn follows the newest message, read in first
            return self._send_after_latest(text)
        selection = state.selection
        self._turn_files = state.pending  # back to the composer if the message is not stored
        self._start_turn(text, files)
        if state.session is None:
            agent, reasoning = state.agent_id, state.reasoning

            async def create() -> Session:  # with the reasoning level chosen before the first message
                session = await self._backend.create_session(agent, selection)
                return session if reasoning is None else await self._backend.set_reasoning(session.id, reasoning)

            def created(session: Any) -> None:
                self._set(session=session)
                emit(self.session_changed, session)
                self._page = ConversationPage(session=session, messages=(), total_count=0)
                self._run(lambda: self._backend.send(session.id, text, selection, files))
                self.refresh_context()  # runs after the message is stored: the gauge fills while the reply streams

            self._worker.call(create, created, self._turn_failed)
        else:
            session_id = state.session.id
            self._run(lambda: self._backend.send(session_id, text, selection, files))
        return True

    def retry(self) -> None:
        """Runs the failed turn again."""
        state = self._state
        if state.session is None or state.selection is None or state.streaming or self._reading_back:
            return
        if state.has_newer:  # the newest page first: the failed turn is at its end
            self._latest_then(self.retry)
            return
        session_id, selection = state.session.id, state.selection
        self._start_turn(None)
        self._run(lambda: self._backend.retry(session_id, selection))

    def stop(self) -> None:
        """Stops the streaming reply; what arrived so far is kept (stored as incomplete)."""
        if self._handle is not None:
            self._handle.cancel()

    def _start_turn(self, text: str | None, files: tuple[Attachment, ...] = ()) -> None:
        self._turns += 1
        self._live = LiveTurn(text, self._turns, attachments=files)
        self._begin_turn(text)
        self._error_row = None
        self._set(streaming=True, error=None, waiting=0, **({"pending": ()} if files else {}))
        self._sync_rows()

    def _run(self, make: Callable[[], AsyncIterator[ChatEvent]]) -> None:
        end = self._end = StreamEnd()
        self._handle = self._worker.stream(lambda: end.track(make()), self._on_event, self._turn_done,
                                           self._turn_failed, delay=TURN_AFTER_FRAME_S)

    def _on_event(self, event: ChatEvent) -> None:
        live = self._live
        if live is None or self._handle is None:  # the turn already ended (stopped): storage has the rest
            return
        if isinstance(event, Waiting):  # "Waiting for the provider… N s" until data arrives again
            self._set(waiting=event.seconds)
            return
        if self._state.waiting:
            self._set(waiting=0)
        if isinstance(event, TextDelta):
            live.add_text(event.text)
            if not self._flush.isActive():
                self._flush.start()
            return
        if isinstance(event, ThinkingDelta):
            live.add_thinking(event.text)  # an open Thinking section, closed when the reply starts
            if not self._flush.isActive():
                self._flush.start()
            return
        if isinstance(event, ToolCallStarted):
            live.tool_started(event)
        elif isinstance(event, ToolResultStored):
            live.tool_finished(event)
        elif isinstance(event, ResponseComplete):
            live.finish()
        elif isinstance(event, ChatError):
            self._error_row = live.failed(event)
            self._turn_error = True
            self._set(error=self._error_row.text)
        elif isinstance(event, ToolRoundLimitReached):
            self._error_row = live.round_limit(event)
        elif isinstance(event, CompactStarted):
            live.finish()
            self._set(compacting=True)
        elif isinstance(event, CompactCompleted):
            self._compacted(event)
        elif isinstance(event, ContextStatusChanged):
            self._set(context=event.status)
        elif isinstance(event, MemoryFlushed) and event.saved_count:
            emit(self.notice, f"Saved {event.saved_count} fact(s) to long-term memory before summarizing.")
        elif isinstance(event, Notice):
            emit(self.notice, notice_text(event))
        elif isinstance(event, TitleGenerated) and self._state.session is not None:
            session = replace(self._state.session, title=event.title)
            self._set(session=session)
            emit(self.session_changed, session)
        self._sync_rows()

    def _turn_done(self, cancelled: bool) -> None:
        if self._live is not None:
            self._live.finish(incomplete=cancelled)
        self._flush.stop()
        self._handle = None
        self._set(streaming=False, compacting=False)
        self._after_turn()

    def _turn_failed(self, error: Exception) -> None:
        message = describe(error)
        self._turn_error = True
        if self._live is None:
            self._live = LiveTurn(None, self._turns)
        self._error_row = self._live.failed(ChatError(
            kind=getattr(error, "kind", "error"), message=message, retryable=bool(getattr(error, "transient", False)),
            error=error if isinstance(error, PalimpsestError) else None,
        ))
        self._flush.stop()
        self._handle = None
        self._set(streaming=False, compacting=False, error=self._error_row.text)
        self._after_turn()

    def _stop_stream(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
