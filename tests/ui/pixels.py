"""Pixel measurements on grabbed widgets: WCAG contrast of drawn text against its background."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage


def luminance(color: QColor) -> float:
    """WCAG relative luminance of an sRGB color."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.red()) + 0.7152 * channel(color.green()) + 0.0722 * channel(color.blue())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colors (1 to 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def pixels(image: QImage, rect: QRect | None = None) -> list[QColor]:
    """Every pixel of the image (or of a rectangle of it)."""
    r = rect or image.rect()
    r = r.intersected(image.rect())
    return [image.pixelColor(x, y) for y in range(r.top(), r.bottom() + 1) for x in range(r.left(), r.right() + 1)]


def background(image: QImage, rect: QRect | None = None) -> QColor:
    """The most common color in the area: the background text is drawn on."""
    counts = Counter(c.rgb() for c in pixels(image, rect))
    return QColor.fromRgb(counts.most_common(1)[0][0])


def text_contrast(image: QImage, rect: QRect | None = None) -> float:
    """Contrast of the strongest drawn pixel (a glyph's core) against the area's background; 1.0 means no text shows."""
    bg = background(image, rect)
    return max((contrast(c, bg) for c in pixels(image, rect)), default=1.0)
