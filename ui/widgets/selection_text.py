"""What a text selection in the chat copies (plain text or Markdown), and which links may be opened."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextCursor

from ui.models.chat_rows import ChatRow, RowKind
from ui.widgets.doc_painter import TextRange
from ui.widgets.row_layout import RowLayout

WEB_SCHEMES = ("http", "https")


def is_web_link(href: str) -> bool:
    """Whether a link may be opened in the browser (only absolute http and https URLs)."""
    url = QUrl(href)
    return url.isValid() and url.scheme().lower() in WEB_SCHEMES and bool(url.host())


def selected_text(layout: RowLayout, chosen: TextRange, *, markdown: bool = False) -> str:
    """The selected part of a row's document as plain text (or Markdown)."""
    if layout.doc is None:
        return ""
    cursor = QTextCursor(layout.doc)
    end = layout.doc.characterCount() - 1
    cursor.setPosition(max(0, min(chosen.start, end)))
    cursor.setPosition(max(0, min(chosen.end, end)), QTextCursor.MoveMode.KeepAnchor)
    fragment = cursor.selection()
    return fragment.toMarkdown().strip("\n") if markdown else fragment.toPlainText()


def message_markdown(row: ChatRow, layout: RowLayout) -> str:
    """A whole row as Markdown: a message's own source, or a tool row's rendered document."""
    if row.kind in (RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR):
        return row.text
    return layout.doc.toMarkdown().strip("\n") if layout.doc is not None else ""

