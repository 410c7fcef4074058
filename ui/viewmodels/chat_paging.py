"""The chat screen's reading verbs: opening at a search hit (a window around it far back), older and newer pages, the
jump to the newest, the originals behind the boundary, the newest reply's text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
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
    _loading_newer = False
    _shown: int
    model: MessageListModel
    notice: Any  # Signal(str)
    focus: Any  # Signal(str)
    text_returned: Any  # Signal(str)
    send: Callable[[str], bool]

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

    def _prepend(self, older_page: ConversationPage) -> None:
        self._loading_older = False
        older = older_page.messages
        known = {m.id for m in self._messages}
        self._messages[:0] = [m for m in older if m.id not in known]
        page = self._page
        if page is not None and older_page.siblings:  # their versions, for the ‹ n / m › switcher
            page = self._page = replace(page, siblings={**older_page.siblings, **page.siblings})
        total = page.total_count if page is not None else len(self._messages)
        below = page.newer_count if page is not None else 0  # a window's newer messages are not above it
        self._set(has_older=len(self._messages) + below < total and bool(older))
        self._sync_rows()

    def load_newer(self) -> None:
        """Appends the next page of messages below a window around a search hit (scrolling down it)."""
        session = self._state.session
        if session is None or not self._messages or self._loading_newer or not self._state.has_newer:
            return
        last, shown = self._messages[-1].seq, self._shown
        self._loading_newer = True

        def failed(error: Exception) -> None:
            self._loading_newer = False
            self._fail(error)

        self._worker.call(lambda: self._backend.load_newer(session.id, last, PAGE),
                          lambda page: self._append(page, shown), failed)

    def _append(self, newer: ConversationPage, shown: int) -> None:
        self._loading_newer = False
        if shown != self._shown or self._page is None or not self._state.has_newer:
            return  # another page opened (or the newest one) meanwhile: this one is stale
        known = {m.id for m in self._messages}
        self._messages += [m for m in newer.messages if m.id not in known]
        self._page = replace(self._page, siblings={**self._page.siblings, **newer.siblings},
                             total_count=newer.total_count, newer_count=newer.newer_count,
                             newest_reply=newer.newest_reply)
        self._set(has_newer=newer.has_newer, path_messages=newer.total_count)
        self._sync_rows()

    def jump_to_latest(self) -> None:
        """Replaces a window around a search hit with the conversation's newest page (the view shows its bottom)."""
        self._latest_then(lambda: None)

    def _send_after_latest(self, text: str) -> bool:
        """Sends once the newest page replaced a window around a search hit; the text goes back to the composer when
        it cannot be sent then."""
        def give_back() -> None:
            emit(self.text_returned, text)

        def resend() -> None:
            if not self.send(text):
                give_back()

        return self._latest_then(resend, give_back)

    def _latest_then(self, then: Callable[[], object], lost: Callable[[], object] | None = None) -> bool:
        """Runs `then` with the newest page shown: at once when it is, else once it is read; `lost` instead when the
        read fails or another session opened meanwhile. True: one of them runs or will."""
        session = self._state.session
        if session is None or not self._state.has_newer:
            then()
            return True
        shown = self._shown
        self._set(loading=True)

        def loaded(page: ConversationPage) -> None:
            if shown != self._shown:
                if lost is not None:
                    lost()
                return
            self._opened(page)
            then()

        def failed(error: Exception) -> None:
            self._fail(error)
            if lost is not None:
                lost()

        self._worker.call(lambda: self._backend.load_conversation(session.id, PAGE), loaded, failed)
        return True

    def set_show_originals(self, show: bool) -> None:
        """Shows (dimmed) or hides the original messages behind the compaction boundary; hiding them under a window
        behind the boundary (nothing of it left to show) goes to the newest page."""
        self._set(show_originals=show)
        self._sync_rows()
        page = self._page
        last = self._messages[-1].seq if self._messages else None
        if not show and self._state.has_newer and page is not None and page.boundary_seq is not None and (
                last is not None and last < page.boundary_seq):
            self.jump_to_latest()

    def last_reply(self) -> str | None:
        """The text of the newest assistant reply (for Ctrl+Shift+C): the conversation's, also under a window around a
        search hit whose rows do not reach it."""
        if self._state.has_newer:
            return self._page.newest_reply if self._page is not None else None
        for row in reversed(self.model.rows()):
            if row.kind is RowKind.ASSISTANT and row.text:
                return row.text
        return None
