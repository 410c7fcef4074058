"""Markdown to a QTextDocument: code boxes syntax-highlighted (Pygments), styled quotes and tables, TeX as code."""

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
    QFontMetricsF,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QTextFrame,
    QTextFrameFormat,
    QTextTable,
)

from ui.markdown_links import link_bare_urls, link_citations
from ui.markdown_math import Placeholder, inline_math_as_code, split_display_math
from ui.math_images import FormulaMarks, has_math
from ui.theme import Theme

_FENCE = re.compile(r"^```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^```[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
MAX_HIGHLIGHT_CHARS = 20_000
CODE_FRAME = int(QTextFormat.Property.UserProperty) + 1  # frame property marking a code box (tables are frames too)
CODE_LANGUAGE = CODE_FRAME + 1  # the code box's language, for its label
QUOTE_LEVEL = int(QTextFormat.Property.BlockQuoteLevel)
_QUOTE_LINE = re.compile(r"^ {0,3}>", re.MULTILINE)
_BLOCK_START = re.compile(r" {0,3}(#|>|---|\*\*\*|___)")  # a heading, quote or rule opens the prose
_LEXER_ALIASES = {"math": "latex"}


@dataclass(frozen=True)
class Segment:
    """A run of Markdown prose, or one code block with its language."""

    text: str
    code: bool = False
    language: str = ""


def split_segments(text: str, *, math: bool = True, placeholder: Placeholder | None = None) -> list[Segment]:
    """Splits text into prose and fenced code blocks; an unterminated fence (still streaming) runs to the end.

    With `math`, display formulas in the prose become code boxes labelled "math" and inline ones code spans (or the
    mark `placeholder` gives for a formula whose image is ready).
    """
    segments: list[Segment] = []
    position = 0

    def prose(chunk: str) -> None:
        if not math:
            segments.append(Segment(chunk))
            return
        for run, formula in split_display_math(chunk):
            segments.append(Segment(run, code=True, language="math") if formula
                            else Segment(link_bare_urls(link_citations(inline_math_as_code(run, placeholder)))))

    for match in _FENCE.finditer(text):
        if match.start() > position:
            prose(text[position:match.start()])
        segments.append(Segment(match.group(2).rstrip("\n"), code=True, language=match.group(1).lower()))
        position = match.end()
    if position < len(text):
        prose(text[position:])
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
        lexer = get_lexer_by_name(_LEXER_ALIASES.get(language, language)) if language else guess_lexer(code)
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


def insert_code(cursor: QTextCursor, segment: Segment, theme: Theme, *, first: bool) -> None:
    """Appends a framed, highlighted code box whose lines never wrap (the box scrolls sideways instead).

    Its top margin leaves a caption strip above the box for the language label and the Copy button.
    """
    doc = cursor.document()
    if not first and cursor.block().length() <= 1 and cursor.currentFrame() is doc.rootFrame():
        _shrink_block(cursor)  # the empty paragraph Qt keeps between two code boxes
    fmt = QTextFrameFormat()
    fmt.setBackground(QColor(theme.code_bg))
    fmt.setPadding(10)
    fmt.setTopMargin(QFontMetricsF(doc.defaultFont()).height() + (2 if first else 6))
    fmt.setBottomMargin(4)
    fmt.setBorder(1)
    fmt.setBorderBrush(QColor(theme.border))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setProperty(CODE_FRAME, True)
    fmt.setProperty(CODE_LANGUAGE, segment.language)
    frame = cursor.insertFrame(fmt)
    body = highlight_html(segment.text, segment.language, theme.pygments_style)
    cursor.insertHtml(f'<pre style="font-family:{_mono_family()}; color:{theme.text};">{body}</pre>')
    lines = QTextCursor(doc)
    lines.setPosition(frame.firstPosition())
    lines.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
    no_wrap = QTextBlockFormat()
    no_wrap.setNonBreakableLines(True)  # Qt gives the first line of inserted HTML the block's old format
    lines.mergeBlockFormat(no_wrap)


def insert_markdown(cursor: QTextCursor, text: str, theme: Theme) -> None:
    """Appends Markdown prose, keeping its first block's format (heading, quote) and styling quotes and tables."""
    doc = cursor.document()
    start = cursor.position()
    if _BLOCK_START.match(text):  # Qt merges the first inserted block into the block at the cursor: keep its format
        parsed = QTextDocument()
        parsed.setMarkdown(text)
        first = parsed.begin()
        cursor.insertFragment(QTextDocumentFragment(parsed))
        if first.textList() is None:
            QTextCursor(doc.findBlock(start)).setBlockFormat(first.blockFormat())
    else:
        cursor.insertMarkdown(text)
    if _QUOTE_LINE.search(text):
        _style_quotes(doc, start, cursor.position(), theme)
    if "|" in text:
        _style_tables(doc, start, theme)


def _style_quotes(doc: QTextDocument, start: int, end: int, theme: Theme) -> None:
    block = doc.findBlock(start)
    muted = QTextCharFormat()
    muted.setForeground(QColor(theme.muted))
    while block.isValid() and block.position() <= end:
        level = block.blockFormat().intProperty(QUOTE_LEVEL)
        if level > 0:
            cursor = QTextCursor(block)
            fmt = block.blockFormat()
            fmt.setLeftMargin(14.0 * level)
            fmt.setRightMargin(0)
            cursor.setBlockFormat(fmt)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(muted)
        block = block.next()


def _style_tables(doc: QTextDocument, start: int, theme: Theme) -> None:
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable) or frame.firstPosition() < start:
            continue
        fmt = frame.format()
        fmt.setBorder(1)
        fmt.setBorderBrush(QColor(theme.border))
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderCollapse(True)
        fmt.setCellSpacing(0)
        fmt.setCellPadding(5)
        fmt.setTopMargin(4)
        fmt.setBottomMargin(4)
        frame.setFormat(fmt)
        for column in range(frame.columns()):
            cell = frame.cellAt(0, column)
            head = cell.format()
            head.setBackground(QColor(theme.code_bg))
            cell.setFormat(head)


