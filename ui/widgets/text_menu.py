"""The context menu over a message's text: Copy, Copy as Markdown, Select all, and a link's Open / Copy address."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from ui.markdown_sources import source_number
from ui.widgets.selection_text import is_web_link, message_markdown

if TYPE_CHECKING:
    from ui.widgets.text_selection import Hit, TextSelector


def text_menu(selector: TextSelector, parent: QWidget, hit: Hit, has_selection: bool) -> QMenu:
    """The menu for `hit` (Copy enabled only over a selection in that row; without one, Copy as Markdown copies the
    whole message)."""
    key = hit.row.key
    menu = QMenu(parent)
    copy = menu.addAction("Copy", lambda: selector.copy())
    copy.setEnabled(has_selection)
    copy.setShortcut("Ctrl+C")

    def copy_markdown() -> None:
        if has_selection:
            selector.copy(markdown=True)
        else:
            QGuiApplication.clipboard().setText(message_markdown(hit.row, hit.layout))

    menu.addAction("Copy as Markdown", copy_markdown)
    menu.addAction("Select all", lambda: selector.select_all(key))
    if hit.link:
        menu.addSeparator()
        opened = menu.addAction("Open link", lambda: selector.open_link(hit.link, key))
        opened.setEnabled(is_web_link(hit.link) or source_number(hit.link) is not None)
        menu.addAction("Copy link address", lambda: QGuiApplication.clipboard().setText(hit.link))
    return menu
