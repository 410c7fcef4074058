"""Geometry of one chat row: bubble, text document, action hotspots; shared by painting, sizing and clicks."""

from __future__ import annotations

import re
from collections import OrderedDict

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QTextDocument

from ui.markdown import QUOTE_LEVEL, code_frames, code_language, render_document
from ui.markdown_stream import StreamingDocument
from ui.math_images import MATH_PENDING
from ui.mcp_links import needs_sign_in, resource_links
from ui.models.chat_rows import ChatRow, RowKind
from ui.theme import Theme
from ui.widgets.row_geometry import ACTION_LINE as ACTION_LINE  # re-exported
from ui.widgets.row_geometry import GAP as GAP  # re-exported
from ui.widgets.row_geometry import MARGIN as MARGIN  # re-exported
from ui.widgets.row_geometry import MAX_ASSISTANT as MAX_ASSISTANT  # re-exported
from ui.widgets.row_geometry import PAD as PAD  # re-exported
from ui.widgets.row_geometry import PREVIEW_CHARS as PREVIEW_CHARS  # re-exported
from ui.widgets.row_geometry import TILE_H as TILE_H  # re-exported
from ui.widgets.row_geometry import TILE_W as TILE_W  # re-exported
from ui.widgets.row_geometry import TOOL_HEADER as TOOL_HEADER  # re-exported
from ui.widgets.row_geometry import RowLayout as RowLayout  # re-exported
from ui.widgets.row_geometry import _actions as _actions  # re-exported
from ui.widgets.row_geometry import _small as _small  # re-exported
from ui.widgets.row_geometry import small_font as small_font  # re-exported
from ui.widgets.row_geometry import tile_grid as tile_grid  # re-exported

_QUOTE = re.compile(r"^ {0,3}>", re.MULTILINE)


def _code_boxes(layout: RowLayout, origin: QPointF) -> None:
    """Each code box's visible rectangle (a long line widens the frame; the box shows only the text width)."""
    doc = layout.doc
    if doc is None:
        return
    doc_layout = doc.documentLayout()
    width = doc.textWidth()
    for frame in code_frames(doc):
        fmt = frame.frameFormat()  # the top margin is the caption strip (language, Copy) above the box
        rect = doc_layout.frameBoundingRect(frame).adjusted(0, fmt.topMargin(), 0, -fmt.bottomMargin())
        visible = QRectF(rect.left(), rect.top(), min(rect.width(), width - rect.left()), rect.height())
        layout.code_rects.append(visible.translated(origin))
        layout.code_languages.append(code_language(frame))
        layout.code_overflow.append(max(0.0, rect.width() - visible.width()))


def _quote_bars(doc: QTextDocument, origin: QPointF) -> list[QRectF]:
    """A bar left of each run of block-quote paragraphs."""
    bars: list[QRectF] = []
    doc_layout = doc.documentLayout()
    block = doc.begin()
    while block.isValid():
        level = block.blockFormat().intProperty(QUOTE_LEVEL)
        rect = doc_layout.blockBoundingRect(block) if level > 0 else QRectF()
        for depth in range(level):  # a nested quote shows one bar per level
            bar = QRectF(rect.left() + 14.0 * depth + 2, rect.top() - 2, 3.0, rect.height() + 4).translated(origin)
            merged = next((i for i, b in enumerate(bars) if abs(b.left() - bar.left()) < 0.5
                           and 0 <= bar.top() - b.bottom() < 16), None)
            if merged is not None:
                bars[merged] = bars[merged].united(bar)
            else:
                bars.append(bar)
        block = block.next()
    return bars


