"""Small dialogs of the compaction experience: read or edit the summary, compact now with focus instructions."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


class SummaryDialog(QDialog):
    """Shows the compacted summary read-only, or lets the user edit it."""

    def __init__(self, summary: str, *, editable: bool, count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit summary" if editable else "Summary of earlier messages")
        self.resize(720, 560)
        intro = QLabel(
            f"This summary stands in for {count:,} earlier messages in every request. "
            + ("Edits apply from the next message; the originals stay untouched." if editable
               else "The originals are all still stored — use Show originals to read them."), self)
        intro.setWordWrap(True)
        intro.setObjectName("Muted")
        self.text = QPlainTextEdit(self)
        self.text.setPlainText(summary)
        self.text.setReadOnly(not editable)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel if editable
            else QDialogButtonBox.StandardButton.Close, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def summary(self) -> str:
        """The (edited) text."""
        return self.text.toPlainText()


class CompactDialog(QDialog):
    """Asks for optional focus instructions before compacting now."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compact now")
        self.resize(520, 260)
        intro = QLabel(
            "Summarize the older part of this conversation now. Optionally say what the summary should focus on "
            "(e.g. “keep every file path and the open bugs”).", self)
        intro.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setPlaceholderText("Focus instructions (optional)")
        buttons = QDialogButtonBox(self)
        buttons.addButton("Compact", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def instructions(self) -> str | None:
        """The focus instructions, None when blank."""
        return self.text.toPlainText().strip() or None


def confirm_reset(parent: QWidget) -> bool:
    """Asks before forgetting the summary."""
    answer = QMessageBox.question(
        parent, "Reset context",
        "Forget the summary and send every original message again? Nothing is deleted; if the conversation is "
        "longer than the model's window it will be summarized again.",
    )
    return answer == QMessageBox.StandardButton.Yes


class TextDialog(QDialog):
    """Shows a long text read-only (monospace), e.g. a tool result's full original."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(820, 620)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setPlainText(text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
