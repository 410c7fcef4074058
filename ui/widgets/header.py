"""The chat header: title, agent picker, provider/model picker, context gauge and the context menu."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QMenu, QToolButton, QVBoxLayout, QWidget

from ui.backend import Selection
from ui.models.picker_items import PickerItem, window_label
from ui.signals import emit
from ui.state.chat_state import ChatState, ModelChoice
from ui.theme import Theme
from ui.widgets.context_gauge import ContextGauge
from ui.widgets.elided_label import ElidedLabel
from ui.widgets.icons import globe_icon
from ui.widgets.picker import PickerButton

MODEL_TIP = "Provider and model (switch any time; the conversation carries over)"


class Header(QWidget):
    """Renders ChatState's header part; emits the user's choices."""

    model_chosen = Signal(object)  # Selection
    reasoning_chosen = Signal(object)  # a level of REASONING_LEVELS, or None for the agent's/app's setting
    web_search_toggled = Signal(bool)
    agent_chosen = Signal(str)
    compact_requested = Signal()
    reset_requested = Signal()
    prompt_requested = Signal()
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
        self.title = ElidedLabel("New chat", self, min_chars=8)  # room for the globe at 720 px
        self.title.setObjectName("SessionTitle")
        self.subtitle = ElidedLabel("", self)
        self.subtitle.setObjectName("Muted")
        self.agent = PickerButton(self, placeholder="Search agents…", min_width=96)
        self.agent.setToolTip("Agent: system prompt and tools")
        self.model = PickerButton(self, placeholder="Search models or providers…", min_width=150, searchable_from=0)
        self.model.setToolTip(MODEL_TIP)
        self.reasoning = PickerButton(self, placeholder="Reasoning…", min_width=50, searchable_from=99)
        self.reasoning.setObjectName("ReasoningPicker")
        self.reasoning.compact_text = "✦"  # a narrow window: the mark alone (the level is in the tooltip)
        self.reasoning.setToolTip(REASONING_TIP)
        self.reasoning.hide()  # shown for a model that reasons
        self.web = QToolButton(self)
        self.web.setObjectName("WebSearchToggle")
        self.web.setIcon(globe_icon(theme.muted))  # drawn: no emoji font is assumed
        self.web.setCheckable(True)
        self.web.setAccessibleName("Web search")
        self.web.setMinimumWidth(34)  # never squeezed out of a narrow header
        self.web.toggled.connect(lambda on: emit(self.web_search_toggled, bool(on)))
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
        self.prompt_action = self._add("System prompt…", self.prompt_requested)
        self.reset_action = self._add("Reset context…", self.reset_requested)
        self.menu.addSeparator()
        self._add("Settings…", self.settings_requested)  # Ctrl+, is File › Settings's (one owner, no ambiguity)
        self.menu_button.setMenu(self.menu)

        titles = QVBoxLayout()
        titles.setSpacing(0)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 10, 16, 10)
        layout.setSpacing(6)
        layout.addWidget(self.sidebar_button)
        layout.addLayout(titles, 1)
        layout.addWidget(self.agent)
        layout.addWidget(self.model)
        layout.addWidget(self.web)
        layout.addWidget(self.reasoning)
        layout.addWidget(self.gauge)
        layout.addWidget(self.menu_button)
        self._models_shown: tuple[object, ...] = ()
        self._agents_shown: tuple[object, ...] = ()
        self._reasoning_shown: tuple[object, ...] = ()
        self._controls_visible = True
        self.model.chosen.connect(self._model_chosen)
        self.agent.chosen.connect(self._agent_chosen)
        self.reasoning.chosen.connect(lambda level: emit(self.reasoning_chosen, None if level == DEFAULT else level))

    def set_controls_visible(self, visible: bool) -> None:
        """Hides the pickers, gauge and menu (the first-run panel has nothing for them to act on)."""
        self._controls_visible = visible
        for widget in (self.agent, self.model, self.web, self.gauge, self.menu_button):
            widget.setVisible(visible)
        self.reasoning.setVisible(visible and bool(self._reasoning_shown and self._reasoning_shown[0]))

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
            count = state.message_count  # with what the running turn added, before it is read back
            parts.append(f"{count:,} message{'' if count == 1 else 's'}")
            if session.compaction_count:
                parts.append(f"{session.compaction_count} compaction{'s' if session.compaction_count > 1 else ''}")
        choice = state.selected_choice
        if choice is not None and choice.window_is_guess:
            parts.append("window guessed — set it in Settings › Models")
        self.subtitle.setText("  ·  ".join(parts))
        self.subtitle.setVisible(bool(parts))
        models = (state.choices, state.selection)
        if models != self._models_shown:
            self._models_shown = models
            items = model_items(state.choices)
            self.model.set_items(items, state.selection)
            self.model.legend = feature_legend(items)
            current = state.selected_choice
            self.model.setText(f"{current.label} · {current.provider_name}" if current else "Choose a model…")
            self.model.setToolTip(MODEL_TIP if current is None else
                                  f"{MODEL_TIP}\n{current.provider_name} · {current.selection.model_id} · "
                                  f"{window_label(current.window, current.window_is_guess)} context window")
        self._show_reasoning(state)
        self._show_web(state)
        agents = (tuple((a.id, a.name) for a in state.agents), state.agent_id)
        if agents != self._agents_shown:
            self._agents_shown = agents
            self.agent.set_items([PickerItem(a.name, a.id, tooltip=(a.system_prompt or "")[:200])
                                  for a in state.agents], state.agent_id)
        busy = state.streaming or state.compacting
        self.model.setEnabled(not busy)
        self.agent.setEnabled(not busy)
        self.reasoning.setEnabled(not busy)
        has_session = session is not None
        has_summary = bool(state.summary)
        self.compact_action.setEnabled(has_session and not busy)
        self.prompt_action.setEnabled(has_session)
        own = session is not None and session.system_prompt is not None
        self.prompt_action.setText("System prompt (this conversation's own)…" if own else "System prompt…")
        self.reset_action.setEnabled(has_summary and not busy)
        self.read_action.setEnabled(has_summary)
        self.edit_action.setEnabled(has_summary and not busy)
        self.originals_action.setEnabled(state.summarized_count > 0)
        self.originals_action.setText("Hide originals" if state.show_originals else "Show originals")
        self.gauge.show_state(state.context, state.usage, session.compaction_count if session else 0, state.compacting,
                              state.mcp_servers)

    def _show_reasoning(self, state: ChatState) -> None:
        choice = state.selected_choice
        levels = choice.reasoning_levels if choice is not None else ()
        shown = (levels, state.reasoning)
        if shown == self._reasoning_shown:
            return
        self._reasoning_shown = shown
        self.reasoning.setVisible(bool(levels) and self._controls_visible)
        if not levels:
            return
        current = state.reasoning if state.reasoning in levels else DEFAULT
        self.reasoning.set_items(reasoning_items(levels), current)
        self.reasoning.setText(f"✦ {'default' if current == DEFAULT else current}")
        self.reasoning.setToolTip(f"{REASONING_TIP}\nNow: {REASONING_WORDS.get(str(current), current)}")

    def _show_web(self, state: ChatState) -> None:
        """The globe: checked while the conversation searches the web; where the provider has no search of its own
        it searches through an MCP search server, and is disabled, saying why and how to add one, without one."""
        choice = state.selected_choice
        session = state.session
        on = bool(session.web_search if session is not None else state.header.web_search)
        through = choice.web_search_mcp if choice is not None else ()
        available = choice is not None and (choice.web_search or bool(through))
        self.web.blockSignals(True)  # showing the state is not the user's toggle
        self.web.setChecked(on and available)
        self.web.blockSignals(False)
        self.web.setEnabled(available and not (state.streaming or state.compacting))
        refused = choice.label if choice is not None and choice.web_search_refused else None
        self.web.setToolTip(web_tip(choice.provider_name if choice else None, available, on, refused, through))

    def _model_chosen(self, selection: object) -> None:
        if isinstance(selection, Selection):
            emit(self.model_chosen, selection)

    def _agent_chosen(self, agent_id: object) -> None:
        if isinstance(agent_id, str):
            emit(self.agent_chosen, agent_id)


REASONING_TIP = "Reasoning: how much the model thinks before it answers (this conversation)"


def web_tip(provider: str | None, available: bool, on: bool, refused_by: str | None = None,
            through: Sequence[str] = ()) -> str:
    """The globe's tooltip: what it does, whether it is on, or plainly why it cannot be (`refused_by`: the model
    that does not take its provider's search; `through`: the MCP search tools used instead of a native search)."""
    if provider is not None and through:
        missing = (f"{refused_by} does not take {provider}'s web search" if refused_by is not None
                   else f"{provider} has no web search of its own")
        tools = ", ".join(through)
        if on:
            return f"Web search (this conversation): on, through the MCP tool {tools} ({missing})."
        return (f"Web search (this conversation): off. {missing}; turned on, the model searches through the MCP "
                f"tool {tools}.")
    if provider is not None and refused_by is not None:
        return f"Web search: {refused_by} does not take {provider}'s web search (pick a model that does)."
    if provider is not None and not available:
        return (f"Web search: {provider} has no web search of its own, and no MCP search server is configured "
                "(add one with Add server in Settings › Tools, or `palimpsest mcp add`).")
    state = "on: the model may search the web; sources are listed under its replies" if on else "off"
    return f"Web search (this conversation): {state}."


