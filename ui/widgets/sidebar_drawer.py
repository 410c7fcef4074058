"""The sidebar's two forms: inline beside the chat in a wide window, a drawer over it in a narrow one."""

from __future__ import annotations

from PySide6.QtWidgets import QBoxLayout, QWidget

from ui.widgets.sidebar import WIDTH as SIDEBAR_WIDTH

NARROW_BELOW = 900  # narrower windows show the sidebar as a drawer over the chat, opened from the header


class SidebarDrawer:
    """Moves the sidebar between the window's row (wide) and a drawer under the header (narrow)."""

    def __init__(self, sidebar: QWidget, row: QBoxLayout, header: QWidget) -> None:
        self._sidebar, self._row, self._header = sidebar, row, header
        self.narrow = False
        self._wanted = True  # in a wide window, whether the user keeps the sidebar open

    def resized(self, width: int) -> None:
        """The window is now `width` wide: switch form when it crosses NARROW_BELOW, keep an open drawer placed."""
        self._set_narrow(width < NARROW_BELOW)
        if self.narrow and self._sidebar.isVisible():
            self._place()

    def toggle(self) -> None:
        """Shows or hides the conversations: inline when wide, as a drawer when narrow."""
        if self.narrow:
            if self._sidebar.isVisible():
                self.close()
            else:
                self._place()
                self._sidebar.show()
                self._sidebar.raise_()
            return
        self._wanted = not self._sidebar.isVisible()
        self._sidebar.setVisible(self._wanted)

    def close(self) -> None:
        """Closes the drawer (a conversation was opened from it); an inline sidebar stays."""
        if self.narrow:
            self._sidebar.hide()

    def _set_narrow(self, narrow: bool) -> None:
        if narrow == self.narrow:
            return
        self.narrow = narrow
        if narrow:
            self._row.removeWidget(self._sidebar)
            self._sidebar.hide()
        else:
            self._row.insertWidget(0, self._sidebar)
            self._sidebar.setVisible(self._wanted)

    def _place(self) -> None:
        top = self._header.height()
        central = self._sidebar.parentWidget() or self._sidebar
        self._sidebar.setGeometry(0, top, min(SIDEBAR_WIDTH, central.width()), max(0, central.height() - top))