def insert_segment(cursor: QTextCursor, segment: Segment, theme: Theme, *, first: bool, after_prose: bool,
                   plain: bool = False) -> None:
    """Appends one segment at the cursor (a framed, highlighted box for code) and leaves the cursor at the end.

    `plain` shows prose literally (user messages: Shift+Enter lines and pasted logs keep their line breaks).
    """
    if segment.code:
        insert_code(cursor, segment, theme, first=first)
    else:
        if after_prose:  # a fresh paragraph, not a copy of the previous block's format (a heading, a quote)
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        if plain:
            insert_plain(cursor, segment.text)
        else:
            insert_markdown(cursor, segment.text.strip("\n"), theme)
    cursor.movePosition(QTextCursor.MoveOperation.End)


def code_frames(doc: QTextDocument) -> list[QTextFrame]:
    """The document's code boxes in order (not its tables, which are frames too)."""
    return [f for f in doc.rootFrame().childFrames() if f.frameFormat().boolProperty(CODE_FRAME)]


def code_language(frame: QTextFrame) -> str:
    """The language a code box was fenced with ('' when none)."""
    return frame.frameFormat().stringProperty(CODE_LANGUAGE)


def _shrink_block(cursor: QTextCursor) -> None:
    """Makes the (empty) block at the cursor take no height."""
    fmt = QTextBlockFormat()
    fmt.setLineHeight(0.0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    fmt.setTopMargin(0)
    fmt.setBottomMargin(0)
    cursor.setBlockFormat(fmt)
    char = QTextCharFormat()
    char.setFontPointSize(1.0)
    cursor.setBlockCharFormat(char)


def shrink_trailing_block(doc: QTextDocument) -> None:
    """After a closing code box Qt keeps an empty paragraph; make it take no height."""
    block = doc.lastBlock()
    if block.length() <= 1 and block.previous().isValid():
        _shrink_block(QTextCursor(block))


def render_document(
    text: str, theme: Theme, base_font: QFont, *, code_only: bool = False, plain_prose: bool = False
) -> tuple[QTextDocument, list[str]]:
    """A document for the text, and the code of each block in order (for the copy buttons).

    With `plain_prose` the text between code fences is shown literally instead of as Markdown. A formula whose image
    is rendered shows as that image; one still rendering shows as its source and marks the document `math_pending`.
    """
    doc = new_document(theme, base_font)
    cursor = QTextCursor(doc)
    math = None if code_only or plain_prose or not has_math(text) else FormulaMarks(doc, theme.text, base_font, text)
    if code_only:
        segments = [Segment(text, code=True)]
    else:
        segments = split_segments(text, math=not plain_prose, placeholder=math.mark if math is not None else None)
    previous_prose = last_image = False
    codes: list[str] = []
    for i, segment in enumerate(segments):
        start = cursor.position()
        last_image = math is not None and segment.language == "math" and math.insert_display(
            cursor, segment.text, first=i == 0)
        if last_image:
            previous_prose = True
            continue
        insert_segment(cursor, segment, theme, first=i == 0, after_prose=previous_prose, plain=plain_prose)
        if math is not None and not segment.code:
            math.place(start)
        previous_prose = not segment.code
        if segment.code:
            codes.append(segment.text)
    if segments and segments[-1].code and not last_image:
        shrink_trailing_block(doc)
    return doc, codes


@lru_cache(maxsize=1)
def _mono_family() -> str:
    from PySide6.QtGui import QFontDatabase

    return f"'{QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()}', monospace"