DEFAULT = "default"  # the picker's entry for "the agent's or the app's setting"
REASONING_WORDS = {
    DEFAULT: "the agent's setting", "off": "no reasoning", "auto": "the provider's default for this model",
    "low": "a little", "medium": "some", "high": "a lot", "max": "as much as the model can",
}


def reasoning_items(levels: Sequence[str]) -> list[PickerItem]:
    """The reasoning picker's rows: the agent's setting, then the levels the model takes, each with what it means."""
    return [PickerItem("Default", DEFAULT, detail="agent", tooltip=REASONING_WORDS[DEFAULT])] + [
        PickerItem(level.capitalize(), level, tooltip=REASONING_WORDS.get(level, level)) for level in levels]


FEATURE_MARKS = {"reasoning": "✦", "images": "◩", "PDFs": "▤"}  # in the picker's detail column; named in the tooltip


def feature_legend(items: Sequence[PickerItem]) -> str:
    """What the capability marks shown in the model list mean ('' when none is shown)."""
    shown = "".join(i.detail for i in items)
    return "   ".join(f"{mark} {name}" for name, mark in FEATURE_MARKS.items() if mark in shown)


def model_items(choices: Sequence[ModelChoice]) -> list[PickerItem]:
    """Picker rows: a header per provider (in the order the choices come), then its models with their window size."""
    items: list[PickerItem] = []
    provider = None
    for c in choices:
        if c.provider_name != provider:
            provider = c.provider_name
            items.append(PickerItem(provider, header=True))
        guess = " (guessed — set it in Settings › Models)" if c.window_is_guess else ""
        marks = "".join(FEATURE_MARKS[f] for f in c.features if f in FEATURE_MARKS)
        takes = f" · takes {', '.join(c.features)}" if c.features else ""
        ending = f" · {c.retirement}" if c.retirement else ""  # the day in the tooltip, a word after the name
        instead = f" · {c.provider_name} names {c.successor} instead" if c.successor else ""
        word = "" if not c.retirement else " (retired)" if c.retired else " (retiring)"
        items.append(PickerItem(
            c.label + word, c.selection, detail=f"{marks}  {window_label(c.window, c.window_is_guess)}".strip(),
            tooltip=(f"{c.selection.model_id} · context window {c.window:,} tokens{guess}" if c.window
                     else f"{c.selection.model_id} · context window unknown") + takes + ending + instead,
            keywords=f"{c.provider_name} {c.selection.model_id} {' '.join(c.features)}"))
    return items
