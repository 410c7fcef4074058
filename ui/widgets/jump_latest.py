"""The "Jump to latest" button over the chat list's bottom right, shown while a window around a search hit does not
reach the conversation's newest message."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QPushButton

from ui.viewmodels.chat import ChatViewModel
from ui.viewmodels.chat_state import ChatState

MARGIN = 16  # from the list's bottom and right edges (besides its scroll bar)


class JumpToLatest(QPushButton):
    """Floats over a scroll area; a click replaces the window with the newest page (the view then shows its end)."""

    def __init__(self, vm: ChatViewModel, area: QAbstractScrollArea) -> None:
        super().__init__("Jump to latest  ↓", area)
        self._viewport = area.viewport()
        self.setObjectName("PrimaryButton")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Show the newest messages of this conversation")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.clicked.connect(vm.jump_to_latest)
        vm.state_changed.connect(self._on_state)
        self._viewport.installEventFilter(self)  # resized once the area has laid out its scroll bars
        self.hide()

    def _on_state(self, state: ChatState) -> None:
        wanted = state.has_newer and not state.loading
        if wanted != self.isVisible():
            self.setVisible(wanted)
            if wanted:
                self._place()
                self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keeps the button at the area's bottom right when it is resized."""
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        self.adjustSize()
        viewport = self._viewport.geometry()  # inside the area's frame, left of its scroll bar
        self.move(viewport.right() - self.width() - MARGIN, viewport.bottom() - self.height() - MARGIN)