def compute_layout(row: ChatRow, width: float, expanded: bool, theme: Theme, font: QFont,
                   stream: StreamingDocument | None = None) -> RowLayout:
    """Lays out a row for a viewport width (a streaming reply reuses its incrementally built document)."""
    usable = max(200.0, width - 2 * MARGIN)
    if row.kind is RowKind.DIVIDER:
        layout = RowLayout(height=64.0)
        originals = "Hide originals" if row.dimmed else "Show originals"
        labels = [("read-summary", "Read summary"), ("edit-summary", "Edit summary"), ("show-originals", originals)]
        spots = _actions(labels, font, 0, 38.0)
        total = spots[-1][0].right() - spots[0][0].left()
        shift = (width - total) / 2 - spots[0][0].left()
        layout.hotspots = [(r.translated(shift, 0), a, t) for r, a, t in spots]
        layout.caption = row.text
        return layout
    if row.kind is RowKind.LOAD_OLDER:
        layout = RowLayout(height=36.0)
        spots = _actions([("load-older", row.text)], font, 0, 10.0)
        r = spots[0][0]
        layout.hotspots = [(r.translated((width - r.width()) / 2, 0), "load-older", row.text)]
        return layout
    if row.kind is RowKind.TOOL:
        return _tool_layout(row, usable, expanded, theme, font)
    if row.kind is RowKind.THINKING:
        from ui.widgets.thinking_layout import thinking_layout  # it builds on this module's geometry

        return thinking_layout(row, usable, expanded, theme, font)
    return _text_layout(row, width, usable, theme, font, stream)


