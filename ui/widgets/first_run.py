"""The first-run panel: how to connect a provider, shown instead of an empty chat while no key exists."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.backend import StartupInfo


def _card(title: str, body: str, button: str | None, parent: QWidget) -> tuple[QFrame, QPushButton | None]:
    card = QFrame(parent)
    card.setObjectName("Card")
    row = QHBoxLayout(card)
    row.setContentsMargins(18, 14, 18, 14)
    row.setSpacing(16)
    column = QVBoxLayout()
    column.setSpacing(4)
    heading = QLabel(title, card)
    heading.setObjectName("CardTitle")
    text = QLabel(body, card)
    text.setWordWrap(True)
    text.setTextFormat(Qt.TextFormat.RichText)
    text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    column.addWidget(heading)
    column.addWidget(text)
    row.addLayout(column, 1)
    action = None
    if button:
        action = QPushButton(button, card)
        action.setMinimumWidth(170)
        action.setCursor(Qt.CursorShape.PointingHandCursor)
        row.addWidget(action, 0, Qt.AlignmentFlag.AlignVCenter)
    return card, action


def start_command() -> str:
    """A line that starts Palimpsest with a key in the environment, in this platform's shell."""
    if sys.platform == "win32":
        return 'set ANTHROPIC_API_KEY=paste-your-key && palimpsest'
    return "ANTHROPIC_API_KEY=paste-your-key palimpsest"


def _restyle(widget: QWidget, name: str) -> None:
    widget.setObjectName(name)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


class FirstRunPanel(QWidget):
    """Explains the three ways to connect; says plainly when no keychain is usable."""

    open_settings = Signal()
    add_local = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FirstRun")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        hero = QLabel("Welcome to Palimpsest", self)
        hero.setObjectName("Hero")
        intro = QLabel(
            "Chat with Claude, GPT and Gemini — or a model on your own machine — in conversations that never hit "
            "the context wall: older turns are summarized, and every original stays on this computer.", self)
        intro.setWordWrap(True)
        intro.setObjectName("Muted")
        self.keychain_card, key_button = _card(
            "1 · Add an API key",
            "Paste a key from Anthropic, OpenAI or Google AI Studio. It is stored in your system keychain — "
            "never in Palimpsest's database or files.", "Add a key…", self)
        self.env_card, env_button = _card(
            "2 · Or use an environment variable",
            "Start Palimpsest with <code>ANTHROPIC_API_KEY</code>, <code>OPENAI_API_KEY</code> or "
            "<code>GEMINI_API_KEY</code> set, and it picks the key up without storing it.", "Copy a start command",
            self)
        assert key_button is not None and env_button is not None
        self.key_button, self.env_button = key_button, env_button
        env_button.setToolTip(f"Copies “{start_command()}”: paste it in a terminal with your key")
        env_button.hide()
        self.local_card, local_button = _card(
            "3 · Or a local server",
            "Ollama, LM Studio, llama.cpp and vLLM speak the OpenAI API. Add the endpoint, e.g. "
            "<code>http://localhost:11434/v1</code> — no key needed.", "Add a local endpoint…", self)
        self.keychain_warning = QLabel(self)
        self.keychain_warning.setObjectName("Warning")
        self.keychain_warning.setWordWrap(True)
        self.keychain_warning.hide()
        later = QPushButton("Continue without a key", self)
        later.setFlat(True)
        cards = self._cards = QVBoxLayout()
        cards.setSpacing(10)
        for card in (self.keychain_card, self.env_card, self.local_card):
            cards.addWidget(card, 1)
        column = QVBoxLayout()
        column.setSpacing(14)
        column.addWidget(hero)
        column.addWidget(intro)
        column.addSpacing(8)
        column.addLayout(cards)
        column.addWidget(self.keychain_warning)
        column.addWidget(later, 0, Qt.AlignmentFlag.AlignLeft)
        frame = QWidget(self)
        frame.setMaximumWidth(760)
        frame.setMinimumWidth(460)
        frame.setLayout(column)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 32, 24, 32)
        middle = QHBoxLayout()
        middle.addStretch(1)
        middle.addWidget(frame, 10)
        middle.addStretch(1)
        outer.addStretch(1)
        outer.addLayout(middle)
        outer.addStretch(2)
        key_button.setObjectName("PrimaryButton")
        key_button.clicked.connect(self.open_settings)
        env_button.clicked.connect(self._copy_command)
        if local_button is not None:
            local_button.clicked.connect(self.add_local)
        later.clicked.connect(self.dismissed)

    def show_state(self, startup: StartupInfo | None) -> None:
        """Says plainly when no keychain backend is usable; then the environment variable is the main route (first,
        with the primary button) and the keychain route is disabled, its tooltip saying why."""
        problem = startup.keychain_problem if startup is not None else None
        self.keychain_warning.setVisible(bool(problem))
        if problem:
            self.keychain_warning.setText(problem)
        no_keychain = bool(problem)
        self.key_button.setEnabled(not no_keychain)
        self.key_button.setToolTip(problem or "")
        _restyle(self.key_button, "" if no_keychain else "PrimaryButton")
        self.env_button.setVisible(no_keychain)
        _restyle(self.env_button, "PrimaryButton" if no_keychain else "")
        first, second = (self.env_card, self.keychain_card) if no_keychain else (self.keychain_card, self.env_card)
        self._cards.insertWidget(0, first, 1)
        self._cards.insertWidget(1, second, 1)
        self._title(first).setText("1 · Use an environment variable" if no_keychain else "1 · Add an API key")
        self._title(second).setText("2 · Or add an API key (needs a system keychain)" if no_keychain
                                    else "2 · Or use an environment variable")

    @staticmethod
    def _title(card: QFrame) -> QLabel:
        title = card.findChild(QLabel, "CardTitle")
        assert isinstance(title, QLabel)
        return title

    def _copy_command(self) -> None:
        QGuiApplication.clipboard().setText(start_command())
        self.env_button.setText("Copied — paste it in a terminal")
