"""The chat screen's reading verbs: opening at a search hit, older pages, the originals behind the boundary, the newest
reply's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.models import Message, MessageId, SessionId
from domain.usecases.open_at_message import HitPage
from ui.backend import ConversationBackend, ConversationPage
from ui.models.chat_rows import RowKind
from ui.models.message_list import MessageListModel
from ui.signals import emit
from ui.viewmodels.chat_state import ChatState
from ui.viewmodels.chat_turn_end import PAGE
from ui.worker import AsyncWorker


class ChatPaging:
    """Mixed into ChatViewModel; relies on its state, worker, backend and rows."""

    _backend: ConversationBackend
    _worker: AsyncWorker
    _state: ChatState
    _messages: list[Message]
    _page: ConversationPage | None
    _loading_older: bool
    model: MessageListModel
    notice: Any  # Signal(str)
    focus: Any  # Signal(str)

    def _leave(self) -> None:
        raise NotImplementedError

    def _opened(self, page: ConversationPage) -> None:
        raise NotImplementedError

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    def _fail(self, error: Exception) -> None:
        raise NotImplementedError

    def _sync_rows(self) -> None:
        raise NotImplementedError

    def open_at(self, session_id: SessionId, message_id: MessageId) -> None:
        """Opens a session paged back to a message (a search hit) and asks the view to show it: its branch is
        checked out first when it is on another one, the originals are shown when it is behind the boundary."""
        self._leave()
        self._worker.call(lambda: self._backend.open_at(session_id, message_id, PAGE), self._opened_at, self._fail)

    def _opened_at(self, hit: HitPage) -> None:
        self._opened(hit.page)
        if hit.behind_boundary:
            self.set_show_originals(True)
        if hit.switched_branch:
            emit(self.notice, "Switched to the branch the match is on (the conversation now continues there).")
        emit(self.focus, hit.message_id)

    def load_older(self) -> None:
        """Prepends the previous page of messages."""
        session = self._state.session
        if session is None or not self._messages or self._loading_older:
            return
        first = self._messages[0].seq
        self._loading_older = True
        self._worker.call(lambda: self._backend.load_older(session.id, first, PAGE), self._prepend, self._fail)

    def _prepend(self, older: Sequence[Message]) -> None:
        self._loading_older = False
        known = {m.id for m in self._messages}
        self._messages[:0] = [m for m in older if m.id not in known]
        total = self._page.total_count if self._page is not None else len(self._messages)
        self._set(has_older=len(self._messages) < total and bool(older))
        self._sync_rows()

    def set_show_originals(self, show: bool) -> None:
        """Shows (dimmed) or hides the original messages behind the compaction boundary."""
        self._set(show_originals=show)
        self._sync_rows()

    def last_reply(self) -> str | None:
        """The text of the newest assistant reply (for Ctrl+Shift+C)."""
        for row in reversed(self.model.rows()):
            if row.kind is RowKind.ASSISTANT and row.text:
                return row.text
        return None
