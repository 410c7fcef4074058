"""Where the chat list stands: stuck to the bottom while replies stream (and after every send), anchored while older
pages are put in above, a search hit held in the middle until the user scrolls away."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPoint, QTimer
from PySide6.QtWidgets import QAbstractItemView, QListView

from ui.state.chat_state import ChatState, Sending
from ui.viewmodels.chat import ChatViewModel
from ui.widgets.message_delegate import MessageDelegate

HIGHLIGHT_MS = 2000  # how long a search hit stays framed after it is scrolled to
NEWER_MARGIN = 400  # px from the bottom of a window around a search hit at which the next newer page is asked for


class ChatFollow(QObject):
    """Scrolls a chat list (a QListView over the view model's rows with a MessageDelegate) as its rows change."""

    def __init__(self, view: QListView, vm: ChatViewModel, delegate: MessageDelegate) -> None:
        super().__init__(view)
        self._view = view
        self._delegate = delegate
        self._vm = vm
        self.stick = True  # the view follows the newest row
        self._prepending = False
        self._anchor: tuple[str, int] | None = None  # row key and its offset from the viewport top
        self._unhighlight = QTimer(self)
        self._unhighlight.setSingleShot(True)
        self._unhighlight.setInterval(HIGHLIGHT_MS)
        self._unhighlight.timeout.connect(lambda: self.highlight(None))
        self.focused: str | None = None  # a search hit held in view until the user scrolls or another page opens
        self._refocusing = False
        self._sending = False
        bar = view.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)
        bar.sliderPressed.connect(self.release)
        bar.actionTriggered.connect(lambda _action: self.release())
        model = vm.model
        model.rowsInserted.connect(self._rows_inserted)
        model.rowsAboutToBeInserted.connect(self._about_to_insert)
        model.modelReset.connect(self._new_page)
        delegate.sizeHintChanged.connect(lambda *_: self.refocus_soon())  # estimated heights made exact

    def resized(self) -> None:
        """The view was resized: a held hit is centred again, else the bottom kept in view when followed."""
        if self.focused is not None:
            self.refocus_soon()
        elif self.stick:
            QTimer.singleShot(0, self.settle_at_bottom)

    def _scrolled(self, value: int) -> None:
        bar = self._view.verticalScrollBar()
        newer = self._vm.state.has_newer  # a window around a search hit: its bottom is not the conversation's
        self.stick = value >= bar.maximum() - 40 and not newer
        if value <= 200 and bar.maximum() > 0 and self._vm.state.has_older:
            self._vm.load_older()  # the previous page arrives before the user reaches the top
        if newer and bar.maximum() > 0 and value >= bar.maximum() - NEWER_MARGIN:
            self._vm.load_newer()  # and the next one before the user reaches the bottom

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self.stick and not self._prepending:
            self._view.verticalScrollBar().setValue(maximum)

    def _about_to_insert(self, _parent: QModelIndex, first: int, _last: int) -> None:
        """Rows inserted at or above the viewport (older messages paging in) must not move what the user reads."""
        self._anchor = None
        self._prepending = False
        model = self._vm.model
        if self.stick or first >= model.rowCount():
            return
        bottom = self._view.indexAt(QPoint(4, self._view.viewport().height() - 4))
        last_visible = bottom.row() if bottom.isValid() else model.rowCount() - 1
        anchor = model.row_at(first)  # the row the insertion pushes down keeps its place on screen
        if anchor is not None and first <= last_visible:
            self._prepending = True
            self._anchor = (anchor.key, self._view.visualRect(model.index(first)).top())

    def _rows_inserted(self, _parent: QModelIndex, first: int, _last: int) -> None:
        if self._prepending:
            self._prepending = False
            QTimer.singleShot(0, self._restore_anchor)
            return
        if first == 0:
            self._new_page()
        else:
            self.keep_up()

    def _new_page(self) -> None:
        """A page of another conversation (or the same one anew): a hit held before is let go, the bottom shown
        (a hit in the new page is shown when the view model asks, right after)."""
        self.release()
        self.keep_up(force=True)

    def release(self) -> None:
        """The user scrolled: a search hit held in view is let go."""
        self.focused = None

    def refocus_soon(self) -> None:
        """Row heights changed (an estimate replaced by the exact layout, a resize): the held hit is centred again
        once the view has laid them out."""
        if self.focused is not None and not self._refocusing:
            self._refocusing = True
            QTimer.singleShot(0, self._refocus)

    def _refocus(self) -> None:
        self._refocusing = False
        if self.focused is not None:
            self._keep_focus(self.focused)

    def _restore_anchor(self) -> None:
        if self._anchor is None:
            return
        key, offset = self._anchor
        self._anchor = None
        position = self._vm.model.position(key)
        if position is None:
            return
        self._view.doItemsLayout()
        rect = self._view.visualRect(self._vm.model.index(position))
        bar = self._view.verticalScrollBar()
        bar.setValue(bar.value() + rect.top() - offset)

    def show_message(self, message_id: str) -> bool:
        """Scrolls a message to the middle of the view and frames it briefly; False when it is not shown."""
        if not self._center(message_id):
            return False
        self.focused = message_id
        self.highlight(message_id)
        self._unhighlight.start()
        return True

    def _center(self, message_id: str) -> bool:
        model = self._vm.model
        row = next((i for i, r in enumerate(model.rows()) if r.message_id == message_id), None)
        if row is None:
            return False
        self._view.doItemsLayout()
        self._view.scrollTo(model.index(row), QAbstractItemView.ScrollHint.PositionAtCenter)
        self.stick = False
        return True

    def _keep_focus(self, message_id: str) -> None:
        if not self._center(message_id):  # another conversation opened: its bottom, as usual
            self.highlight(None)
            self.release()
            self.stick = True
            self._view.scrollToBottom()

    def settle_at_bottom(self) -> None:
        """A scroll to the newest row asked for a moment ago, done only if still wanted: a search hit shown since
        (or the user scrolling up) wins over it."""
        if self.stick and self.focused is None:
            self._view.scrollToBottom()

    def highlight(self, message_id: str | None) -> None:
        """Frames a message's rows (None: none; a held search hit stays held)."""
        self._delegate.highlighted = message_id
        self._view.viewport().update()

    def keep_up(self, force: bool = False) -> None:
        """Rows changed: the bottom is followed when it was (or `force`), a held hit kept in view."""
        focused = self.focused
        if focused is not None and self._vm.state.streaming:  # a message sent from there: its reply is followed
            self.focused, force = None, True
        elif focused is not None:  # rows settling after a search hit opened: keep the hit in view, not the bottom
            QTimer.singleShot(0, lambda: self._keep_focus(focused))
            return
        if self._vm.state.has_newer:  # a window around a search hit: no bottom to follow, the path goes on below
            self.stick = False
            return
        if self.stick or force:
            self.stick = True
            QTimer.singleShot(0, self.settle_at_bottom)

    def turn_began(self, state: ChatState) -> None:
        """A send always shows the new message: the view goes to its end however far up it was scrolled."""
        sending = isinstance(state.current_turn, Sending)
        if sending and not self._sending:
            self.release()
            self.stick = True
            self.keep_up(force=True)
        self._sending = sending
