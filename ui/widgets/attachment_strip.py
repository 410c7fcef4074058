"""The composer's row of files to send: a thumbnail (or the kind and page count) and the name of each, removable."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from domain.attachment import AttachmentKind
from ui.attachments_backend import AttachmentPreview
from ui.signals import emit

CHIP_THUMB = 56
NAME_CHARS = 22


def kind_label(preview: AttachmentPreview) -> str:
    """What a tile shows in place of a thumbnail: PDF and its pages, or the file's extension."""
    a = preview.attachment
    if a.kind is AttachmentKind.PDF:
        return f"PDF\n{a.pages or '?'} p."
    ext = a.name.rsplit(".", 1)[-1].upper() if "." in a.name else "TXT"
    return ext[:4]


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    """The name cut in the middle to fit (keeps the extension visible)."""
    return name if len(name) <= limit else name[: limit - 8] + "…" + name[-7:]


class AttachmentChip(QFrame):
    """One file waiting in the composer."""

    removed = Signal()

    def __init__(self, preview: AttachmentPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AttachmentChip")
        self.preview = preview
        thumb = QLabel(self)
        thumb.setObjectName("AttachmentThumb")
        thumb.setFixedSize(CHIP_THUMB, CHIP_THUMB)
        thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        pixmap = QPixmap()
        if preview.thumbnail and pixmap.loadFromData(preview.thumbnail):
            thumb.setPixmap(pixmap.scaled(CHIP_THUMB, CHIP_THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                                          Qt.TransformationMode.SmoothTransformation))
        else:
            thumb.setText(kind_label(preview))
        name = QLabel(short_name(preview.attachment.name), self)
        name.setObjectName("Muted")
        self.remove_button = QToolButton(self)
        self.remove_button.setObjectName("ChipRemove")
        self.remove_button.setText("×")
        self.remove_button.setToolTip(f"Remove {preview.attachment.name} (not sent)")
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(lambda: emit(self.removed))
        self.setToolTip(preview.attachment.label)
        column = QVBoxLayout()
        column.setSpacing(2)
        column.addWidget(thumb, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(name, 0, Qt.AlignmentFlag.AlignHCenter)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 4, 2, 4)
        row.setSpacing(2)
        row.addLayout(column)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)


class AttachmentStrip(QWidget):
    """The chips of the files to send, and "Attaching…" while files are being checked; emits remove(index)."""

    remove = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(2, 0, 2, 0)
        self._layout.setSpacing(8)
        self._busy = QLabel("Attaching…", self)
        self._busy.setObjectName("Muted")
        self._shown: tuple[AttachmentPreview, ...] = ()
        self.chips: list[AttachmentChip] = []
        self.hide()

    def show_pending(self, pending: Sequence[AttachmentPreview], attaching: int, indexing: Sequence[str] = ()) -> None:
        """Rebuilds the chips when the files changed; shows the strip only when there is something in it; says
        which attached documents are being indexed for search."""
        if tuple(pending) != self._shown:
            while self._layout.count():  # chips, the busy label and the stretch: rebuilt in order
                item = self._layout.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None and widget is not self._busy:
                    widget.deleteLater()
            self.chips = []
            for index, preview in enumerate(pending):
                chip = AttachmentChip(preview, self)
                chip.removed.connect(lambda i=index: emit(self.remove, i))
                self._layout.addWidget(chip)
                self.chips.append(chip)
            self._layout.addWidget(self._busy)
            self._layout.addStretch(1)
            self._shown = tuple(pending)
        self._busy.setText("Attaching…" if attaching > 0 else f"Indexing {', '.join(indexing)} for search…")
        self._busy.setVisible(attaching > 0 or bool(indexing))
        self.setVisible(bool(pending) or attaching > 0 or bool(indexing))
