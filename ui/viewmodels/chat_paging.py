"""The chat screen's reading verbs: opening at a search hit (a window around it far back), older and newer pages, the
jump to the newest, the originals behind the boundary, the newest reply's text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from domain.models import MessageId, SessionId
from domain.usecases.open_at_message import HitPage
from ui.backend import ConversationPage
from ui.models.chat_rows import RowKind
from ui.signals import emit
from ui.state.chat_events import NewerPaged, OlderPaged, OpenStarted, OriginalsShown

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel

PAGE = 120


class PagingController:
    """Pages the conversation in around what shows; one older and one newer page at most in flight."""

    def __init__(self, vm: ChatViewModel) -> None:
        self._vm = vm
        self._loading_older = False
        self._loading_newer = False

    def reset(self) -> None:
        """A read failed: the next page may be asked for again."""
        self._loading_older = False

    def open_at(self, session_id: SessionId, message_id: MessageId) -> None:
        """Opens a session paged back to a message (a search hit) and asks the view to show it: its branch is
        checked out first when it is on another one, the originals are shown when it is behind the boundary."""
        vm = self._vm
        vm.leave()
        vm.worker.call(lambda: vm.backend.open_at(session_id, message_id, PAGE), self._opened_at, vm.fail)

    def _opened_at(self, hit: HitPage) -> None:
        vm = self._vm
        vm._opened(hit.page)
        if hit.behind_boundary:
            self.set_show_originals(True)
        if hit.switched_branch:
            emit(vm.notice, "Switched to the branch the match is on (the conversation now continues there).")
        emit(vm.focus, hit.message_id)

    def load_older(self) -> None:
        """Prepends the previous page of messages."""
        vm = self._vm
        session = vm.state.session
        if session is None or not vm.rows.messages or self._loading_older:
            return
        first = vm.rows.messages[0].seq
        self._loading_older = True
        vm.worker.call(lambda: vm.backend.load_older(session.id, first, PAGE), self._prepend, vm.fail)

    def _prepend(self, older_page: ConversationPage) -> None:
        vm, rows = self._vm, self._vm.rows
        self._loading_older = False
        older = older_page.messages
        known = {m.id for m in rows.messages}
        rows.messages[:0] = [m for m in older if m.id not in known]
        page = rows.page
        if page is not None and older_page.siblings:  # their versions, for the ‹ n / m › switcher
            page = rows.page = replace(page, siblings={**older_page.siblings, **page.siblings})
        total = page.total_count if page is not None else len(rows.messages)
        below = page.newer_count if page is not None else 0  # a window's newer messages are not above it
        vm.dispatch(OlderPaged(len(rows.messages) + below < total and bool(older)))
        vm.sync_rows()

    def load_newer(self) -> None:
        """Appends the next page of messages below a window around a search hit (scrolling down it)."""
        vm = self._vm
        session = vm.state.session
        if session is None or not vm.rows.messages or self._loading_newer or not vm.state.has_newer:
            return
        last, shown = vm.rows.messages[-1].seq, vm.shown
        self._loading_newer = True

        def failed(error: Exception) -> None:
            self._loading_newer = False
            vm.fail(error)

        vm.worker.call(lambda: vm.backend.load_newer(session.id, last, PAGE),
                       lambda page: self._append(page, shown), failed)

    def _append(self, newer: ConversationPage, shown: int) -> None:
        vm, rows = self._vm, self._vm.rows
        self._loading_newer = False
        if shown != vm.shown or rows.page is None or not vm.state.has_newer:
            return  # another page opened (or the newest one) meanwhile: this one is stale
        known = {m.id for m in rows.messages}
        rows.messages += [m for m in newer.messages if m.id not in known]
        rows.page = replace(rows.page, siblings={**rows.page.siblings, **newer.siblings},
                            total_count=newer.total_count, newer_count=newer.newer_count,
                            newest_reply=newer.newest_reply)
        vm.dispatch(NewerPaged(newer.has_newer, newer.total_count))
        vm.sync_rows()

    def jump_to_latest(self) -> None:
        """Replaces a window around a search hit with the conversation's newest page (the view shows its bottom)."""
        self.latest_then(lambda: None)

    def send_after_latest(self, text: str) -> bool:
        """Sends once the newest page replaced a window around a search hit; the text goes back to the composer when
        it cannot be sent then."""
        vm = self._vm

        def give_back() -> None:
            vm.give_back(text)

        def resend() -> None:  # a new message, even if an edit began meanwhile
            if not vm.turns.send_as(text, None):
                give_back()

        return self.latest_then(resend, give_back)

    def latest_then(self, then: Callable[[], object], lost: Callable[[], object] | None = None) -> bool:
        """Runs `then` with the newest page shown: at once when it is, else once it is read; `lost` instead when the
        read fails or another session opened meanwhile. True: one of them runs or will."""
        vm = self._vm
        session = vm.state.session
        if session is None or not vm.state.has_newer:
            then()
            return True
        shown = vm.shown
        vm.dispatch(OpenStarted(leave=False))

        def loaded(page: ConversationPage) -> None:
            if shown != vm.shown:
                if lost is not None:
                    lost()
                return
            vm._opened(page)
            then()

        def failed(error: Exception) -> None:
            vm.fail(error)
            if lost is not None:
                lost()

        vm.worker.call(lambda: vm.backend.load_conversation(session.id, PAGE), loaded, failed)
        return True

    def set_show_originals(self, show: bool) -> None:
        """Shows (dimmed) or hides the original messages behind the compaction boundary; hiding them under a window
        behind the boundary (nothing of it left to show) goes to the newest page."""
        vm = self._vm
        vm.dispatch(OriginalsShown(show))
        vm.sync_rows()
        page, messages = vm.rows.page, vm.rows.messages
        last = messages[-1].seq if messages else None
        if not show and vm.state.has_newer and page is not None and page.boundary_seq is not None and (
                last is not None and last < page.boundary_seq):
            self.jump_to_latest()

    def last_reply(self) -> str | None:
        """The text of the newest assistant reply (for Ctrl+Shift+C): the conversation's, also under a window around a
        search hit whose rows do not reach it."""
        vm = self._vm
        if vm.state.has_newer:
            return vm.rows.page.newest_reply if vm.rows.page is not None else None
        for row in reversed(vm.model.rows()):
            if row.kind is RowKind.ASSISTANT and row.text:
                return row.text
        return None
