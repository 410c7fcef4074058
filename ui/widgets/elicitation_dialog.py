"""The dialog that shows an MCP server's question (elicitation): form mode, its message, a field per value asked,
and Submit, Decline and Cancel; URL mode, its message, the address in full, and Open, Decline and Cancel. Nothing is
sent to the server (and nothing opened) without the user's answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from domain.mcp_interaction import ElicitAction, ElicitAnswer, Elicitation, ElicitField, coerce
from ui.widgets.tool_approval import visible

DECLINE_CODE = 2  # done() code of Decline (Accepted is 1 = Submit, Rejected 0 = Cancel)


class ElicitationDialog(QDialog):
    """Window-modal; `answer()` is what the user chose once the dialog finished (closing it is Cancel)."""

    def __init__(self, request: Elicitation, parent: QWidget | None = None,
                 opener: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self._opener = opener  # opens a URL-mode question's address (Open)
        self.setObjectName("ElicitationDialog")
        self.setWindowTitle(f"{request.server} asks")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self._request = request
        self._values: dict[str, Any] = {}
        self._inputs: dict[str, QLineEdit | QCheckBox | QComboBox] = {}
        layout = QVBoxLayout(self)
        heading = QLabel(f"The MCP server <b>{_html(request.server)}</b> asks:")
        message = QLabel(visible(request.message))
        message.setWordWrap(True)
        message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(heading)
        layout.addWidget(message)
        if request.url is not None:
            address = QLabel(visible(request.url))
            address.setObjectName("ElicitationUrl")
            address.setWordWrap(True)
            address.setTextFormat(Qt.TextFormat.PlainText)
            address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(address)
        form = QFormLayout()
        for spec in request.fields:
            widget = _input(spec)
            self._inputs[spec.name] = widget
            label = visible(spec.title or spec.name) + (" *" if spec.required else "")
            if spec.description:
                widget.setToolTip(visible(spec.description))
            form.addRow(label, widget)
        layout.addLayout(form)
        self.error = QLabel("")
        self.error.setObjectName("ElicitationError")
        self.error.setWordWrap(True)
        for widget in self._inputs.values():  # what the user types next replaces the last complaint
            if isinstance(widget, QLineEdit):
                widget.textEdited.connect(lambda _text: self.error.clear())
        layout.addWidget(self.error)
        buttons = QDialogButtonBox()
        self.submit_button = QPushButton("Submit" if request.url is None else "Open")
        self.decline_button = QPushButton("Decline")
        self.cancel_button = QPushButton("Cancel")
        buttons.addButton(self.submit_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.decline_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.submit_button.clicked.connect(self._submit)
        self.decline_button.clicked.connect(lambda: self.done(DECLINE_CODE))
        self.cancel_button.clicked.connect(self.reject)
        layout.addWidget(buttons)

    def answer(self) -> ElicitAnswer:
        """Submit: the typed values; Decline; anything else (Cancel, closed): cancelled."""
        code = self.result()
        if code == QDialog.DialogCode.Accepted.value:
            return ElicitAnswer(ElicitAction.ACCEPT, dict(self._values))
        if code == DECLINE_CODE:
            return ElicitAnswer(ElicitAction.DECLINE)
        return ElicitAnswer(ElicitAction.CANCEL)

    def completed_elsewhere(self) -> None:
        """The server says a URL-mode question's step is done: the dialog closes, answered accept (nothing is
        opened; a URL-mode accept carries no values)."""
        self._values = {}
        self.accept()

    def _submit(self) -> None:
        if self._request.url is not None:
            if self._opener is not None:
                self._opener(self._request.url)
            self.accept()
            return
        values: dict[str, Any] = {}
        for spec in self._request.fields:
            widget = self._inputs[spec.name]
            if isinstance(widget, QCheckBox):
                values[spec.name] = widget.isChecked()
                continue
            text = widget.currentText() if isinstance(widget, QComboBox) else widget.text()
            if not text.strip():
                if spec.required:
                    self.error.setText(f"{spec.title or spec.name} needs an answer.")
                    return
                continue
            try:
                values[spec.name] = coerce(text, spec)
            except ValueError as err:
                self.error.setText(f"{spec.title or spec.name}: {err}.")
                return
        self._values = values
        self.accept()


def _input(spec: ElicitField) -> QLineEdit | QCheckBox | QComboBox:
    if spec.kind == "boolean":
        return QCheckBox()
    if spec.choices:
        box = QComboBox()
        box.addItems(list(spec.choices))
        return box
    edit = QLineEdit()
    edit.setObjectName(f"field-{spec.name}")
    if spec.kind in ("number", "integer"):
        edit.setPlaceholderText("a whole number" if spec.kind == "integer" else "a number")
    return edit


def _html(text: str) -> str:
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
