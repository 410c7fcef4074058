"""Settings › Sync: where this device syncs and how it went, Sync now, Turn off, and the set-up form."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.sync_backend import SyncInfo, SyncSetup
from ui.viewmodels.sync import SyncState, SyncViewModel

KINDS = (("folder", "Folder (Syncthing, Dropbox, iCloud Drive, OneDrive, a network share)"),
         ("webdav", "WebDAV (Nextcloud, ownCloud, …)"), ("s3", "S3-compatible (AWS, MinIO, Backblaze B2, R2)"))
PLACEHOLDERS = {"folder": "/path/to/a/synced/folder", "webdav": "https://cloud.example/remote.php/dav/files/me/sync",
                "s3": "s3://bucket/prefix"}


def describe_info(info: SyncInfo | None) -> str:
    """The status line of the page."""
    if info is None:
        return "Sync is off. Set it up below to have the same conversations on your other devices."
    where = f"Syncing through {info.kind} {info.location}" + (" (end-to-end encrypted)." if info.encrypted else ".")
    last = f"Last sync: {info.last_at[:19].replace('T', ' ')} UTC" if info.last_at else "Not synced yet"
    summary = f" — {info.last_summary}" if info.last_summary else ""
    return f"{where}\n{last}{summary}.\nWaiting to be sent: {info.waiting} change{'' if info.waiting == 1 else 's'}."


class SyncPage(QWidget):
    """Renders SyncState; its buttons call the view model's verbs."""

    def __init__(self, vm: SyncViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.sync_button = QPushButton("Sync now", self)
        self.off_button = QPushButton("Turn off", self)
        self.sync_button.clicked.connect(vm.sync_now)
        self.off_button.clicked.connect(vm.turn_off)
        buttons = QHBoxLayout()
        buttons.addWidget(self.sync_button)
        buttons.addWidget(self.off_button)
        buttons.addStretch(1)

        self.kind = QComboBox(self)
        for value, label in KINDS:
            self.kind.addItem(label, value)
        self.location = QLineEdit(self)
        self.user = QLineEdit(self)
        self.password = QLineEdit(self)
        self.endpoint = QLineEdit(self)
        self.access_key = QLineEdit(self)
        self.secret_key = QLineEdit(self)
        self.passphrase = QLineEdit(self)
        for secret in (self.password, self.secret_key, self.passphrase):
            secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.encrypt = QCheckBox("Encrypt everything with a passphrase (a new, empty remote)", self)
        self.setup_button = QPushButton("Set up", self)
        self.setup_button.clicked.connect(self._set_up)
        self.form = QFormLayout()
        for label, field in (("Through", self.kind), ("Where", self.location), ("WebDAV user", self.user),
                             ("WebDAV password", self.password), ("S3 endpoint", self.endpoint),
                             ("S3 access key", self.access_key), ("S3 secret key", self.secret_key),
                             ("Passphrase", self.passphrase)):
            self.form.addRow(label, field)
        self.form.addRow("", self.encrypt)
        self.form.addRow("", self.setup_button)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.note = QLabel("Passwords, keys and the passphrase's key are kept in the system keychain; API keys "
                           "never leave this device.", self)
        self.note.setObjectName("Muted")
        self.note.setWordWrap(True)
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        layout.addLayout(self.form)
        layout.addWidget(self.note)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self._kind_changed()
        vm.state_changed.connect(self.show_state)
        self.show_state(vm.state)

    def _kind(self) -> str:
        return str(self.kind.currentData())

    def _kind_changed(self) -> None:
        kind = self._kind()
        self.location.setPlaceholderText(PLACEHOLDERS[kind])
        for field, shown in ((self.user, kind == "webdav"), (self.password, kind == "webdav"),
                             (self.endpoint, kind == "s3"), (self.access_key, kind == "s3"),
                             (self.secret_key, kind == "s3")):
            self.form.setRowVisible(field, shown)

    def _set_up(self) -> None:
        def text(field: QLineEdit) -> str | None:
            return field.text().strip() or None

        self.vm.set_up(SyncSetup(self._kind(), self.location.text(), text(self.user), self.password.text() or None,
                                 text(self.endpoint), text(self.access_key), self.secret_key.text() or None,
                                 self.passphrase.text() or None, self.encrypt.isChecked()))

    def show_state(self, state: SyncState) -> None:
        """Shows the status, enables what can be done now, and the last message or error."""
        self.status.setText(describe_info(state.info) if state.loaded else "Reading the sync status…")
        on = state.info is not None
        self.sync_button.setEnabled(on and not state.busy)
        self.off_button.setEnabled(on and not state.busy)
        self.setup_button.setEnabled(not state.busy)
        self.setup_button.setText("Set up again" if on else "Set up")
        if state.error:
            self.result.setObjectName("ErrorText")
            self.result.setText(state.error)
        else:
            self.result.setObjectName("Muted")
            self.result.setText("Syncing…" if state.busy else (state.message or ""))
        self.result.style().unpolish(self.result)
        self.result.style().polish(self.result)
        if not state.busy and state.message and state.message.startswith("Sync set up"):
            for secret in (self.password, self.secret_key, self.passphrase):
                secret.clear()