def _text_layout(row: ChatRow, width: float, usable: float, theme: Theme, font: QFont,
                 stream: StreamingDocument | None) -> RowLayout:
    text = row.text + (" ▍" if row.streaming and row.text else "")  # nothing yet: the pending reply, "…"
    user = row.kind is RowKind.USER
    if not text.strip():
        text = "" if user and row.attachments else "…" if row.streaming else "(empty reply)"
    max_bubble = min(usable * 0.78, 720.0) if user else min(usable, MAX_ASSISTANT)
    if stream is not None:
        if stream.doc.textWidth() != max_bubble - 2 * PAD:  # an unchanged width must not re-lay the document out
            stream.doc.setTextWidth(max_bubble - 2 * PAD)
        doc, codes = stream.update(text), stream.codes
    else:
        doc, codes = render_document(text, theme, font, plain_prose=user)
        doc.setTextWidth(max_bubble - 2 * PAD)
    if user and not codes:
        ideal = doc.idealWidth()
        doc.setTextWidth(min(max_bubble - 2 * PAD, ideal + 1))
    per_line, tiles_w, tiles_h = tile_grid(len(row.attachments), max_bubble - 2 * PAD)
    if tiles_w > doc.textWidth() and not codes:
        doc.setTextWidth(tiles_w)
    inner_w = doc.textWidth()
    doc_h = doc.size().height() if text else 0.0
    bubble_w = inner_w + 2 * PAD
    top = GAP
    caption = ""
    if row.kind is RowKind.ASSISTANT and (row.model_label or row.incomplete):
        stopped = incomplete_caption(row) if row.incomplete else ""  # also on the live row right after Stop
        caption = "  ·  ".join(part for part in (row.model_label or "", stopped) if part)
    elif row.kind is RowKind.ERROR:
        caption = "Error"
    caption_h = QFontMetricsF(_small(font)).height() + 2 if caption else 0.0
    x = width - MARGIN - bubble_w if user else MARGIN
    bubble = QRectF(x, top + caption_h, bubble_w, tiles_h + doc_h + 2 * PAD - (GAP if tiles_h and not text else 0))
    layout = RowLayout(height=0.0, bubble=bubble, doc=doc if text else None,
                       doc_pos=QPointF(x + PAD, bubble.top() + PAD + tiles_h), codes=codes,
                       math_pending=stream is None and bool(doc.property(MATH_PENDING)))
    for i in range(len(row.attachments)):
        tile = QRectF(x + PAD + (i % per_line) * (TILE_W + GAP), bubble.top() + PAD + (i // per_line) * (TILE_H + GAP),
                      TILE_W, TILE_H)
        layout.tiles.append(tile)
        layout.hotspots.append((tile, f"open-attachment:{i}", ""))
    layout.caption = caption
    layout.caption_pos = QPointF(x + 2, top)
    _code_boxes(layout, layout.doc_pos)
    if not user and _QUOTE.search(row.text):
        layout.quote_bars = _quote_bars(doc, layout.doc_pos)
    for i, rect in enumerate(layout.code_rects):
        spot = _actions([(f"copy-code:{i}", "Copy code")], font, 0, 0, right=rect.right() - 2)[0][0]
        layout.hotspots.append((spot.translated(0, rect.top() - spot.height() - 2), f"copy-code:{i}", "Copy code"))
    labels: list[tuple[str, str]] = []
    if row.kind is RowKind.ERROR:
        if row.retryable:
            labels.append(("retry", "Retry"))
        if row.fix_page:
            labels.append(("open-settings", f"Open Settings › {row.fix_page}"))
        if row.switch_to or row.choose_model:  # a retired model: its successor, else the picker
            labels.append(("switch-model", f"Use {row.switch_label} and retry") if row.switch_to
                          else ("choose-model", "Choose another model"))
    elif not row.streaming and row.message_id:
        labels = [("copy", "Copy"), ("pin", "Unpin" if row.pinned else "Pin")]
        labels.append(("edit", "Edit") if user else ("regenerate", "Regenerate"))
        if row.branch[1] > 1:  # ‹ 2 / 3 ›: the versions of this message
            labels = [("branch-prev", "‹"), ("branch-info", f"{row.branch[0]} / {row.branch[1]}"),
                      ("branch-next", "›"), *labels]
        if row.attachments:  # the files go into the composer: the next message sends them again
            labels.append(("reattach", "Reattach"))
    line_y = bubble.bottom() + 4
    right = bubble.right() - 2
    if user and row.unanswered and not row.streaming:
        right = _unanswered(layout, row, font, right, line_y)
    if labels:
        layout.hotspots += _actions(labels, font, bubble.left() + 2, line_y, right=right if user else None)
    layout.height = line_y + ACTION_LINE + GAP / 2
    return layout


def incomplete_caption(row: ChatRow) -> str:
    """What the caption of an incomplete reply says: who ended it, when that is known."""
    return {"stopped": "stopped early (incomplete)", "cut": "cut off (incomplete)"}.get(row.ended, "incomplete")


def _unanswered(layout: RowLayout, row: ChatRow, font: QFont, right: float, y: float) -> float:
    """Puts "Not answered — Retry" at the right end of a user message's action line; returns where the rest ends."""
    if row.retryable:
        retry = _actions([("retry", "Retry")], font, 0, y, right=right)
        layout.hotspots += retry
        right = retry[0][0].left() - 6
    layout.note = "Not answered —" if row.retryable else "Not answered"
    width = QFontMetricsF(_small(font)).horizontalAdvance(layout.note)
    layout.note_pos = QPointF(right - width, y)
    return right - width - 14


def _tool_layout(row: ChatRow, usable: float, expanded: bool, theme: Theme, font: QFont) -> RowLayout:
    bubble_w = min(usable, MAX_ASSISTANT)
    layout = RowLayout(height=0.0)
    header = QRectF(MARGIN, GAP / 2, bubble_w, TOOL_HEADER)
    layout.hotspots.append((header, "toggle", ""))
    height = TOOL_HEADER
    if row.attachments:  # the images the tool returned, as thumbnails under its header (click: open)
        per_line, _, tiles_h = tile_grid(len(row.attachments), bubble_w - 2 * PAD)
        for i in range(len(row.attachments)):
            tile = QRectF(MARGIN + PAD + (i % per_line) * (TILE_W + GAP),
                          GAP / 2 + height + (i // per_line) * (TILE_H + GAP), TILE_W, TILE_H)
            layout.tiles.append(tile)
            layout.hotspots.append((tile, f"open-attachment:{i}", ""))
        height += tiles_h
    links = [] if row.tool_running else [(f"open-resource:{i}", f"↗ {name}")
                                         for i, (_, name) in enumerate(resource_links(row.tool_output))]
    if not row.tool_running and needs_sign_in(row.tool_name, row.tool_output, row.tool_error):
        links.append(("mcp-sign-in", "Sign in…"))  # its remote server wants a sign-in: in the browser
    if links:  # resources the result links to (click: read through its server and open)
        layout.hotspots += _actions(links, font, MARGIN + PAD, GAP / 2 + height + 2)
        height += ACTION_LINE + 8
    if expanded:
        parts = [f"Arguments\n```json\n{row.tool_input or '{}'}\n```"]
        output = row.tool_output
        if output is not None:
            shown = output[:PREVIEW_CHARS]
            note = f"\n\n*Showing {len(shown):,} of {row.tool_chars or len(output):,} characters.*" \
                if (row.tool_chars or len(output)) > len(shown) else ""
            fenced = shown.replace("```", "ʼʼʼ")
            parts.append(f"Result\n```text\n{fenced}\n```{note}")
        elif row.tool_running:
            parts.append("_Running…_")
        doc, codes = render_document("\n\n".join(parts), theme, _small(font))
        doc.setTextWidth(bubble_w - 2 * PAD)
        layout.doc, layout.codes = doc, codes
        layout.doc_pos = QPointF(MARGIN + PAD, GAP / 2 + height + 4)
        _code_boxes(layout, layout.doc_pos)
        for i, rect in enumerate(layout.code_rects):
            spot = _actions([(f"copy-code:{i}", "Copy")], font, 0, 0, right=rect.right() - 2)[0][0]
            layout.hotspots.append((spot.translated(0, rect.top() - spot.height() - 2), f"copy-code:{i}", "Copy"))
        height += doc.size().height() + PAD + 4
        if row.tool_truncated and row.message_id and not row.tool_running:
            layout.hotspots += _actions([("full-output", "Open the full original")], font, MARGIN + PAD,
                                        GAP / 2 + height)
            height += ACTION_LINE + 4
    layout.bubble = QRectF(MARGIN, GAP / 2, bubble_w, height)
    layout.height = height + GAP
    return layout


class LayoutCache:
    """Bounded cache of row layouts keyed by content, width, expansion and theme."""

    def __init__(self, capacity: int = 600) -> None:
        self._items: OrderedDict[tuple[object, ...], RowLayout] = OrderedDict()
        self._capacity = capacity
        self._streams: dict[str, StreamingDocument] = {}
        self._font: tuple[QFont, str] | None = None  # the last font asked about and its key (the same one each time)
        self._math: dict[tuple[object, ...], tuple[ChatRow, float, bool, Theme, QFont]] = {}  # awaiting formulas

    def key(self, row: ChatRow, width: float, expanded: bool, theme: Theme, font: QFont) -> tuple[object, ...]:
        """The cache key of a row's layout."""
        known = self._font
        if known is None or font != known[0]:  # comparing fonts costs a tenth of building the key string
            known = self._font = (QFont(font), font.key())
        return (row, round(width), expanded, theme.dark, known[1])

    def peek(self, row: ChatRow, width: float, expanded: bool, theme: Theme, font: QFont) -> RowLayout | None:
        """The cached layout, or None (never computes)."""
        return self._items.get(self.key(row, width, expanded, theme, font))

    def get(self, row: ChatRow, width: float, expanded: bool, theme: Theme, font: QFont) -> RowLayout:
        """The cached layout, computed on a miss."""
        key = self.key(row, width, expanded, theme, font)
        layout = self._items.get(key)
        if layout is None:
            layout = compute_layout(row, width, expanded, theme, font, self._stream_for(row, theme, font))
            self._items[key] = layout
            if layout.math_pending:
                self._math[key] = (row, width, expanded, theme, QFont(font))
            if len(self._items) > self._capacity:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return layout

    def _stream_for(self, row: ChatRow, theme: Theme, font: QFont) -> StreamingDocument | None:
        if not row.streaming:
            self._streams.pop(row.key, None)
            return None
        stream = self._streams.get(row.key)
        if stream is None or not stream.fits(theme, font):
            self._streams.clear()  # one reply streams at a time
            stream = self._streams[row.key] = StreamingDocument(theme, font)
        return stream

    def relayout_math(self) -> list[ChatRow]:
        """Lays out again the rows that showed a formula's source while its image rendered; returns those rows."""
        waiting, self._math = self._math, {}
        rows = []
        for key, (row, width, expanded, theme, font) in waiting.items():
            if self._items.pop(key, None) is not None:
                self.get(row, width, expanded, theme, font)
                rows.append(row)
        return rows

    def clear(self) -> None:
        """Drops every layout (theme or font changed)."""
        self._items.clear()
        self._streams.clear()
        self._math.clear()
