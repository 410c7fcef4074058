"""What a text selection in the chat copies (plain text or Markdown), and which links may be opened."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, cast

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextBlock, QTextCharFormat, QTextCursor, QTextDocument, QTextDocumentFragment, QTextFormat

from ui.math_images import MATH_SOURCE
from ui.models.chat_rows import ChatRow, RowKind
from ui.widgets.doc_painter import TextRange
from ui.widgets.row_layout import RowLayout

WEB_SCHEMES = ("http", "https")
_FIRST_RUN = int(QTextFormat.Property.UserProperty) + 9  # marks a block's first one-character run while copying
_OBJECT = "\ufffc"  # the character an image (a rendered formula) takes in a document


def is_web_link(href: str) -> bool:
    """Whether a link may be opened in the browser (only absolute http and https URLs)."""
    url = QUrl(href)
    return url.isValid() and url.scheme().lower() in WEB_SCHEMES and bool(url.host())


def selected_text(layout: RowLayout, chosen: TextRange, *, markdown: bool = False) -> str:
    """The selected part of a row's document as plain text (or Markdown): table cells apart by tabs, rows by line
    breaks, a rendered formula as its TeX source, Markdown never hard-wrapped."""
    if layout.doc is None:
        return ""
    cursor = QTextCursor(layout.doc)
    end = layout.doc.characterCount() - 1
    cursor.setPosition(max(0, min(chosen.start, end)))
    cursor.setPosition(max(0, min(chosen.end, end)), QTextCursor.MoveMode.KeepAnchor)
    if markdown:
        return unwrapped_markdown(cursor.selection())
    return plain_text(layout.doc, max(0, min(chosen.start, end)), max(0, min(chosen.end, end)))


def unwrapped_markdown(fragment: QTextDocumentFragment) -> str:
    """A fragment as Markdown with each paragraph on one line and each rendered formula as its TeX source.

    Qt's writer wraps at 80 columns: at a space, or before a fragment (a run of one format) that would pass the limit.
    So the spaces become a placeholder, a mark opens every fragment but a block's first (which a one-character run of
    its own keeps short), and every line break the writer puts before a mark is taken out again.
    """
    doc = QTextDocument()
    QTextCursor(doc).insertFragment(fragment)
    text = doc.toPlainText()
    free = (chr(c) for c in range(0xE000, 0xF8FF) if chr(c) not in text)
    space, opens, first, line_break = next(free), next(free), next(free), next(free)
    sources = _formula_marks(doc, free)
    block = doc.begin()
    while block.isValid():
        if not _is_code(block) and block.length() > 1:
            _mark_block(doc, block, space, opens, first, line_break)
        block = block.next()
    markdown = re.sub(f"\\n[ >]*([*_~`\\[!<]*){opens}", r"\1", doc.toMarkdown())
    markdown = markdown.replace(opens, "").replace(first, "").replace(space, " ").replace(line_break, "\n")
    for mark, source in sources.items():
        markdown = markdown.replace(mark, source)
    return markdown.strip("\n")


def _formula_marks(doc: QTextDocument, free: Iterator[str]) -> dict[str, str]:
    """Replaces each rendered formula with a mark; returns each mark's TeX source."""
    sources: dict[str, str] = {}
    cursor = doc.find(_OBJECT)
    while not cursor.isNull():
        source = cursor.charFormat().stringProperty(MATH_SOURCE)
        if source:
            mark = next(free)
            sources[mark] = source
            cursor.insertText(mark)
        cursor = doc.find(_OBJECT, cursor)
    return sources


def _is_code(block: QTextBlock) -> bool:
    fmt = block.blockFormat()
    return fmt.nonBreakableLines() or fmt.hasProperty(QTextFormat.Property.BlockCodeFence) \
        or bool(fmt.stringProperty(QTextFormat.Property.BlockCodeLanguage))


def _mark_block(doc: QTextDocument, block: QTextBlock, space: str, opens: str, first: str, line_break: str) -> None:
    """Puts a block's marks in (see unwrapped_markdown), keeping each character's format."""
    starts = [item.fragment().position() for item in cast(Iterable[Any], block) if item.fragment().isValid()]
    start = block.position()
    for at in sorted(starts, reverse=True):
        cursor = QTextCursor(doc)
        cursor.setPosition(at)
        cursor.setPosition(at + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.setPosition(at)
        cursor.insertText(opens, _format_at(doc, at + 1))
    content = doc.findBlock(start).text()
    for i in reversed(range(len(content))):
        replacement = {" ": space, "\u2028": line_break}.get(content[i])
        if replacement is not None:
            cursor = QTextCursor(doc)
            cursor.setPosition(start + i)
            cursor.setPosition(start + i + 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(replacement, cursor.charFormat())
    own = _format_at(doc, start + 1)
    own.setProperty(_FIRST_RUN, True)  # a run of its own: the writer never breaks before this short one
    QTextCursor(doc.findBlock(start)).insertText(first, own)


def _format_at(doc: QTextDocument, position: int) -> QTextCharFormat:
    """The format of the character just before a position."""
    cursor = QTextCursor(doc)
    cursor.setPosition(position)
    return cursor.charFormat()


def _block_text(block: QTextBlock, start: int, end: int) -> str:
    """The text of one block between two document positions, a formula as its TeX source."""
    pieces: list[str] = []
    for item in cast(Iterable[Any], block):  # QTextBlock iterates its fragments (untyped in the stubs)
        frag = item.fragment()
        if not frag.isValid():
            continue
        lo, hi = max(start, frag.position()), min(end, frag.position() + frag.length())
        if lo >= hi:
            continue
        source = frag.charFormat().stringProperty(MATH_SOURCE)
        text = frag.text()[lo - frag.position():hi - frag.position()]
        pieces.append(text.replace(_OBJECT, source) if source else text)
    return "".join(pieces).replace("\u2028", "\n").replace("\u00a0", " ")


def plain_text(doc: QTextDocument, start: int, end: int) -> str:
    """The plain text between two positions: a table row's cells joined by tabs, its rows by line breaks."""
    block = doc.findBlock(start)
    parts: list[str] = []
    previous: tuple[object, int, int] | None = None
    while block.isValid() and block.position() <= end:
        table = QTextCursor(block).currentTable()
        cell = None
        if table is not None:
            found = table.cellAt(block.position())
            cell = (table, found.row(), found.column())
        if parts:
            same_row = cell is not None and previous is not None and previous[0] == cell[0] \
                and previous[1] == cell[1] and previous[2] != cell[2]
            parts.append("\t" if same_row else "\n")
        parts.append(_block_text(block, start, end))
        previous = cell
        block = block.next()
    return "".join(parts)


def message_markdown(row: ChatRow, layout: RowLayout) -> str:
    """A whole row as Markdown: a message's own source, or a tool row's rendered document."""
    if row.kind in (RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR):
        return row.text
    if layout.doc is None:
        return ""
    cursor = QTextCursor(layout.doc)
    cursor.select(QTextCursor.SelectionType.Document)
    return unwrapped_markdown(cursor.selection())
