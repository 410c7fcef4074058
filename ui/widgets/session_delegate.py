"""How one row of the sessions sidebar is painted: title, fork badge, time, and the search snippet with its matches."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from domain.ports import MATCH_CLOSE, MATCH_OPEN
from ui.models.session_list import SUBTITLE_ROLE, WHEN_ROLE
from ui.theme import Theme

Index = QModelIndex | QPersistentModelIndex


FORK_SUFFIX = " (fork)"


def fork_depth(title: str) -> tuple[str, int]:
    """A title without its " (fork)" suffixes, and how many there were (a fork of a fork: 2)."""
    depth = 0
    while title.endswith(FORK_SUFFIX) and len(title) > len(FORK_SUFFIX):
        title, depth = title[:-len(FORK_SUFFIX)], depth + 1
    return title, depth


def match_runs(snippet: str) -> list[tuple[str, bool]]:
    """A search snippet cut into (text, is_match) runs at its match marks."""
    runs: list[tuple[str, bool]] = []
    for i, part in enumerate(snippet.split(MATCH_OPEN)):
        if i == 0:
            runs.append((part, False))
            continue
        matched, _, rest = part.partition(MATCH_CLOSE)
        runs += [(matched, True), (rest, False)]
    return [(text, matched) for text, matched in runs if text]


class SessionDelegate(QStyledItemDelegate):
    """Title (a fork's "(fork)" as a badge that is never elided), time and a one-line preview (or search snippet,
    its matches highlighted)."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(200, metrics.height() * 2 + 18)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        t = self.theme
        rect: QRect = option.rect.adjusted(6, 2, -6, -2)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        state = option.state
        if state & QStyle.StateFlag.State_Selected:
            painter.setBrush(QColor(t.user_bubble))
        elif state & QStyle.StateFlag.State_MouseOver:
            painter.setBrush(QColor(t.window))
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(rect, 7, 7)
        font = QFont(option.font)
        metrics = QFontMetrics(font)
        inner = rect.adjusted(10, 7, -10, -7)
        when = str(index.data(WHEN_ROLE) or "")
        small = QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.86)
        when_w = QFontMetrics(small).horizontalAdvance(when) + 6
        title, depth = fork_depth(str(index.data() or ""))
        badge = ("fork" if depth == 1 else f"fork ×{depth}") if depth else ""
        badge_w = QFontMetrics(small).horizontalAdvance(badge) + 12 if badge else 0
        bold = QFont(font)
        bold.setWeight(QFont.Weight.DemiBold)
        painter.setFont(bold)
        painter.setPen(QColor(t.text))
        room = inner.width() - when_w - (badge_w + 6 if badge else 0)
        title = QFontMetrics(bold).elidedText(title, Qt.TextElideMode.ElideRight, max(0, room))
        painter.drawText(inner.topLeft() + QPoint(0, metrics.ascent()), title)
        if badge:
            left = inner.left() + QFontMetrics(bold).horizontalAdvance(title) + 6
            self._badge(painter, QRect(left, inner.top() + 1, badge_w, metrics.height() - 2), badge, small)
        painter.setFont(small)
        painter.setPen(QColor(t.muted))
        painter.drawText(QPoint(inner.right() - when_w + 6, inner.top() + metrics.ascent()), when)
        subtitle = re.sub(r"\s+", " ", str(index.data(SUBTITLE_ROLE) or ""))
        self._snippet(painter, subtitle, small, inner.left(), inner.top() + metrics.height() + metrics.ascent() + 2,
                      inner.width())
        painter.restore()

    def _badge(self, painter: QPainter, rect: QRect, text: str, font: QFont) -> None:
        """A small rounded label (a fork's) in the accent color."""
        accent = QColor(self.theme.accent)
        fill = QColor(accent)
        fill.setAlpha(40)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setFont(font)
        painter.setPen(accent)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _snippet(self, painter: QPainter, text: str, font: QFont, x: int, baseline: int, width: int) -> None:
        """A preview or search snippet on one line, each match in bold accent (elided at the end)."""
        runs = match_runs(text) or [("", False)]
        plain = "".join(part for part, _ in runs)
        shown = QFontMetrics(font).elidedText(plain, Qt.TextElideMode.ElideRight, width)
        cut = len(shown) - (1 if shown != plain else 0)  # characters of the text kept before the ellipsis
        strong = QFont(font)
        strong.setWeight(QFont.Weight.Bold)
        for part, matched in runs:
            if cut <= 0:
                break
            piece, cut = part[:cut], cut - len(part)
            used = strong if matched else font
            painter.setFont(used)
            painter.setPen(QColor(self.theme.accent if matched else self.theme.muted))
            painter.drawText(QPoint(x, baseline), piece)
            x += QFontMetrics(used).horizontalAdvance(piece)
        if shown != plain:
            painter.setFont(font)
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(QPoint(x, baseline), "…")
