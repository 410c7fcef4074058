"""The "Jump to latest" button over the chat list's bottom right: shown while a window around a search hit does not
reach the conversation's newest message, and while new messages arrived below a view scrolled up (with their count)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QPushButton

from ui.state.chat_state import ChatState, Sending
from ui.viewmodels.chat import ChatViewModel

MARGIN = 16  # from the list's bottom and right edges (besides its scroll bar)
AT_BOTTOM_PX = 40  # this close to the end the view counts as showing the newest message
LABEL = "Jump to latest  ↓"


def jump_label(unseen: int) -> str:
    """The button's text: with the count of messages that arrived below the view, when any."""
    if unseen <= 0:
        return LABEL
    return f"Jump to latest · {unseen} new message{'s' if unseen != 1 else ''}  ↓"


class JumpToLatest(QPushButton):
    """Floats over a scroll area. A click replaces a window around a search hit with the newest page, or scrolls a
    view that was scrolled up to its end (the newest message)."""

    def __init__(self, vm: ChatViewModel, area: QAbstractScrollArea) -> None:
        super().__init__(LABEL, area)
        self._vm = vm
        self._area = area
        self._viewport = area.viewport()
        self.setObjectName("PrimaryButton")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Show the newest messages of this conversation")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._seen = 0  # the conversation's message count when the view last showed its end
        self._session: object = None
        self.clicked.connect(self._jump)
        vm.state_changed.connect(self._on_state)
        bar = area.verticalScrollBar()
        bar.valueChanged.connect(lambda _value: self._update())
        bar.rangeChanged.connect(lambda _low, _high: self._update())
        self._viewport.installEventFilter(self)  # resized once the area has laid out its scroll bars
        self.hide()

    @property
    def unseen(self) -> int:
        """Messages that arrived below the view since it last showed the end."""
        return max(0, self._vm.state.message_count - self._seen) if not self._at_bottom() else 0

    def _at_bottom(self) -> bool:
        bar = self._area.verticalScrollBar()
        return bar.maximum() == 0 or bar.value() >= bar.maximum() - AT_BOTTOM_PX

    def _jump(self) -> None:
        if self._vm.state.has_newer:
            self._vm.jump_to_latest()
        else:
            self._area.verticalScrollBar().setValue(self._area.verticalScrollBar().maximum())

    def _on_state(self, state: ChatState) -> None:
        session = state.session.id if state.session is not None else None
        if session != self._session or state.loading:  # another conversation: nothing in it is new to the view
            self._session = session
            self._seen = state.message_count
        self._update()

    def _update(self) -> None:
        state = self._vm.state
        if state.has_newer or self._at_bottom() or isinstance(state.current_turn, Sending):
            self._seen = state.message_count  # a send scrolls to its message: nothing of it is unseen
        unseen = self.unseen if not state.has_newer else 0
        wanted = (state.has_newer or unseen > 0) and not state.loading
        text = jump_label(unseen)
        if text != self.text():
            self.setText(text)
            if wanted:
                self._place()
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
