"""The chat list for the keyboard and for screen readers: Tab into the list, arrows between messages, Enter into a
message's action line (arrows between its actions, Enter to run one, Esc back to the message); each row's text and
role, and its actions, are what Qt's accessibility interface reads (AccessibleTextRole / AccessibleDescriptionRole)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPoint, QRectF, Qt
from PySide6.QtGui import QAccessible, QAccessibleEvent, QKeyEvent

from ui.models.chat_rows import ChatRow, RowKind
from ui.models.message_list import MessageListModel
from ui.widgets.row_sizer import layout_width

if TYPE_CHECKING:
    from ui.widgets.chat_view import ChatView

ROLE_NAMES = {
    RowKind.USER: "Your message",
    RowKind.ASSISTANT: "Reply",
    RowKind.ERROR: "Error",
    RowKind.TOOL: "Tool call",
    RowKind.THINKING: "The model's reasoning",
    RowKind.DIVIDER: "Compaction boundary",
    RowKind.LOAD_OLDER: "Earlier messages",
}
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class ChatKeyboard:
    """Moves the keyboard through the view's rows and their actions, shows where it is, tells screen readers."""

    def __init__(self, view: ChatView, model: MessageListModel) -> None:
        self._view, self._model = view, model
        self.action: str | None = None  # the focused action of the current row (None: the row itself)
        model.describe = self.describe
        self._placed = False  # the keyboard has chosen a row of this conversation
        model.modelReset.connect(self._forget)

    # --- what the row offers ------------------------------------------------------------------------
    def row(self) -> ChatRow | None:
        """The row under keyboard focus."""
        index = self._view.currentIndex()
        return self._model.row_at(index.row()) if index.isValid() else None

    def actions(self, row: ChatRow) -> list[tuple[str, str]]:
        """The row's actions in the order drawn: (action, label)."""
        view = self._view
        expanded = self._model.is_expanded(row.key)
        layout = view.delegate.layout_for(row, layout_width(view), expanded, view.font())
        out: list[tuple[str, str]] = []
        for _rect, action, label in layout.hotspots:
            if action == "toggle":
                label = "Collapse" if expanded else "Expand"
            if label and action not in (a for a, _ in out):
                out.append((action, label))
        return out

    def action_rect(self, row: ChatRow) -> QRectF | None:
        """The row-local rectangle of the focused action, to draw its focus frame."""
        view = self._view
        expanded = self._model.is_expanded(row.key)
        layout = view.delegate.layout_for(row, layout_width(view), expanded, view.font())
        return next((rect for rect, action, _ in layout.hotspots if action == self.action), None)

    def describe(self, row: ChatRow) -> str:
        """The accessible description of a row: its role, its state, its actions (or the one focused)."""
        actions = self.actions(row)
        current = self.row()
        if self.action is not None and current is not None and current.key == row.key:
            names = [a for a, _ in actions]
            if self.action in names:
                at = names.index(self.action)
                return (f"Action {at + 1} of {len(actions)}: {actions[at][1]}. Enter runs it, the arrows move "
                        "between actions, Escape goes back to the message.")
        parts = [ROLE_NAMES.get(row.kind, "Row")]
        if row.kind is RowKind.ASSISTANT and row.model_label:
            parts[0] += f" from {row.model_label}"
        if row.incomplete:
            parts.append({"cut": "cut off, incomplete", "stopped": "stopped early, incomplete"}.get(row.ended,
                                                                                                 "incomplete"))
        if row.pinned:
            parts.append("pinned")
        if row.streaming:
            parts.append("arriving")
        text = ", ".join(parts) + "."
        if actions:
            text += " Actions: " + ", ".join(label for _, label in actions) + ". Press Enter for the actions."
        return text

    # --- keys -------------------------------------------------------------------------------------
    def focus_in(self) -> None:
        """Tabbing into the list lands where the keyboard last was if that row is on screen, else (and the first
        time in a conversation) on the lowest row on screen: the newest message, while the list follows it."""
        view, model = self._view, self._model
        viewport = view.viewport().rect()
        current = view.currentIndex()
        placed, self._placed = self._placed, True
        if model.rowCount() and not (placed and current.isValid() and view.visualRect(current).intersects(viewport)):
            bottom = view.indexAt(viewport.bottomLeft() + QPoint(view.width() // 2, -2))
            view.setCurrentIndex(bottom if bottom.isValid() else model.index(model.rowCount() - 1, 0))
        self._changed()

    def wants(self, event: QKeyEvent) -> bool:
        """Whether a key is the action line's own (Escape too), before any window shortcut takes it."""
        navigation = (*_ENTER, Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Escape)
        return self.action is not None and event.key() in navigation

    def key(self, event: QKeyEvent) -> bool:
        """Handles a key meant for the rows; False when the view should handle it."""
        row = self.row()
        if row is None:
            return False
        key = event.key()
        if self.action is None:
            if key in _ENTER and self.actions(row):
                self.action = self.actions(row)[0][0]
                self._changed()
                return True
            return False
        names = [a for a, _ in self.actions(row)]
        if key in _ENTER or key == Qt.Key.Key_Space:
            action = self.action
            if action in names:
                self._view.run_action(action, row)
            return True
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and names:
            at = names.index(self.action) if self.action in names else 0
            self.action = names[(at + (1 if key == Qt.Key.Key_Right else -1)) % len(names)]
            self._changed()
            return True
        if key == Qt.Key.Key_Escape:
            self.leave_actions()
            return True
        self.leave_actions()  # Up, Down, Home, End: the view moves between rows
        return False

    def _forget(self) -> None:
        self._placed, self.action = False, None

    def leave_actions(self) -> None:
        """Back from the action line to the row itself."""
        if self.action is not None:
            self.action = None
            self._changed()

    def current_changed(self) -> None:
        """The keyboard moved to another row: its action line is left."""
        self.action = None
        self._changed()

    def _changed(self) -> None:
        """Repaints the focus frame and tells screen readers the focused row's description changed."""
        view = self._view
        row = self.row()
        view.delegate.keyboard = (row.key, self.action) if row is not None else None
        view.viewport().update()
        index: QModelIndex = view.currentIndex()
        if index.isValid() and QAccessible.isActive():
            event = QAccessibleEvent(view, QAccessible.Event.DescriptionChanged)
            event.setChild(index.row())
            QAccessible.updateAccessibility(event)
