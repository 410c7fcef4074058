"""Settings › Providers: per provider a masked key field (keychain only), Test connection, base URL; add endpoint."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from domain.models import ProviderApi, ProviderType
from ui.backend import ProviderInfo
from ui.viewmodels.settings import SettingsState, SettingsViewModel


def key_status(info: ProviderInfo) -> str:
    """Where the key comes from, never the key."""
    if info.key_source == "keychain":
        return "Key stored in the system keychain."
    if info.key_source == "environment":
        return f"Key from the environment ({info.env_var or 'variable'})."
    if info.provider.type is ProviderType.OPENAI_COMPATIBLE:
        return "No key (most local servers need none)."
    return "No key yet."


API_CHOICES = (("Auto", "auto"), ("Responses", "responses"), ("Chat Completions", "chat-completions"))
API_VALUES = {ProviderApi.AUTO: "auto", ProviderApi.RESPONSES: "responses",
              ProviderApi.CHAT_COMPLETIONS: "chat-completions"}


class ProviderCard(QGroupBox):
    """One provider's key, base URL and connection test."""

    def __init__(self, info: ProviderInfo, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(f"{info.provider.name}  ·  {info.provider.type.value.replace('_', '-')}", parent)
        self.provider_id = info.provider.id
        self.key = QLineEdit(self)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("Paste an API key")
        self.key.setObjectName(f"key-{info.provider.id}")
        save_key = self.save_key = QPushButton("Save to keychain", self)
        self.remove_key = QPushButton("Remove", self)
        self.key_label = QLabel(self)
        self.key_label.setObjectName("Muted")
        self.url = QLineEdit(self)
        self.url.setPlaceholderText("Default endpoint" if info.provider.type is not ProviderType.OPENAI_COMPATIBLE
                                    else "http://localhost:11434/v1")
        save_url = QPushButton("Save URL", self)
        self.test = QPushButton("Test connection", self)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(save_key)
        key_row.addWidget(self.remove_key)
        url_row = QHBoxLayout()
        url_row.addWidget(self.url, 1)
        url_row.addWidget(save_url)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test)
        test_row.addWidget(self.status, 1)
        form = QFormLayout(self)
        form.addRow("API key", key_row)
        form.addRow("", self.key_label)
        form.addRow("Base URL", url_row)
        self.api: QComboBox | None = None
        if info.provider.type in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
            self.api = QComboBox(self)
            for label, value in API_CHOICES:
                self.api.addItem(label, value)
            self.api.setToolTip("Auto: the Responses API on api.openai.com (reasoning kept between turns and tool "
                                "calls), Chat Completions on any other server.")
            self.api.activated.connect(self._choose_api)
            api_row = QHBoxLayout()
            api_row.addWidget(self.api)
            api_row.addStretch(1)
            form.addRow("API", api_row)
        form.addRow("", test_row)
        save_key.clicked.connect(self._save_key)
        self.key.returnPressed.connect(self._save_key)
        self.remove_key.clicked.connect(lambda: vm.delete_key(self.provider_id))
        save_url.clicked.connect(lambda: vm.set_base_url(self.provider_id, self.url.text()))
        self.test.clicked.connect(lambda: vm.test_connection(self.provider_id))
        self._vm = vm
        self._url_loaded = False

    def _choose_api(self, index: int) -> None:
        assert self.api is not None
        self._vm.set_api(self.provider_id, str(self.api.itemData(index)))

    def _save_key(self) -> None:
        text = self.key.text()
        self.key.clear()  # the key leaves the widget at once; only the keychain keeps it
        self._vm.set_key(self.provider_id, text)

    def show_state(self, info: ProviderInfo, state: SettingsState) -> None:
        """Shows the key source, the URL (once) and the last test result."""
        self.key_label.setText(key_status(info))
        self.remove_key.setEnabled(info.key_source == "keychain")
        problem = state.keychain_problem  # no keychain: the environment variable is the way, Save cannot work
        self.save_key.setEnabled(problem is None)
        self.save_key.setToolTip(problem or "Store the key in the system keychain")
        self.key.setEnabled(problem is None)
        variable = info.env_var or "the provider's environment variable"
        self.key.setPlaceholderText("Paste an API key" if problem is None else f"No keychain here: use {variable}")
        self.key.setToolTip(problem or "")
        if problem is not None and info.key_source is None:
            self.key_label.setText(f"No key yet. Start Palimpsest with {variable} set (no keychain to store one in).")
        if self.api is not None:
            self.api.setCurrentIndex(max(0, self.api.findData(API_VALUES[info.provider.api])))
        if not self._url_loaded or not self.url.isModified():
            self.url.setText(info.provider.base_url or "")
            self._url_loaded = True
        testing = f"test:{self.provider_id}" in state.busy
        self.test.setEnabled(not testing)
        self.test.setText("Testing…" if testing else "Test connection")
        self.status.setText(state.provider_status.get(self.provider_id, ""))
        ok = state.provider_status.get(self.provider_id, "").startswith("✓")
        self.status.setObjectName("Muted" if ok else "ErrorText")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)


class ProvidersPage(QScrollArea):
    """Cards for every provider plus the Add OpenAI-compatible endpoint form."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.setWidgetResizable(True)
        body = QWidget(self)
        self._layout = QVBoxLayout(body)
        self.keychain_warning = QLabel(body)
        self.keychain_warning.setObjectName("Warning")
        self.keychain_warning.setWordWrap(True)
        self.keychain_warning.hide()
        self._layout.addWidget(self.keychain_warning)
        self._cards_box = QVBoxLayout()
        self._layout.addLayout(self._cards_box)
        add = QGroupBox("Add OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, …)", body)
        self.endpoint_name = QLineEdit(add)
        self.endpoint_name.setPlaceholderText("Ollama")
        self.endpoint_url = QLineEdit(add)
        self.endpoint_url.setPlaceholderText("http://localhost:11434/v1")
        add_button = QPushButton("Add endpoint", add)
        form = QFormLayout(add)
        form.addRow("Name", self.endpoint_name)
        form.addRow("Base URL", self.endpoint_url)
        form.addRow("", add_button)
        self._layout.addWidget(add)
        self._layout.addStretch(1)
        self.setWidget(body)
        self._cards: dict[str, ProviderCard] = {}
        add_button.clicked.connect(self._add)

    def _add(self) -> None:
        self._vm.add_endpoint(self.endpoint_name.text(), self.endpoint_url.text())

    def focus_endpoint(self) -> None:
        """Puts the cursor in the new-endpoint form (from the first-run panel)."""
        self.endpoint_name.setFocus()
        if not self.endpoint_name.text():
            self.endpoint_name.setText("Ollama")
            self.endpoint_url.setText("http://localhost:11434/v1")

    def show_state(self, state: SettingsState) -> None:
        """Adds cards for new providers and refreshes each."""
        self.keychain_warning.setVisible(bool(state.keychain_problem))
        self.keychain_warning.setText(state.keychain_problem or "")
        for info in state.providers:
            card = self._cards.get(info.provider.id)
            if card is None:
                card = ProviderCard(info, self._vm, self)
                self._cards[info.provider.id] = card
                self._cards_box.addWidget(card)
            card.show_state(info, state)
        if "add-endpoint" not in state.busy and state.error is None and state.message and \
                state.message.startswith("Added"):
            self.endpoint_name.clear()
            self.endpoint_url.clear()
        self.setAlignment(Qt.AlignmentFlag.AlignTop)
