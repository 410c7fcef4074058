"""A non-blocking notice at the bottom of the chat, with an optional action (Undo)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class Snackbar(QWidget):
    """Floats over its parent's bottom edge and hides itself after a few seconds."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("Snackbar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setObjectName("SnackbarText")
        self.button = QPushButton(self)
        self.button.setObjectName("SnackbarAction")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 10, 8)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._expired)
        self._action: Callable[[], None] | None = None
        self._on_expire: Callable[[], None] | None = None
        self.button.clicked.connect(self._clicked)
        parent.installEventFilter(self)
        self.hide()

    def show_message(self, text: str, *, action: str | None = None, on_action: Callable[[], None] | None = None,
                     on_expire: Callable[[], None] | None = None, ms: int = 5000) -> None:
        """Shows text (replacing any notice shown now) with an optional action button."""
        self.label.setText(text)
        self.button.setVisible(action is not None)
        self.button.setText(action or "")
        self._action, self._on_expire = on_action, on_expire
        self._place()
        self.show()
        self.raise_()
        self._timer.start(ms)

    def text(self) -> str:
        """The notice shown now ('' when hidden)."""
        return self.label.text() if self.isVisible() else ""

    def _clicked(self) -> None:
        action, self._action, self._on_expire = self._action, None, None
        self.hide()
        if action is not None:
            action()

    def _expired(self) -> None:
        expire, self._on_expire = self._on_expire, None
        self.hide()
        if expire is not None:
            expire()

    def _place(self) -> None:
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(560, parent.width() - 40)
        self.setFixedWidth(max(200, width))
        self.adjustSize()
        self.move((parent.width() - self.width()) // 2, parent.height() - self.height() - 96)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False
