"""Drives the sessions sidebar: newest first, full-text search, new / rename / archive / delete with undo."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from domain.errors import InvalidInput
from domain.models import Session, SessionId
from domain.ports import SessionSearchHit
from ui.backend import SessionsBackend
from ui.error_text import describe
from ui.signals import emit
from ui.worker import AsyncWorker


@dataclass(frozen=True)
class SessionsState:
    """The sidebar: sessions newest first, or search hits while a query is set."""

    sessions: tuple[Session, ...] = ()
    query: str = ""
    hits: tuple[SessionSearchHit, ...] | None = None
    selected_id: SessionId | None = None
    deleted: Session | None = None  # the last deleted session, while Undo is offered
    show_archived: bool = False  # the list shows the archived sessions instead of the others
    loading: bool = False
    error: str | None = None

    @property
    def listed(self) -> tuple[Session, ...]:
        """The sessions the sidebar lists: an empty one (its first message was refused, or never sent) only while
        it is the open one, so failed first messages do not leave a trail of empty chats."""
        return tuple(s for s in self.sessions if s.message_count > 0 or s.id == self.selected_id)

    @property
    def listed_hits(self) -> tuple[SessionSearchHit, ...] | None:
        """The search hits, without the empty sessions the list hides (a title like "New chat" can match)."""
        if self.hits is None:
            return None
        hidden = {s.id for s in self.sessions if s.message_count == 0 and s.id != self.selected_id}
        return tuple(h for h in self.hits if h.session_id not in hidden)


class SessionsViewModel(QObject):
    """The sidebar's verbs; emits SessionsState whole, and `opened` when the user picks a session."""

    state_changed = Signal(object)  # SessionsState
    opened = Signal(object)  # SessionId | None (None: a new, unsaved chat)
    opened_at = Signal(str, str)  # session id, message id: a search hit opens its conversation at the match

    def __init__(self, backend: SessionsBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend = backend
        self._worker = worker
        self._state = SessionsState()
        self._search_serial = 0

    @property
    def state(self) -> SessionsState:
        """The current state."""
        return self._state

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)

    def _fail(self, error: Exception) -> None:
        self._set(loading=False, error=describe(error))

    def refresh(self) -> None:
        """Reloads the list (and re-runs the search, if any)."""
        self._set(loading=True)
        archived = self._state.show_archived
        self._worker.call(lambda: self._backend.list_sessions(archived), self._listed, self._fail)
        if self._state.query:
            self.search(self._state.query)

    def _listed(self, sessions: Sequence[Session]) -> None:
        self._set(sessions=tuple(sessions), loading=False, error=None)

    def search(self, query: str) -> None:
        """Full-text search over messages and summaries; an empty query shows every session again."""
        query = query.strip()
        self._search_serial += 1
        serial = self._search_serial
        if not query:
            self._set(query="", hits=None)
            return
        self._set(query=query)

        def found(hits: Sequence[SessionSearchHit]) -> None:
            if serial == self._search_serial:  # a newer query wins over a slower older one
                self._set(hits=tuple(hits), error=None)

        self._worker.call(lambda: self._backend.search_sessions(query), found, self._fail)

    def select(self, session_id: SessionId) -> None:
        """Opens a session."""
        self._set(selected_id=session_id)
        emit(self.opened, session_id)

    def open_hit(self, hit: SessionSearchHit) -> None:
        """Opens a search hit's session at the matching message (a title or summary match: at its end)."""
        if hit.message_id is None:
            self.select(hit.session_id)
            return
        self._set(selected_id=hit.session_id)
        emit(self.opened_at, hit.session_id, hit.message_id)

    def set_show_archived(self, show: bool) -> None:
        """Lists the archived sessions (True) or the others (False)."""
        if show != self._state.show_archived:
            self._set(show_archived=show, sessions=())
            self.refresh()

    def archive(self, session_id: SessionId, archived: bool = True) -> None:
        """Archives (or unarchives) a session: it leaves the list shown now and stays searchable."""

        def done(_: Session) -> None:
            hits = self._state.hits
            if hits is not None:  # a search hit says whether its session is archived
                hits = tuple(replace(h, archived=archived) if h.session_id == session_id else h for h in hits)
            self._set(sessions=tuple(s for s in self._state.sessions if s.id != session_id), hits=hits, error=None)
            if archived == self._state.show_archived:  # it belongs to the list shown now (unarchived from a hit)
                self._worker.call(lambda: self._backend.list_sessions(archived), self._listed, self._fail)

        self._worker.call(lambda: self._backend.archive_session(session_id, archived), done, self._fail)

    def new_chat(self) -> None:
        """Starts a new chat; the session is stored when its first message is sent."""
        self._set(selected_id=None)
        emit(self.opened, None)

    def upsert(self, session: Session) -> None:
        """Shows a created or changed session (new title, new message) at the top (not in the other list: an
        archived one goes on in the archived list only)."""
        others = tuple(s for s in self._state.sessions if s.id != session.id)
        if session.is_active == self._state.show_archived:
            self._set(sessions=others, selected_id=self._state.selected_id or session.id)
            return
        self._set(sessions=(session, *others), selected_id=self._state.selected_id or session.id)

    def rename(self, session_id: SessionId, title: str) -> None:
        """Renames a session; a blank title is refused with a message."""
        title = title.strip()
        if not title:
            self._fail(InvalidInput("A session title cannot be empty."))
            return
        self._worker.call(lambda: self._backend.rename_session(session_id, title), self._renamed, self._fail)

    def _renamed(self, session: Session) -> None:
        self._set(sessions=tuple(session if s.id == session.id else s for s in self._state.sessions), error=None)

    def delete(self, session_id: SessionId) -> None:
        """Deletes a session (soft: Undo brings it back)."""
        victim = next((s for s in self._state.sessions if s.id == session_id), None)
        if victim is None:
            return

        def deleted(_: None) -> None:
            remaining = tuple(s for s in self._state.sessions if s.id != session_id)
            hits = self._state.hits
            if hits is not None:
                hits = tuple(h for h in hits if h.session_id != session_id)
            was_open = self._state.selected_id == session_id
            self._set(sessions=remaining, hits=hits, deleted=victim,
                      selected_id=None if was_open else self._state.selected_id)
            if was_open:
                emit(self.opened, None)

        self._worker.call(lambda: self._backend.delete_session(session_id), deleted, self._fail)

    def undo_delete(self) -> None:
        """Restores the last deleted session."""
        victim = self._state.deleted
        if victim is None:
            return

        def restored(_: None) -> None:
            self._set(deleted=None)
            self.refresh()

        self._worker.call(lambda: self._backend.restore_session(victim.id), restored, self._fail)

    def forget_undo(self) -> None:
        """Stops offering Undo for the last delete."""
        if self._state.deleted is not None:
            self._set(deleted=None)
