"""Paints a user message's attachment tiles: an image's thumbnail, or a card with the kind, pages and name."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPixmap

from domain.attachment import Attachment, AttachmentKind, human_size
from ui.theme import Theme

ThumbnailSource = Callable[[Attachment], QPixmap | None]


def tile_caption(attachment: Attachment) -> str:
    """The second line of a card: pages and size of a PDF, the size of another file."""
    if attachment.kind is AttachmentKind.PDF:
        pages = f"{attachment.pages} page{'s' if attachment.pages != 1 else ''} · " if attachment.pages else ""
        return pages + human_size(attachment.size)
    return human_size(attachment.size)


def paint_tiles(painter: QPainter, tiles: list[QRectF], attachments: tuple[Attachment, ...], theme: Theme,
                font: QFont, thumbnail: ThumbnailSource | None) -> None:
    """Each attachment in its tile; an image whose thumbnail has not arrived yet shows as a card meanwhile."""
    for rect, attachment in zip(tiles, attachments, strict=False):
        path = QPainterPath()
        path.addRoundedRect(rect, 8, 8)
        pixmap = thumbnail(attachment) if thumbnail is not None and attachment.kind is AttachmentKind.IMAGE else None
        if pixmap is not None and not pixmap.isNull():
            painter.save()
            painter.setClipPath(path)
            painter.fillPath(path, QColor(theme.code_bg))
            scaled = pixmap.scaled(int(rect.width()), int(rect.height()), Qt.AspectRatioMode.KeepAspectRatioByExpanding,
                                   Qt.TransformationMode.SmoothTransformation)
            x = rect.left() + (rect.width() - scaled.width()) / 2
            y = rect.top() + (rect.height() - scaled.height()) / 2
            painter.drawPixmap(int(x), int(y), scaled)
            painter.restore()
            painter.setPen(QPen(QColor(theme.border), 1))
            painter.drawPath(path)
            continue
        painter.fillPath(path, QColor(theme.surface))
        painter.setPen(QPen(QColor(theme.border), 1))
        painter.drawPath(path)
        _card(painter, rect, attachment, theme, font)


def _card(painter: QPainter, rect: QRectF, attachment: Attachment, theme: Theme, font: QFont) -> None:
    big = QFont(font)
    big.setWeight(QFont.Weight.Bold)
    big.setPointSizeF(font.pointSizeF() * 1.15)
    kind = "PDF" if attachment.kind is AttachmentKind.PDF else (
        attachment.name.rsplit(".", 1)[-1].upper()[:4] if "." in attachment.name else attachment.kind.value.upper())
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * 0.82))
    inner = rect.adjusted(10, 8, -10, -8)
    painter.setFont(big)
    painter.setPen(QColor(theme.error_text if attachment.kind is AttachmentKind.PDF else theme.accent))
    painter.drawText(inner.topLeft() + QRectF(0, 0, 1, QFontMetricsF(big).ascent()).bottomLeft(), kind)
    painter.setFont(small)
    metrics = QFontMetricsF(small)
    name = metrics.elidedText(attachment.name, Qt.TextElideMode.ElideMiddle, inner.width())
    painter.setPen(QColor(theme.text))
    painter.drawText(QRectF(inner.left(), inner.bottom() - 2 * metrics.lineSpacing(), inner.width(),
                            metrics.lineSpacing()), Qt.AlignmentFlag.AlignLeft, name)
    painter.setPen(QColor(theme.muted))
    painter.drawText(QRectF(inner.left(), inner.bottom() - metrics.lineSpacing(), inner.width(),
                            metrics.lineSpacing()), Qt.AlignmentFlag.AlignLeft, tile_caption(attachment))
