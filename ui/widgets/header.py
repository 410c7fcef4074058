"""The chat header: title, agent picker, provider/model picker, context gauge and the context menu."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QMenu, QToolButton, QVBoxLayout, QWidget

from ui.backend import Selection
from ui.signals import emit
from ui.theme import Theme
from ui.viewmodels.chat_state import ChatState
from ui.widgets.context_gauge import ContextGauge
from ui.widgets.elided_label import ElidedLabel


class Header(QWidget):
    """Renders ChatState's header part; emits the user's choices."""

    model_chosen = Signal(object)  # Selection
    agent_chosen = Signal(str)
    compact_requested = Signal()
    reset_requested = Signal()
    summary_requested = Signal(bool)
    originals_toggled = Signal()
    settings_requested = Signal()
    sidebar_toggled = Signal()

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Header")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.sidebar_button = QToolButton(self)
        self.sidebar_button.setObjectName("SidebarToggle")
        self.sidebar_button.setText("☰")
        self.sidebar_button.setToolTip("Show or hide the conversations (Ctrl+B)")
        self.sidebar_button.clicked.connect(self.sidebar_toggled)
        self.title = ElidedLabel("New chat", self, min_chars=12)
        self.title.setObjectName("SessionTitle")
        self.subtitle = ElidedLabel("", self)
        self.subtitle.setObjectName("Muted")
        self.agent = QComboBox(self)
        self.agent.setToolTip("Agent: system prompt and tools")
        self.agent.setMinimumWidth(96)
        self.agent.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.model = QComboBox(self)
        self.model.setToolTip("Provider and model (switch any time; the conversation carries over)")
        self.model.setMinimumWidth(150)
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.gauge = ContextGauge(theme, self)
        self.menu_button = QToolButton(self)
        self.menu_button.setText("Context ▾")
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.menu_button)
        self.compact_action = self._add("Compact now…", self.compact_requested, "Ctrl+Shift+K")
        self.read_action = self._add("Read summary", lambda: emit(self.summary_requested, False))
        self.edit_action = self._add("Edit summary…", lambda: emit(self.summary_requested, True))
        self.originals_action = self._add("Show originals", self.originals_toggled)
        self.menu.addSeparator()
        self.reset_action = self._add("Reset context…", self.reset_requested)
        self.menu.addSeparator()
        self._add("Settings…", self.settings_requested, "Ctrl+,")
        self.menu_button.setMenu(self.menu)

        titles = QVBoxLayout()
        titles.setSpacing(0)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 10, 16, 10)
        layout.setSpacing(10)
        layout.addWidget(self.sidebar_button)
        layout.addLayout(titles, 1)
        layout.addWidget(self.agent)
        layout.addWidget(self.model)
        layout.addWidget(self.gauge)
        layout.addWidget(self.menu_button)
        self._choices: tuple[Selection, ...] = ()
        self._agents: tuple[str, ...] = ()
        self.model.activated.connect(self._model_activated)
        self.agent.activated.connect(self._agent_activated)

    def set_controls_visible(self, visible: bool) -> None:
        """Hides the pickers, gauge and menu (the first-run panel has nothing for them to act on)."""
        for widget in (self.agent, self.model, self.gauge, self.menu_button):
            widget.setVisible(visible)

    def _add(self, text: str, slot: object, shortcut: str | None = None) -> QAction:
        action = self.menu.addAction(text)
        action.triggered.connect(slot)
        if shortcut:
            action.setShortcut(shortcut)
        return action

    def show_state(self, state: ChatState) -> None:
        """Shows the state's title, pickers, gauge and which actions apply."""
        session = state.session
        self.title.setText(session.title if session is not None and session.title else "New chat")
        parts = []
        if session is not None:
            parts.append(f"{session.message_count:,} messages")
            if session.compaction_count:
                parts.append(f"{session.compaction_count} compaction{'s' if session.compaction_count > 1 else ''}")
        choice = state.selected_choice
        if choice is not None and choice.window_is_guess:
            parts.append("window guessed — set it in Settings › Models")
        self.subtitle.setText("  ·  ".join(parts))
        selections = tuple(c.selection for c in state.choices)
        if selections != self._choices:
            with QSignalBlocker(self.model):
                self.model.clear()
                for c in state.choices:
                    self.model.addItem(f"{c.provider_name} · {c.label}", c.selection)
            self._choices = selections
        with QSignalBlocker(self.model):
            self.model.setCurrentIndex(selections.index(state.selection) if state.selection in selections else -1)
        agents = tuple(a.id for a in state.agents)
        if agents != self._agents:
            with QSignalBlocker(self.agent):
                self.agent.clear()
                for a in state.agents:
                    self.agent.addItem(a.name, a.id)
            self._agents = agents
        with QSignalBlocker(self.agent):
            self.agent.setCurrentIndex(agents.index(state.agent_id) if state.agent_id in agents else -1)
        busy = state.streaming or state.compacting
        self.model.setEnabled(not busy)
        self.agent.setEnabled(not busy)
        has_session = session is not None
        has_summary = bool(state.summary)
        self.compact_action.setEnabled(has_session and not busy)
        self.reset_action.setEnabled(has_summary and not busy)
        self.read_action.setEnabled(has_summary)
        self.edit_action.setEnabled(has_summary and not busy)
        self.originals_action.setEnabled(state.summarized_count > 0)
        self.originals_action.setText("Hide originals" if state.show_originals else "Show originals")
        self.gauge.show_state(state.context, state.usage, session.compaction_count if session else 0, state.compacting)

    def _model_activated(self, index: int) -> None:
        selection = self.model.itemData(index)
        if isinstance(selection, Selection):
            emit(self.model_chosen, selection)

    def _agent_activated(self, index: int) -> None:
        agent_id = self.agent.itemData(index)
        if isinstance(agent_id, str):
            emit(self.agent_chosen, agent_id)
