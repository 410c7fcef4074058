"""Markdown to a QTextDocument, with fenced code blocks syntax-highlighted (Pygments) in framed boxes."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, guess_lexer
from pygments.util import ClassNotFound
from PySide6.QtGui import (
    QColor,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextFrameFormat,
)

from ui.theme import Theme

_FENCE = re.compile(r"^```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^```[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
MAX_HIGHLIGHT_CHARS = 20_000
CODE_FRAME = int(QTextFormat.Property.UserProperty) + 1  # frame property marking a code box (tables are frames too)


@dataclass(frozen=True)
class Segment:
    """A run of Markdown prose, or one code block with its language."""

    text: str
    code: bool = False
    language: str = ""


def split_segments(text: str) -> list[Segment]:
    """Splits text into prose and fenced code blocks; an unterminated fence (still streaming) runs to the end."""
    segments: list[Segment] = []
    position = 0
    for match in _FENCE.finditer(text):
        if match.start() > position:
            segments.append(Segment(text[position:match.start()]))
        segments.append(Segment(match.group(2).rstrip("\n"), code=True, language=match.group(1).lower()))
        position = match.end()
    if position < len(text):
        segments.append(Segment(text[position:]))
    return [s for s in segments if s.code or s.text.strip()]


@lru_cache(maxsize=8)
def _formatter(style: str) -> HtmlFormatter:
    return HtmlFormatter(style=style, nowrap=True, noclasses=True)


def warm_up() -> None:
    """Compiles the common lexers once (off the GUI thread) so the first code block paints quickly."""
    for language in ("python", "json", "bash", "javascript"):
        highlight_html("x = 1", language, "friendly")


@lru_cache(maxsize=512)
def highlight_html(code: str, language: str, style: str) -> str:
    """Code as HTML spans with inline colors (plain escaped text for unknown languages or huge blocks)."""
    if len(code) > MAX_HIGHLIGHT_CHARS:
        return html.escape(code)
    try:
        lexer = get_lexer_by_name(language) if language else guess_lexer(code)
    except ClassNotFound:
        return html.escape(code)
    if lexer.name == "Text only":
        return html.escape(code)
    return highlight(code, lexer, _formatter(style)).rstrip("\n")


def new_document(theme: Theme, base_font: QFont) -> QTextDocument:
    """An empty document styled for chat text."""
    doc = QTextDocument()
    doc.setDefaultFont(base_font)
    doc.setDocumentMargin(0)
    doc.setDefaultStyleSheet(f"a {{ color: {theme.accent}; }} code {{ background: {theme.code_bg}; }}")
    return doc


def insert_plain(cursor: QTextCursor, text: str) -> None:
    """Appends text literally: every line break and run of spaces kept, no Markdown (a person's typed message)."""
    cursor.setBlockFormat(QTextBlockFormat())
    cursor.insertText(text.strip("\n"), QTextCharFormat())


def insert_segment(cursor: QTextCursor, segment: Segment, theme: Theme, *, first: bool, after_prose: bool,
                   plain: bool = False) -> None:
    """Appends one segment at the cursor (a framed, highlighted box for code) and leaves the cursor at the end.

    `plain` shows prose literally (user messages: Shift+Enter lines and pasted logs keep their line breaks).
    """
    if segment.code:
        frame = QTextFrameFormat()
        frame.setBackground(QColor(theme.code_bg))
        frame.setPadding(10)
        frame.setTopMargin(0 if first else 4)
        frame.setBottomMargin(4)
        frame.setBorder(1)
        frame.setBorderBrush(QColor(theme.border))
        frame.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame.setProperty(CODE_FRAME, True)
        cursor.insertFrame(frame)
        body = highlight_html(segment.text, segment.language, theme.pygments_style)
        cursor.insertHtml(f'<pre style="font-family:{_mono_family()}; color:{theme.text};">{body}</pre>')
    else:
        if after_prose:
            cursor.insertBlock()
        if plain:
            insert_plain(cursor, segment.text)
        else:
            cursor.insertMarkdown(segment.text.strip("\n"))
    cursor.movePosition(QTextCursor.MoveOperation.End)


def code_frames(doc: QTextDocument) -> list[QTextFrame]:
    """The document's code boxes in order (not its tables, which are frames too)."""
    return [f for f in doc.rootFrame().childFrames() if f.frameFormat().boolProperty(CODE_FRAME)]


def shrink_trailing_block(doc: QTextDocument) -> None:
    """After a closing code box Qt keeps an empty paragraph; make it take no height."""
    block = doc.lastBlock()
    if block.length() <= 1 and block.previous().isValid():
        cursor = QTextCursor(block)
        fmt = QTextBlockFormat()
        fmt.setLineHeight(0.0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        fmt.setTopMargin(0)
        fmt.setBottomMargin(0)
        cursor.setBlockFormat(fmt)
        char = QTextCharFormat()
        char.setFontPointSize(1.0)
        cursor.setBlockCharFormat(char)


def render_document(
    text: str, theme: Theme, base_font: QFont, *, code_only: bool = False, plain_prose: bool = False
) -> tuple[QTextDocument, list[str]]:
    """A document for the text, and the code of each block in order (for the copy buttons).

    With `plain_prose` the text between code fences is shown literally instead of as Markdown.
    """
    doc = new_document(theme, base_font)
    cursor = QTextCursor(doc)
    segments = [Segment(text, code=True)] if code_only else split_segments(text)
    previous_prose = False
    for i, segment in enumerate(segments):
        insert_segment(cursor, segment, theme, first=i == 0, after_prose=previous_prose, plain=plain_prose)
        previous_prose = not segment.code
    if segments and segments[-1].code:
        shrink_trailing_block(doc)
    return doc, [s.text for s in segments if s.code]


@lru_cache(maxsize=1)
def _mono_family() -> str:
    from PySide6.QtGui import QFontDatabase

    return f"'{QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()}', monospace"
