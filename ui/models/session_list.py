"""The sidebar's item model: sessions newest first, or search hits with their snippets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from domain.models import Session
from domain.ports import MATCH_CLOSE, MATCH_OPEN, SessionSearchHit

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SUBTITLE_ROLE = Qt.ItemDataRole.UserRole + 2
WHEN_ROLE = Qt.ItemDataRole.UserRole + 3
MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 4  # a search hit's matching message id (None: title or summary)

Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class SessionRow:
    """One sidebar entry."""

    session_id: str
    title: str
    subtitle: str
    when: str
    message_id: str | None = None


def relative_time(moment: datetime | None, now: datetime | None = None) -> str:
    """'just now', '5 min', '3 h', 'yesterday', '12 Mar'."""
    if moment is None:
        return ""
    now = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86_400:
        return f"{int(seconds // 3600)} h"
    if seconds < 2 * 86_400:
        return "yesterday"
    return moment.strftime("%d %b")


def plain_preview(text: str | None) -> str:
    """A one-line preview without Markdown punctuation."""
    text = re.sub(r"```[\w+-]*", " ", text or "")
    text = re.sub(r"[*`#>]+", "", text)
    return re.sub(r"\s+", " ", text).strip()[:120]


def rows_for(sessions: Sequence[Session], hits: Sequence[SessionSearchHit] | None) -> list[SessionRow]:
    """Rows for the sidebar: hits when searching, else sessions."""
    if hits is not None:
        return [SessionRow(h.session_id, h.title or "Untitled", h.snippet, "archived" if h.archived else "",
                           h.message_id) for h in hits]
    return [
        SessionRow(s.id, s.title or "New chat", plain_preview(s.last_message_preview),
                   relative_time(s.updated_at))
        for s in sessions
    ]


class SessionListModel(QAbstractListModel):
    """Sidebar rows; reset on every change (the list is short and cheap)."""

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[SessionRow] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.title
        if role == Qt.ItemDataRole.ToolTipRole:
            return (row.subtitle or row.title).replace(MATCH_OPEN, "").replace(MATCH_CLOSE, "")
        if role == ID_ROLE:
            return row.session_id
        if role == SUBTITLE_ROLE:
            return row.subtitle
        if role == WHEN_ROLE:
            return row.when
        if role == MESSAGE_ROLE:
            return row.message_id
        return None

    def set_rows(self, rows: Sequence[SessionRow]) -> None:
        """Replaces the rows when they differ."""
        if list(rows) == self._rows:
            return
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_of(self, session_id: str | None) -> int:
        """Position of a session, -1 when absent."""
        return next((i for i, r in enumerate(self._rows) if r.session_id == session_id), -1)
