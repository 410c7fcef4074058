"""A one-line sync status under the sidebar: syncing, synced at a time, or failed (the error in its tooltip);
clicking it opens Settings › Sync. Hidden while sync is not set up."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from ui.viewmodels.sync import SyncState


def indicator_text(state: SyncState) -> str:
    """The line shown for a state."""
    if state.busy:
        return "⟳ Syncing…"
    if state.error:
        return "⚠ Sync failed"
    info = state.info
    if info is None:
        return ""
    if info.last_at is None:
        return "Sync: not yet"
    return f"✓ Synced {info.last_at[11:16]} UTC" + (f" · {info.waiting} waiting" if info.waiting else "")


class SyncIndicator(QLabel):
    """Renders SyncState in one line."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Muted")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName("Sync status")
        self.hide()

    def show_state(self, state: SyncState) -> None:
        text = indicator_text(state)
        self.setText(text)
        self.setToolTip(state.error or "Open Settings › Sync")
        self.setVisible(bool(text))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)
