"""The chat screen's branch verbs: switch to another version of a message, edit a message, regenerate a reply."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from domain.events import ChatEvent
from domain.models import Message, MessageType
from ui.backend import ConversationBackend, ConversationPage
from ui.signals import emit
from ui.viewmodels.chat_state import ChatState
from ui.worker import AsyncWorker

EDITING_NOTICE = "Editing your message: Send makes it a new branch (the old one stays, ‹ › switches)."


class ChatBranches:
    """Mixed into ChatViewModel; relies on its state, worker, backend, messages and turn machinery."""

    _backend: ConversationBackend
    _worker: AsyncWorker
    _state: ChatState
    _messages: list[Message]
    _page: ConversationPage | None
    _editing: str | None
    notice: Any
    edit_requested: Any
    open_requested: Any
    session_changed: Any

    def _fail(self, error: Exception) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def _sync_rows(self) -> None:
        raise NotImplementedError

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    def _latest_then(self, then: Callable[[], object], lost: Callable[[], object] | None = None) -> bool:
        raise NotImplementedError

    def _start_turn(self, text: str | None) -> None:
        raise NotImplementedError

    def _run(self, make: Callable[[], AsyncIterator[ChatEvent]]) -> None:
        raise NotImplementedError

    def _idle(self) -> bool:
        state = self._state
        return state.session is not None and state.selection is not None and not state.streaming

    def switch_branch(self, message_id: str) -> None:
        """Shows the branch through another version of a message (its newest leaf)."""
        session = self._state.session
        if session is None or not self._idle():
            return
        self._worker.call(lambda: self._backend.checkout(session.id, message_id), lambda _s: self.reload(),
                          self._fail)

    def fork(self, message_id: str) -> None:
        """Copies the path up to a message into a new session and opens it."""
        session = self._state.session
        if session is None:
            return

        def forked(new: Any) -> None:
            emit(self.session_changed, new)
            emit(self.open_requested, new.id)
            emit(self.notice, f"Forked into “{new.title}”.")

        self._worker.call(lambda: self._backend.fork_session(session.id, message_id), forked, self._fail)

    def delete_branch(self, message_id: str) -> None:
        """Deletes the branch through a message (its own part); the conversation moves to the newest other one."""
        session = self._state.session
        if session is None or not self._idle():
            return
        self._worker.call(lambda: self._backend.delete_branch(session.id, message_id), lambda _n: self.reload(),
                          self._fail)

    def start_edit(self, message_id: str, text: str) -> None:
        """Puts a message's text in the composer; the next Send sends it as a new version of that message."""
        if not self._idle():
            return
        self._editing = message_id
        emit(self.edit_requested, text)
        emit(self.notice, EDITING_NOTICE)

    def cancel_edit(self) -> None:
        """The next Send is an ordinary message again."""
        self._editing = None

    def edit_last(self) -> bool:
        """Starts editing the newest user message shown (the Up key in an empty composer); False when none."""
        if self._state.has_newer and self._idle():  # a window around a search hit: the newest one is further down
            return self._latest_then(self.edit_last)
        last = next((m for m in reversed(self._messages) if m.type is MessageType.USER), None)
        if last is None or not self._idle():
            return False
        self.start_edit(last.id, last.content)
        return True

    def _send_edit(self, text: str) -> bool:
        state, message_id = self._state, self._editing
        self._editing = None
        if state.session is None or state.selection is None or message_id is None or not text.strip():
            return False
        session_id, selection = state.session.id, state.selection
        self._cut_before(message_id, keep_it=False)
        self._start_turn(text)
        self._run(lambda: self._backend.edit(session_id, message_id, text, selection))
        return True

    def regenerate(self, message_id: str) -> None:
        """Answers again the user message a reply answered (with the model now chosen); the old reply stays."""
        state = self._state
        if state.session is None or state.selection is None or not self._idle():
            return
        session_id, selection = state.session.id, state.selection
        at = next((i for i, m in enumerate(self._messages) if m.id == message_id), None)
        if at is not None:
            asked = next((m for m in reversed(self._messages[:at]) if m.type is MessageType.USER), None)
            if asked is not None:
                self._cut_before(asked.id, keep_it=True)
        self._start_turn(None)
        self._run(lambda: self._backend.regenerate(session_id, message_id, selection))

    def _cut_before(self, message_id: str, *, keep_it: bool) -> None:
        """The shown messages end before (or with) a message while the new branch streams in."""
        at = next((i for i, m in enumerate(self._messages) if m.id == message_id), None)
        if at is not None:
            kept = at + 1 if keep_it else at
            below = self._page.newer_count if self._page is not None and self._state.has_newer else 0
            cut = len(self._messages) - kept + below  # off the new path, shown or further down a window
            self._messages = self._messages[:kept]
            path = self._state.path_messages
            # the new branch ends here: what followed (in a window too) is on the old one; the header counts the path
            self._set(has_newer=False, path_messages=None if path is None else max(0, path - cut))
