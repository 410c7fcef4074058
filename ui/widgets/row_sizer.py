"""Row heights for the chat list: exact once laid out, a cheap estimate until then, refined in idle slices.

QListView asks every row for its size before it paints anything; laying out hundreds of Markdown documents up front
would freeze the window, so unseen rows get an estimate and the exact layouts follow 3 ms at a time,
newest rows first (the view opens at the bottom).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QAbstractScrollArea, QStyle, QStyledItemDelegate

from ui.markdown import split_segments
from ui.models.chat_rows import ChatRow, RowKind
from ui.signals import emit
from ui.theme import Theme
from ui.widgets.row_layout import ACTION_LINE, GAP, MARGIN, MAX_ASSISTANT, PAD, LayoutCache, tile_grid

SLICE_SECONDS = 0.003  # short: while the worker runs Python too, a slice can take twice as long
EXACT_TAIL = 8  # the newest rows, which a view opened at the bottom shows, are laid out at once
Key = tuple[object, ...]
Pending = tuple[QPersistentModelIndex, ChatRow, float, bool, QFont]


def estimate_height(row: ChatRow, width: float, font: QFont) -> int:
    """A quick guess of a text row's height from its length and line breaks (no text layout)."""
    usable = max(200.0, width - 2 * MARGIN)
    bubble = min(usable * 0.78, 720.0) if row.kind is RowKind.USER else min(usable, MAX_ASSISTANT)
    metrics = QFontMetricsF(font)
    per_line = max(10.0, (bubble - 2 * PAD) / max(1.0, metrics.averageCharWidth()))
    lines = 0.0
    for segment in split_segments(row.text or " "):
        if segment.code:
            lines += segment.text.count("\n") + 3.5  # padding and the caption strip above the box
        else:
            lines += sum(max(1, math.ceil(len(p) / per_line)) for p in segment.text.strip("\n").split("\n"))
    captioned = row.model_label or (row.kind is RowKind.ASSISTANT and row.incomplete)
    caption = metrics.height() if row.kind in (RowKind.ASSISTANT, RowKind.ERROR) and captioned else 0.0
    tiles = tile_grid(len(row.attachments), bubble - 2 * PAD)[2]
    return math.ceil(lines * metrics.lineSpacing() + tiles + 2 * PAD + GAP + caption + 4 + ACTION_LINE + GAP / 2)


def layout_width(view: QAbstractScrollArea) -> float:
    """The width rows are laid out for: the viewport's as it is with its vertical scroll bar shown, so that the page
    an open brings in is not laid out a second time when the bar appears (one that overlays the view takes none)."""
    width = view.viewport().width()
    bar = view.verticalScrollBar()
    if (not bar.isVisibleTo(view) and view.verticalScrollBarPolicy() is not Qt.ScrollBarPolicy.ScrollBarAlwaysOff
            and not view.style().styleHint(QStyle.StyleHint.SH_ScrollBar_Transient, None, bar)):
        width -= view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, bar)
    return float(width)


def needs_text_layout(row: ChatRow, expanded: bool) -> bool:
    """Rows whose exact height needs a document layout (the rest are cheap to lay out exactly)."""
    return row.kind in (RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR) or (
        row.kind in (RowKind.TOOL, RowKind.THINKING) and (expanded or row.streaming))


def _near_end(index: QModelIndex | QPersistentModelIndex) -> bool:
    """Whether a row is among the newest EXACT_TAIL, laid out exactly at once (a view opened at the bottom paints them
    next anyway). A row above them is estimated and refined in slices: the first open of a page of 120 lays out 8
    rows at once, not 60 (about 0.3 ms each for a short one)."""
    model = index.model()
    return model is None or index.row() >= model.rowCount() - EXACT_TAIL


class RowSizer(QObject):
    """Answers sizeHint from the layout cache or an estimate, and refines estimates in the background."""

    def __init__(self, cache: LayoutCache, delegate: QStyledItemDelegate, theme: Callable[[], Theme]) -> None:
        super().__init__(delegate)
        self._cache = cache
        self._delegate = delegate
        self._theme = theme
        self._pending: dict[Key, Pending] = {}
        self._estimates: dict[Key, int] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refine)

    def height(self, row: ChatRow, width: float, expanded: bool, font: QFont,
               index: QModelIndex | QPersistentModelIndex) -> int:
        """The row's height: exact when known or cheap, else an estimate (queued for refinement)."""
        theme = self._theme()
        exact = self._cache.peek(row, width, expanded, theme, font)
        if exact is not None:
            return math.ceil(exact.height)
        if not needs_text_layout(row, expanded) or _near_end(index):
            return math.ceil(self._cache.get(row, width, expanded, theme, font).height)
        key = self._cache.key(row, width, expanded, theme, font)
        estimate = self._estimates.get(key)
        if estimate is None:
            estimate = estimate_height(row, width, font)
            self._estimates[key] = estimate
        self._pending[key] = (QPersistentModelIndex(index), row, width, expanded, QFont(font))
        if not self._timer.isActive():
            self._timer.start()
        return estimate

    def is_exact(self, row: ChatRow, width: float, expanded: bool, font: QFont) -> bool:
        """Whether the row's exact layout is known (its height will not change)."""
        return self._cache.peek(row, width, expanded, self._theme(), font) is not None

    def settled(self, row: ChatRow, width: float, expanded: bool, font: QFont, painted_height: int,
                index: QModelIndex | QPersistentModelIndex) -> None:
        """Called after painting a row with its exact layout: a wrong estimate is corrected at once."""
        key = self._cache.key(row, width, expanded, self._theme(), font)
        estimate = self._estimates.pop(key, None)
        self._pending.pop(key, None)
        exact = self._cache.peek(row, width, expanded, self._theme(), font)
        height = math.ceil(exact.height) if exact is not None else painted_height
        # the row was painted in the estimate's rectangle: a different exact height must move the rows below
        if estimate is not None and (estimate != painted_height or height != painted_height):
            QTimer.singleShot(0, lambda i=QPersistentModelIndex(index): self._changed(i))

    def pending_count(self) -> int:
        """Rows still sized by an estimate."""
        return len(self._pending)

    def _changed(self, index: QPersistentModelIndex) -> None:
        model = index.model()
        if index.isValid() and model is not None:
            emit(self._delegate.sizeHintChanged, model.index(index.row(), index.column()))

    def _refine(self) -> None:
        deadline = time.perf_counter() + SLICE_SECONDS
        theme = self._theme()
        changed: QPersistentModelIndex | None = None
        for key, (index, row, width, expanded, font) in sorted(self._pending.items(), key=lambda kv: -kv[1][0].row()):
            del self._pending[key]
            if not index.isValid():
                self._estimates.pop(key, None)
                continue
            height = math.ceil(self._cache.get(row, width, expanded, theme, font).height)
            if height != self._estimates.pop(key, height):
                changed = index
            if time.perf_counter() > deadline:
                break
        if changed is not None:
            self._changed(changed)
        if self._pending:
            self._timer.start()
