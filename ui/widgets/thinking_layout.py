"""Geometry of a Thinking row: a header line (toggle), and when open or streaming, the reasoning as literal text."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont

from ui.markdown import render_document
from ui.models.chat_rows import ChatRow
from ui.theme import Theme
from ui.widgets.row_layout import GAP, MARGIN, MAX_ASSISTANT, PAD, TOOL_HEADER, RowLayout, small_font

REDACTED_NOTE = ("The provider returned this reasoning encrypted: nobody can read it, and it is sent back to the same "
                 "model unchanged, as the provider requires.")
TAIL_CHARS = 6_000  # while streaming, the open section shows the newest reasoning (the whole of it once stored)


def thinking_layout(row: ChatRow, usable: float, expanded: bool, theme: Theme, font: QFont) -> RowLayout:
    """The row's layout: open while the reasoning streams, then only when the user opens it."""
    bubble_w = min(usable, MAX_ASSISTANT)
    layout = RowLayout(height=0.0)
    header = QRectF(MARGIN, GAP / 2, bubble_w, TOOL_HEADER)
    layout.hotspots.append((header, "toggle", ""))
    height = TOOL_HEADER
    if expanded or row.streaming:
        text = row.text
        if row.streaming and len(text) > TAIL_CHARS:
            text = "…" + text[-TAIL_CHARS:]
        if row.redacted:
            text = f"{text}\n\n{REDACTED_NOTE}" if text else REDACTED_NOTE
        doc, _ = render_document(text or "…", theme, small_font(font), plain_prose=True)
        doc.setTextWidth(bubble_w - 2 * PAD)
        layout.doc = doc
        layout.doc_pos = QPointF(MARGIN + PAD, header.bottom() + 2)
        height += doc.size().height() + PAD
    layout.bubble = QRectF(MARGIN, GAP / 2, bubble_w, height)
    layout.height = height + GAP
    return layout
