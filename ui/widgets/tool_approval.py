"""The dialog that asks before a tool does something with side effects: what it wants to send, Allow once or Deny
(and Always, for a tool whose rule can be remembered)."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from domain.tool_approval import ApprovalDecision, ApprovalRequest

ALWAYS_CODE = 2  # done() code of Always (Accepted is 1, Rejected 0)
SHOWN_CHARS = 20_000
SHORT_CHARS = 90
TITLE_CHARS = 160  # the full URL is in the details below
BOX_LINES = 8
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """The text with control and direction-changing characters shown as escapes, so nothing hides in it."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def shown_value(value: str) -> str:
    """A detail as displayed: visible characters, at most SHOWN_CHARS of them, with a note of what was left out."""
    if len(value) <= SHOWN_CHARS:
        return visible(value)
    return visible(value[:SHOWN_CHARS]) + f"\n[... {len(value) - SHOWN_CHARS:,} more characters not shown]"


class ToolApprovalDialog(QDialog):
    """Shows one ApprovalRequest as plain text (title, then each detail); Allow once accepts, Always (when the
    request can be remembered) ends with ALWAYS_CODE, Deny (the default button) and closing the dialog reject."""

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setWindowTitle("Allow this tool request?")
        self.setModal(True)
        title = request.title if len(request.title) <= TITLE_CHARS else request.title[:TITLE_CHARS - 1] + "…"
        self.title = _plain_label(visible(title), self)
        self.title.setObjectName("CardTitle")
        intro = _plain_label(
            f"The model asked to run the MCP tool {request.tool} with these arguments. It runs only if you allow it; "
            "Always allows this tool from now on (Settings › Tools changes that)." if request.can_remember else
            f"The model asked the {request.tool} tool to send this request. Nothing is sent unless you allow it; "
            "you are asked again for every such request.", self)
        intro.setObjectName("Muted")
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.fields: dict[str, QLabel | QPlainTextEdit] = {}
        for label, value in request.details:
            field = self._field(value)
            self.fields[label] = field
            form.addRow(f"{label}:", field)
        buttons = QDialogButtonBox(self)
        self.allow_button: QPushButton = buttons.addButton("Allow once", QDialogButtonBox.ButtonRole.AcceptRole)
        self.always_button: QPushButton | None = None
        if request.can_remember:
            self.always_button = buttons.addButton("Always", QDialogButtonBox.ButtonRole.ActionRole)
            self.always_button.setAutoDefault(False)
            self.always_button.clicked.connect(lambda: self.done(ALWAYS_CODE))
        self.deny_button: QPushButton = buttons.addButton("Deny", QDialogButtonBox.ButtonRole.RejectRole)
        self.allow_button.setAutoDefault(False)
        self.deny_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(640, min(self.sizeHint().height(), 720))
        self.deny_button.setFocus()

    def _field(self, value: str) -> QLabel | QPlainTextEdit:
        text = shown_value(value)
        if "\n" not in text and len(text) <= SHORT_CHARS:
            label = _plain_label(text, self)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            return label
        box = QPlainTextEdit(self)
        box.setReadOnly(True)
        box.setPlainText(text)
        box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = min(max(text.count("\n") + 1, 2), BOX_LINES)
        chrome = 2 * (box.document().documentMargin() + box.frameWidth()) + 16  # + the theme's padding
        box.setFixedHeight(int(box.fontMetrics().lineSpacing() * lines + chrome))
        return box

    @property
    def allowed(self) -> bool:
        """True only when the user pressed Allow once or Always."""
        return self.decision is not ApprovalDecision.DENY

    @property
    def decision(self) -> ApprovalDecision:
        """The answer: Allow once, Always, or Deny (also for a dialog closed without an answer)."""
        return decision_of(self.result())


def decision_of(code: int) -> ApprovalDecision:
    """The decision a dialog's result code stands for."""
    if code == ALWAYS_CODE:
        return ApprovalDecision.ALWAYS
    return ApprovalDecision.ONCE if code == QDialog.DialogCode.Accepted.value else ApprovalDecision.DENY


def _plain_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)  # the model wrote this text: never read it as HTML
    label.setWordWrap(True)
    return label
