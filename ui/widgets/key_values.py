"""A small editor of name/value rows (an MCP server's environment variables or headers); values are masked."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget


class KeyValueEditor(QWidget):
    """Rows of a name box and a masked value box, each with a remove button, and a button adding a row."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setObjectName("Muted")
        self._grid = QGridLayout()
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setColumnStretch(1, 1)
        self.rows: list[tuple[QLineEdit, QLineEdit, QPushButton]] = []
        self.add_row_button = QPushButton(self)
        self.add_row_button.clicked.connect(lambda: self.add_row())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addLayout(self._grid)
        bottom = QHBoxLayout()
        bottom.addWidget(self.add_row_button)
        bottom.addStretch(1)
        layout.addLayout(bottom)
        self.set_headers(False)

    def set_headers(self, headers: bool) -> None:
        """Words the editor for HTTP headers (a URL) or environment variables (a command)."""
        self._headers = headers
        what = "HTTP headers" if headers else "Environment variables"
        self.title.setText(f"{what} (optional; values are kept in the system keychain, never in the database)")
        self.add_row_button.setText("Add header" if headers else "Add variable")
        for key, value, _ in self.rows:
            self._word(key, value)

    def add_row(self, key: str = "", value: str = "") -> None:
        """Appends a row, focused on its name box."""
        name_box, value_box = QLineEdit(key, self), QLineEdit(value, self)
        value_box.setEchoMode(QLineEdit.EchoMode.Password)
        remove = QPushButton("Remove", self)
        row = (name_box, value_box, remove)
        remove.clicked.connect(lambda: self._remove(row))
        self._word(name_box, value_box)
        line = len(self.rows)
        self._grid.addWidget(name_box, line, 0)
        self._grid.addWidget(value_box, line, 1)
        self._grid.addWidget(remove, line, 2)
        self.rows.append(row)
        name_box.setFocus()

    def values(self) -> list[tuple[str, str]]:
        """The rows as typed, in order."""
        return [(key.text(), value.text()) for key, value, _ in self.rows]

    def clear(self) -> None:
        """Removes every row (the typed values are gone from the widgets too)."""
        for row in list(self.rows):
            self._remove(row)

    def _word(self, key: QLineEdit, value: QLineEdit) -> None:
        key.setPlaceholderText("Authorization" if self._headers else "API_TOKEN")
        key.setAccessibleName("Header name" if self._headers else "Variable name")
        value.setPlaceholderText("value (hidden)")
        value.setAccessibleName("Header value" if self._headers else "Variable value")

    def _remove(self, row: tuple[QLineEdit, QLineEdit, QPushButton]) -> None:
        self.rows.remove(row)
        for widget in row:
            self._grid.removeWidget(widget)
            widget.deleteLater()
        rest = list(self.rows)
        for line, (key, value, remove) in enumerate(rest):
            self._grid.addWidget(key, line, 0)
            self._grid.addWidget(value, line, 1)
            self._grid.addWidget(remove, line, 2)
