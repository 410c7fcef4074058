"""The chat screen's turn: send (creating the session first when needed), retry, stop, the stream's events into live
rows and reducer events, and the read-back of the stored messages once the stream ended."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer

from domain.attachment import Attachment
from domain.errors import PalimpsestError
from domain.events import (
    ChatError,
    ChatEvent,
    TextDelta,
    ThinkingDelta,
    Waiting,
)
from domain.models import MessageType, Session
from ui.attachments_backend import AttachmentPreview
from ui.backend import ConversationPage
from ui.error_text import describe
from ui.signals import emit
from ui.state.chat_events import (
    PendingChanged,
    ProviderWaiting,
    ReadBackDone,
    SessionUpdated,
    StopRequested,
    StreamActive,
    StreamEnded,
    TurnStarted,
)
from ui.state.chat_state import Edit, Failed, ReadingBack, Stopping, Streaming
from ui.viewmodels.chat_paging import PAGE
from ui.viewmodels.live_turn import LiveTurn
from ui.viewmodels.stream_end import StreamEnd
from ui.viewmodels.turn_events import show_event
from ui.worker import StreamHandle

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel

FLUSH_MS = 33
TURN_AFTER_FRAME_S = 0.016  # a turn's request is built (the whole path read, its context estimated) once the window
# has shown the turn starting: one frame later, not competing with it for the GIL


class TurnController:
    """Runs one turn at a time; what it shows goes to the transcript's live rows and to the reducer."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm
        self._handle: StreamHandle | None = None
        self._end = StreamEnd()
        self._turns = 0
        self._text: str | None = None  # the message the running turn sends (None: a retry)
        self._edit: Edit | None = None  # the edit it was sent from (back to the composer as one if not stored)
        self._base = 0  # the newest stored seq when the turn began: a user message above it was stored
        self._files: tuple[AttachmentPreview, ...] = ()  # back to the composer if the message is not stored
        self._reading = 0  # the read-back under way (0: none): a later turn or page makes it stale
        self._stream = 0  # the stream running: the end of one left behind (another page opened) is not this one's
        self._flush = QTimer(vm)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(vm.sync_rows)

    @property
    def number(self) -> int:
        """Turns started so far (keys of live rows)."""
        return self._turns

    def send(self, text: str) -> bool:
        """Sends the composer's text: a new version of the message being edited, else a new message; False when it
        cannot be sent now (queued ones return True)."""
        return self.send_as(text, self._vm.state.composer.edit)

    def send_as(self, text: str, edit: Edit | None) -> bool:
        """Sends `text` as a new version of the message `edit` edits, or (None) as a new message."""
        vm = self._vm
        text = text.strip()
        refused_or_queued = vm.queue.refused_or_queued(text, self._turns, edit)
        if refused_or_queued is not None:
            return refused_or_queued
        state = vm.state
        files = tuple(p.attachment for p in state.pending)
        if not (text or files) or not state.can_send or not state.can_start_turn or state.selection is None:
            return False
        if edit is not None:
            return vm.branches.send_edit(edit, text)
        if state.has_newer:  # a window around a search hit: the turn follows the newest message, read in first
            return vm.paging.send_after_latest(text)
        selection, session = state.selection, state.session
        self._files = state.pending
        self.start(text, files)
        if session is None:
            agent, reasoning, web = state.agent_id, state.reasoning, state.header.web_search

            async def create() -> Session:  # with the reasoning level and web search chosen before the first message
                created = await vm.backend.create_session(agent, selection)
                if web is not None:
                    created = await vm.backend.set_web_search(created.id, web)
                return created if reasoning is None else await vm.backend.set_reasoning(created.id, reasoning)

            def created(new: Any) -> None:
                vm.dispatch(SessionUpdated(new))
                emit(vm.session_changed, new)
                vm.rows.page = ConversationPage(session=new, messages=(), total_count=0)
                self.run(lambda: vm.backend.send(new.id, text, selection, files))
                vm.refresh_context()  # runs after the message is stored: the gauge fills while the reply streams

            vm.worker.call(create, created, self._stream_failed)
        else:
            session_id = session.id
            self.run(lambda: vm.backend.send(session_id, text, selection, files))
        return True

    def retry(self) -> None:
        """Runs the failed turn again."""
        vm, state = self._vm, self._vm.state
        if state.session is None or state.selection is None or not state.can_start_turn:
            return
        if state.has_newer:  # the newest page first: the failed turn is at its end
            vm.paging.latest_then(self.retry)
            return
        session_id, selection = state.session.id, state.selection
        self.start(None)
        self.run(lambda: vm.backend.retry(session_id, selection))

    def stop(self) -> None:
        """Stops the streaming reply; what arrived so far is kept (stored as incomplete)."""
        if self._handle is not None:
            self._vm.dispatch(StopRequested())
            self._handle.cancel()

    def leave(self) -> None:
        """Another page opens: the running turn goes on in storage only; a queued message returns to the composer."""
        self._text, self._edit, self._reading = None, None, 0
        self._stream += 1
        self._vm.queue.cancel()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._flush.stop()

    def start(self, text: str | None, files: tuple[Attachment, ...] = (), *, edit: Edit | None = None,
              base: int | None = None) -> None:
        """Shows the turn starting (the user's message and the pending reply) before its request is built. `base`:
        the newest stored seq before the turn (default: the newest shown); a user message stored above it is the
        turn's."""
        vm = self._vm
        self._turns += 1
        vm.rows.live = LiveTurn(text, self._turns, attachments=files)
        vm.rows.error_row = None
        self._text, self._edit, self._reading = text, edit, 0
        self._base = (vm.rows.newest_seq if base is None else base) if vm.state.session is not None else 0
        vm.dispatch(TurnStarted(files_sent=bool(files)))
        vm.sync_rows()

    def run(self, make: Callable[[], AsyncIterator[ChatEvent]]) -> None:
        """Streams the turn's events on the worker (one frame after the turn showed)."""
        end = self._end = StreamEnd()
        self._stream += 1
        stream = self._stream

        def event(item: ChatEvent) -> None:
            if stream == self._stream:
                self._on_event(item)

        def done(cancelled: bool) -> None:
            if stream == self._stream:
                self._stream_done(cancelled)

        def failed(error: Exception) -> None:
            if stream == self._stream:
                self._stream_failed(error)

        self._handle = self._vm.worker.stream(lambda: end.track(make()), event, done, failed,
                                              delay=TURN_AFTER_FRAME_S)

    def _on_event(self, event: ChatEvent) -> None:
        vm, live = self._vm, self._vm.rows.live
        turn = vm.state.current_turn
        if live is None or self._handle is None or isinstance(turn, Stopping):
            return  # the turn already ended or was stopped: storage has the rest
        if isinstance(event, Waiting):  # "Waiting for the provider… N s" until data arrives again
            vm.dispatch(ProviderWaiting(event.seconds))
            return
        if turn != Streaming():  # the reply is under way (most events find it so already: no reducer call)
            vm.dispatch(StreamActive())
        if isinstance(event, TextDelta | ThinkingDelta):
            (live.add_text if isinstance(event, TextDelta) else live.add_thinking)(event.text)
            if not self._flush.isActive():
                self._flush.start()
            return
        show_event(self._vm, event, live)
        vm.sync_rows()

    def _stream_done(self, cancelled: bool) -> None:
        vm = self._vm
        if vm.rows.live is not None:
            vm.rows.live.finish(incomplete=cancelled)
        self._flush.stop()
        self._handle = None
        vm.dispatch(StreamEnded())
        self._after()

    def _stream_failed(self, error: Exception) -> None:
        vm = self._vm
        stopped = isinstance(vm.state.current_turn, Stopping)
        if vm.rows.live is None:
            vm.rows.live = LiveTurn(None, self._turns)
        if not stopped:  # what a stopped stream still raises is not shown
            vm.rows.error_row = vm.rows.live.failed(ChatError(
                kind=getattr(error, "kind", "error"), message=describe(error),
                retryable=bool(getattr(error, "transient", False)),
                error=error if isinstance(error, PalimpsestError) else None))
        else:
            vm.rows.live.finish(incomplete=True)
        self._flush.stop()
        self._handle = None
        vm.dispatch(StreamEnded(vm.rows.error_row.text if vm.rows.error_row is not None and not stopped else None))
        self._after()

    def _after(self) -> None:
        """The finished live rows stay until the stored ones are read back (none: no session was created)."""
        vm = self._vm
        vm.sync_rows()  # the finished live rows (a stopped reply marked incomplete) stay until the read-back
        session, end = vm.state.session, self._end
        if session is None or not isinstance(vm.state.current_turn, ReadingBack):
            vm.rows.live = None
            vm.sync_rows()
            self._ended(stored=False, failed=self._turn_failed())
            return
        reading = self._reading = self._turns

        async def read_back() -> ConversationPage:
            await end.settled()  # a stopped turn is still storing its partial reply: read it back once it has
            return await vm.backend.load_conversation(session.id, PAGE)

        def current() -> bool:  # still the same session and turn (not left for another one meanwhile)
            return self._reading == reading and vm.state.session is not None and vm.state.session.id == session.id

        def loaded(page: ConversationPage) -> None:
            if not current():
                return
            self._reading = 0
            vm.rows.live = None  # the stored rows replace the live ones in one update: no gap
            vm._opened(page)
            vm.dispatch(ReadBackDone())
            emit(vm.session_changed, page.session)
            base = self._base
            self._ended(stored=any(m.type is MessageType.USER and m.seq > base for m in page.messages),
                        failed=self._turn_failed())

        def failed(error: Exception) -> None:
            if current():
                self._reading = 0
                vm.dispatch(ReadBackDone())
                failed_turn = self._turn_failed()
                vm.fail(error)
                self._ended(stored=True, failed=failed_turn)  # unknown: assume it was stored, not offer it twice

        vm.worker.call(read_back, loaded, failed)

    def _turn_failed(self) -> bool:
        """Whether the turn that ended failed (its error shows; a message queued unseen is then not sent)."""
        turn = self._vm.state.current_turn
        return isinstance(turn, Failed) or (isinstance(turn, ReadingBack) and turn.error is not None)

    def _ended(self, *, stored: bool, failed: bool) -> None:
        text, self._text = self._text, None
        edit, self._edit = self._edit, None
        files, self._files = self._files, ()
        unsent = text is not None and not stored
        if unsent and files:  # its files go back to the composer too: nothing is lost
            self._vm.dispatch(PendingChanged((*files, *self._vm.state.pending)))
        self._vm.queue.turn_ended(failed=failed, unsent=text if unsent else None, unsent_edit=edit)
