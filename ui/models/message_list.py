"""The chat list's item model: ChatRows with minimal, keyed updates so streaming and paging stay cheap."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QByteArray, QModelIndex, QPersistentModelIndex, Qt

from ui.models.chat_rows import ChatRow, RowKind
from ui.signals import emit

ROW_ROLE = Qt.ItemDataRole.UserRole + 1
EXPANDED_ROLE = Qt.ItemDataRole.UserRole + 2
KIND_ROLE = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex


def accessible_name(row: ChatRow) -> str:
    """What a screen reader says a row is: a message's own text; a tool call or reasoning by its header."""
    if row.kind is RowKind.TOOL:
        state = "running" if row.tool_running else ("failed" if row.tool_error else f"{row.tool_chars or 0:,} chars")
        if row.tool_running and row.tool_progress:
            state += f", {row.tool_progress}"
        return f"Tool {row.tool_name}: {state}"
    if row.kind is RowKind.THINKING:
        return f"Thinking: {row.text}"
    return row.text


class MessageListModel(QAbstractListModel):
    """Rows of one conversation; set_rows diffs by key (a streaming reply updates in place)."""

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[ChatRow] = []
        self._index: dict[str, int] = {}
        self._expanded: set[str] = set()
        self.describe: Callable[[ChatRow], str] | None = None  # a row's accessible description (set by the view)

    # --- Qt interface --------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.text if row.tool_name is None else f"{row.tool_name} {row.tool_input or ''}"
        if role == ROW_ROLE:
            return row
        if role == EXPANDED_ROLE:
            return row.key in self._expanded
        if role == KIND_ROLE:
            return str(row.kind)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return accessible_name(row)
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            return self.describe(row) if self.describe is not None else None
        if role == Qt.ItemDataRole.ToolTipRole and row.pinned:
            return "Pinned: always sent verbatim"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def roleNames(self) -> dict[int, QByteArray]:
        names = dict(super().roleNames())
        names.update({ROW_ROLE: QByteArray(b"row"), EXPANDED_ROLE: QByteArray(b"expanded"),
                      KIND_ROLE: QByteArray(b"kind")})
        return names

    # --- reading ---------------------------------------------------------------------------------
    def rows(self) -> tuple[ChatRow, ...]:
        """A copy of the current rows."""
        return tuple(self._rows)

    def row_at(self, row: int) -> ChatRow | None:
        """The row at a position, or None."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def position(self, key: str) -> int | None:
        """The position of the row with this key."""
        return self._index.get(key)

    def is_expanded(self, key: str) -> bool:
        """Whether a collapsible row is open."""
        return key in self._expanded

    # --- changing --------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[ChatRow]) -> None:
        """Replaces the rows, touching only what changed: a common head and tail by key are kept in place."""
        new = list(rows)
        old = self._rows
        head = 0
        while head < len(old) and head < len(new) and old[head].key == new[head].key:
            head += 1
        tail = 0
        while (
            tail < len(old) - head and tail < len(new) - head
            and old[len(old) - 1 - tail].key == new[len(new) - 1 - tail].key
        ):
            tail += 1
        old_head, old_tail = old[:head], old[len(old) - tail:]
        removed = len(old) - head - tail
        added = len(new) - head - tail
        if removed:
            self.beginRemoveRows(QModelIndex(), head, head + removed - 1)
            del self._rows[head:head + removed]
            self.endRemoveRows()
        if added:
            self.beginInsertRows(QModelIndex(), head, head + added - 1)
            self._rows[head:head] = new[head:head + added]
            self.endInsertRows()
        self._rows = new
        self._reindex()
        kept = [(i, old_head[i]) for i in range(head)]
        kept += [(len(new) - tail + j, old_tail[j]) for j in range(tail)]
        for i, before in kept:
            if before != new[i]:
                emit(self.dataChanged, self.index(i), self.index(i))
        self._expanded &= set(self._index)

    def append(self, row: ChatRow) -> None:
        """Adds a row at the end (a streaming reply, a running tool)."""
        at = len(self._rows)
        self.beginInsertRows(QModelIndex(), at, at)
        self._rows.append(row)
        self._index[row.key] = at
        self.endInsertRows()

    def toggle_expanded(self, key: str) -> None:
        """Opens or closes a collapsible row."""
        at = self._index.get(key)
        if at is None:
            return
        self._expanded ^= {key}
        emit(self.dataChanged, self.index(at), self.index(at), [EXPANDED_ROLE])

    def _reindex(self) -> None:
        self._index = {row.key: i for i, row in enumerate(self._rows)}
