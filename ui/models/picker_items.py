"""Rows of a picker popup (provider headers and choices) as a list model that filters as the user types."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

ITEM_ROLE = int(Qt.ItemDataRole.UserRole) + 1
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class PickerItem:
    """A choice (with its right-hand detail such as "200K") or a group header, which cannot be chosen."""

    text: str
    data: object = None
    detail: str = ""
    tooltip: str = ""
    header: bool = False
    keywords: str = ""  # also matched by the filter (e.g. the model id and the provider name)


def window_label(tokens: int | None, guess: bool = False) -> str:
    """A context window in short form: 200000 -> 200K, 131072 -> 128K, 1048576 -> 1M, 1050000 -> 1.05M (as the
    context gauge writes it; "?" when guessed)."""
    if not tokens:
        return "—"
    base = 1024 if tokens % 1000 and tokens % 1024 == 0 else 1000  # 131072 is "128K", 128000 too
    if tokens >= base * base:
        value, unit = tokens / (base * base), "M"
    else:
        value, unit = tokens / base, "K"
    number = f"{value:.0f}" if value >= 10 else f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{number}{unit}{'?' if guess else ''}"


def matches(item: PickerItem, query: str) -> bool:
    """Whether every word of the query occurs in the item's text or keywords (case-insensitive)."""
    haystack = f"{item.text} {item.keywords}".casefold()
    return all(word in haystack for word in query.casefold().split())


def filtered(items: Sequence[PickerItem], query: str) -> list[PickerItem]:
    """The choices matching the query, each group's header kept only when one of its choices matches."""
    if not query.strip():
        return list(items)
    out: list[PickerItem] = []
    header: PickerItem | None = None
    for item in items:
        if item.header:
            header = item
            continue
        if matches(item, query) or (header is not None and matches(header, query)):
            if header is not None and (not out or header not in out):
                out.append(header)
            out.append(item)
    return out


class PickerListModel(QAbstractListModel):
    """The visible rows of a picker; headers are shown but neither selectable nor enabled."""

    def __init__(self) -> None:
        super().__init__()
        self._all: list[PickerItem] = []
        self._rows: list[PickerItem] = []
        self._query = ""

    def set_items(self, items: Sequence[PickerItem]) -> None:
        """Replaces every row (the current filter stays)."""
        self._all = list(items)
        self.set_filter(self._query)

    def set_filter(self, query: str) -> None:
        """Shows only the rows matching the query."""
        self.beginResetModel()
        self._query = query
        self._rows = filtered(self._all, query)
        self.endResetModel()

    def item(self, row: int) -> PickerItem | None:
        """The row's item, or None."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def choice_rows(self) -> list[int]:
        """Rows that can be chosen, in order."""
        return [i for i, item in enumerate(self._rows) if not item.header]

    def row_of(self, data: object) -> int:
        """The row of the choice carrying data, or -1."""
        return next((i for i, item in enumerate(self._rows) if not item.header and item.data == data), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item(index.row()) if index.isValid() else None
        if item is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return item.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return item.tooltip or None
        if role == ITEM_ROLE:
            return item
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        item = self.item(index.row()) if index.isValid() else None
        if item is None or item.header:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
