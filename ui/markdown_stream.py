"""A Markdown document for a reply that is still streaming: each update rebuilds only its unfinished tail."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCursor, QTextDocument

from ui.markdown import Segment, insert_segment, new_document, shrink_trailing_block, split_segments
from ui.theme import Theme


def stream_segments(text: str) -> list[Segment]:
    """Segments of a growing reply, with prose split at blank lines so finished paragraphs stay untouched."""
    out: list[Segment] = []
    for segment in split_segments(text):
        if segment.code:
            out.append(segment)
            continue
        paragraphs = [p for p in segment.text.split("\n\n") if p.strip()]
        out += [Segment(p) for p in paragraphs]
    return out


class StreamingDocument:
    """Keeps the finished segments of a streaming reply laid out; update() replaces only the last one."""

    def __init__(self, theme: Theme, font: QFont) -> None:
        self.theme = theme
        self.font_key = font.key()
        self._font = QFont(font)
        self.doc: QTextDocument = new_document(theme, font)
        self._stable: list[Segment] = []
        self._tail_start = 0
        self.codes: list[str] = []

    def fits(self, theme: Theme, font: QFont) -> bool:
        """Whether this document was built for the given theme and font."""
        return theme == self.theme and font.key() == self.font_key

    def update(self, text: str) -> QTextDocument:
        """Shows `text` (a continuation of the previous text, usually) and returns the document."""
        segments = stream_segments(text) or [Segment(" ")]
        stable, tail = segments[:-1], segments[-1:]
        if stable[:len(self._stable)] != self._stable:  # the text was not a continuation: start over
            width = self.doc.textWidth()
            self.doc = new_document(self.theme, self._font)
            self.doc.setTextWidth(width)
            self._stable, self._tail_start = [], 0
        cursor = QTextCursor(self.doc)
        cursor.setPosition(self._tail_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        done = len(self._stable)
        previous_prose = bool(self._stable) and not self._stable[-1].code
        for i, segment in enumerate(stable[done:] + tail):
            if i == len(stable) - done:  # the tail starts here
                self._tail_start = cursor.position()
            insert_segment(cursor, segment, self.theme, first=done + i == 0, after_prose=previous_prose)
            previous_prose = not segment.code
        if segments[-1].code:
            shrink_trailing_block(self.doc)
        self._stable = stable
        self.codes = [s.text for s in segments if s.code]
        return self.doc
