"""The main window: sidebar, header, chat (or the first-run panel), composer, snackbar and keyboard shortcuts."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QStackedWidget, QVBoxLayout, QWidget

from ui.backend import ChatBackend
from ui.markdown import warm_up
from ui.state.chat_state import ChatState
from ui.sync_backend import SyncBackend
from ui.theme import Theme
from ui.viewmodels.app import AppState, AppViewModel
from ui.viewmodels.chat import ChatViewModel
from ui.viewmodels.sessions import SessionsState, SessionsViewModel
from ui.viewmodels.settings import SettingsViewModel
from ui.viewmodels.sync import SyncViewModel
from ui.widgets.attach_wiring import AttachmentWiring
from ui.widgets.chat_dialogs import ChatDialogs
from ui.widgets.chat_page import ChatPage
from ui.widgets.chat_view import ChatView
from ui.widgets.file_menu import FileMenu
from ui.widgets.first_run import FirstRunPanel
from ui.widgets.header import Header
from ui.widgets.import_flow import ImportFlow
from ui.widgets.mcp_wiring import McpWiring
from ui.widgets.paste_flow import OversizedPaste
from ui.widgets.session_menu import SessionExport, SessionPromptFlow, show_shortcuts
from ui.widgets.settings_dialog import SettingsDialog
from ui.widgets.sidebar import Sidebar
from ui.widgets.sidebar_drawer import SidebarDrawer
from ui.widgets.snackbar import Snackbar
from ui.widgets.sync_indicator import SyncIndicator
from ui.worker import AsyncWorker


async def _warm_up() -> None:
    warm_up()


class MainWindow(QMainWindow):
    """Composes the view models and widgets; owns nothing but wiring."""

    def __init__(self, backend: ChatBackend, worker: AsyncWorker, theme: Theme) -> None:
        super().__init__()
        self.setWindowTitle("Palimpsest")
        self.resize(1280, 800)
        self.worker = worker
        self._backend = backend
        self.app_vm = AppViewModel(backend, worker)
        self.sessions_vm = SessionsViewModel(backend, worker)
        self.chat_vm = ChatViewModel(backend, worker)
        self.settings_vm = SettingsViewModel(backend, worker)
        sync_backend = cast("SyncBackend | None", backend if hasattr(backend, "sync_info") else None)
        self.sync_vm = SyncViewModel(sync_backend, worker) if sync_backend is not None else None
        self.sync_indicator: SyncIndicator | None = None  # under the sidebar, while sync is set up
        self.settings_dialog: SettingsDialog | None = None

        self.sidebar = Sidebar(self.sessions_vm, theme, self)
        self.header = Header(theme, self)
        self.chat_view = ChatView(self.chat_vm, theme, self)
        chat_page = self.chat_page = ChatPage(self.chat_view, self)
        self.empty_hint, self.chat_stack, self.composer = chat_page.empty_hint, chat_page.chat_stack, chat_page.composer
        self.compacting_bar, self.waiting_bar = chat_page.compacting_bar, chat_page.waiting_bar
        self.first_run = FirstRunPanel(self)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(chat_page)
        self.pages.addWidget(self.first_run)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(self.header)
        right_layout.addWidget(self.pages, 1)
        central = QWidget(self)
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.sidebar)
        layout.addWidget(right, 1)
        self.setCentralWidget(central)
        self.drawer = SidebarDrawer(self.sidebar, layout, self.header)
        self._chat_shown: ChatState | None = None  # the chat state rendered last
        self.snackbar = Snackbar(right)
        self.attachments = AttachmentWiring(self, self.chat_vm, self.composer, self.chat_view)
        self.mcp = McpWiring(self, self.chat_vm, self.composer, self.attachments, self.chat_view)  # prompts, resources
        self.oversized_paste = OversizedPaste(self.composer, self.chat_vm, self.snackbar.show_message)
        self._wire()
        self._shortcuts()
        self._menus()

    # --- wiring ------------------------------------------------------------------------------------
    def _wire(self) -> None:
        app, sessions, chat = self.app_vm, self.sessions_vm, self.chat_vm
        self.dialogs = ChatDialogs(self, chat, self.snackbar)  # compact, reset, the summary, a long text
        app.state_changed.connect(self._render_app)
        sessions.state_changed.connect(self._render_sessions)
        sessions.opened.connect(lambda sid: chat.open(sid) if sid else chat.clear())
        sessions.opened_at.connect(chat.open_at)
        chat.state_changed.connect(self._render_chat)
        chat.session_changed.connect(sessions.upsert)
        chat.notice.connect(lambda text: self.snackbar.show_message(text))
        chat.text_ready.connect(self.dialogs.show_text)
        self.chat_view.summary_requested.connect(self.dialogs.show_summary)
        self.chat_view.copied.connect(lambda text: self.snackbar.show_message(text, ms=1800))
        self.chat_view.typed.connect(self.chat_page.type_into_composer)
        self.composer.send.connect(self._send)
        self.composer.draft_changed.connect(chat.set_draft)
        self.composer.stop.connect(chat.stop)
        self.composer.cancel_queued.connect(chat.cancel_queued)
        self.composer.cancel_edit.connect(chat.cancel_edit)
        chat.text_returned.connect(lambda _text: self.composer.take_focus())
        chat.edit_requested.connect(lambda _text: self.composer.take_focus())  # its text is the draft now
        chat.open_requested.connect(sessions.select)
        self.composer.edit.up_on_empty.connect(chat.edit_last)
        h = self.header
        h.model_chosen.connect(chat.select_model)
        h.agent_chosen.connect(chat.select_agent)
        h.reasoning_chosen.connect(chat.select_reasoning)
        h.web_search_toggled.connect(chat.set_web_search)
        h.compact_requested.connect(self.dialogs.compact_now)
        h.gauge.mcp_server_toggled.connect(chat.set_mcp_server_enabled)
        h.gauge.automatic_window_requested.connect(chat.use_automatic_window)
        h.gauge.settings_requested.connect(self.open_settings_page)
        self.chat_view.settings_requested.connect(self.open_settings_page)
        self.chat_view.model_picker_requested.connect(lambda: h.model.open_popup())
        h.reset_requested.connect(self.dialogs.reset_context)
        h.summary_requested.connect(self.dialogs.show_summary)
        h.originals_toggled.connect(lambda: chat.set_show_originals(not chat.state.show_originals))
        h.settings_requested.connect(self.open_settings)
        h.sidebar_toggled.connect(self.toggle_sidebar)
        sessions.opened.connect(lambda _sid: self.drawer.close())
        sessions.opened_at.connect(lambda _sid, _mid: self.drawer.close())
        self.sidebar.settings_requested.connect(self.open_settings)
        self.first_run.open_settings.connect(self.open_settings)
        self.first_run.add_local.connect(lambda: self.open_settings(local=True))
        self.first_run.dismissed.connect(app.dismiss_first_run)
        self.settings_vm.catalog_changed.connect(app.load)
        if self.sync_vm is not None:  # background sync: every few minutes, and a little after each change here
            sync_vm = self.sync_vm
            indicator = self.sync_indicator = SyncIndicator(self.sidebar)
            layout = self.sidebar.layout()
            if layout is not None:
                layout.addWidget(indicator)
            sync_vm.state_changed.connect(indicator.show_state)
            indicator.clicked.connect(lambda: self.open_settings_page("Sync"))
            sync_vm.synced.connect(self._synced)
            self.chat_vm.session_changed.connect(lambda _session: sync_vm.changed())
            sync_vm.start_background()

    def _shortcuts(self) -> None:
        bindings = {
            "Ctrl+N": self.sessions_vm.new_chat,
            "Ctrl+K": self.sidebar.focus_search,
            "Ctrl+L": self.composer.edit.setFocus,
            "Esc": self._escape,
            "Ctrl+Shift+C": self.dialogs.copy_last_reply,
            "Ctrl+B": self.toggle_sidebar,
        }
        for keys, slot in bindings.items():
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)

    def _menus(self) -> None:
        self.import_flow = ImportFlow(self, self._backend, self.worker)
        self.import_flow.finished.connect(lambda text: self.snackbar.show_message(text, ms=6000))
        self.import_flow.imported.connect(self.sessions_vm.refresh)
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction("&Import conversations…", QKeySequence("Ctrl+O"), self.import_flow.start)
        self.session_export = SessionExport(self, self._backend, self.worker, self.snackbar.show_message)
        self.sidebar.export_requested.connect(self.session_export.ask)
        self.file_menu = FileMenu(file_menu, self.chat_vm, self.session_export, self.open_settings, self.close,
                                  self.snackbar.show_message)
        self.session_prompt = SessionPromptFlow(self, self._backend, self.worker, self.chat_vm.set_system_prompt,
                                                self.snackbar.show_message)
        self.header.prompt_requested.connect(self._edit_session_prompt)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction("&Keyboard shortcuts", QKeySequence("F1"), lambda: show_shortcuts(self))

    def _edit_session_prompt(self) -> None:
        session = self.chat_vm.state.session
        if session is not None:
            self.session_prompt.open(session.id)

    def _escape(self) -> None:
        """Esc cancels an edit, else stops the reply."""
        if self.chat_vm.state.editing is not None:
            self.chat_vm.cancel_edit()
        else:
            self.chat_vm.stop()

    def start(self) -> None:
        """Loads everything the window shows (all of it on the worker thread)."""
        self.worker.call(_warm_up, lambda _: None, lambda _: None)
        self.app_vm.load()
        self.sessions_vm.refresh()
        self._render_chat(self.chat_vm.state)

    # --- rendering ---------------------------------------------------------------------------------
    def _render_app(self, state: AppState) -> None:
        startup = state.startup
        self.chat_vm.set_choices(state.choices, state.agents,
                                 startup.default_selection if startup is not None else None)
        self.first_run.show_state(startup)
        self.pages.setCurrentIndex(1 if state.first_run else 0)
        self.header.set_controls_visible(not state.first_run)
        if state.first_run:
            self.header.title.setText("Welcome")
        if state.error:
            self.snackbar.show_message(state.error, ms=10_000)

    def _render_sessions(self, state: SessionsState) -> None:
        if state.deleted is not None:
            self.snackbar.show_message(
                f"Deleted “{state.deleted.title or 'New chat'}”.", action="Undo",
                on_action=self.sessions_vm.undo_delete, on_expire=self.sessions_vm.forget_undo, ms=7000)
        elif state.error:
            self.snackbar.show_message(state.error)

    def _render_chat(self, state: ChatState) -> None:
        shown, self._chat_shown = self._chat_shown, state
        if shown is not None and shown.composer.draft != state.composer.draft and \
                replace(shown, composer=replace(shown.composer, draft=state.draft)) == state:  # only the draft
            self.composer.show_draft(state.draft)
            return
        title = state.session.title if state.session is not None else ""
        self.setWindowTitle(f"{title} — Palimpsest" if title else "Palimpsest")
        self.header.show_state(state)
        self.composer.show_state(state)
        self.chat_page.show_state(state)

    # --- verbs -------------------------------------------------------------------------------------
    def _send(self, text: str) -> None:
        if self.chat_vm.submit(text):
            self.chat_page.show_list()

    def open_settings(self, local: bool = False) -> None:
        """Opens the settings dialog (non-modal so the chat keeps streaming)."""
        if self.settings_dialog is None:
            self.settings_dialog = SettingsDialog(self.settings_vm, self, sync_vm=self.sync_vm)
        if not self.settings_dialog.isVisible():  # opened again: the last visit's "added" or "saved" is old news
            self.settings_vm.clear_status()
        self.settings_vm.load()
        if self.sync_vm is not None:
            self.sync_vm.load()
        if local:
            self.settings_dialog.providers.focus_endpoint()
        self.settings_dialog.show()
        self.settings_dialog.raise_()

    def _synced(self) -> None:
        """A sync brought changes: the list, and the open conversation unless a turn or compaction is running."""
        self.sessions_vm.refresh()
        chat = self.chat_vm.state
        if not (chat.streaming or chat.compacting or chat.loading):
            self.chat_vm.reload()

    def open_settings_page(self, page: str) -> None:
        """Opens the settings dialog on one page ("Providers", "Models", ...): where an error or a warning is fixed."""
        self.open_settings()
        dialog = self.settings_dialog
        if dialog is not None:
            for i in range(dialog.tabs.count()):
                if dialog.tabs.tabText(i) == page:
                    dialog.tabs.setCurrentIndex(i)

    def set_theme(self, theme: Theme) -> None:
        """Applies new colors to the custom-painted parts."""
        self.chat_view.set_theme(theme)
        self.sidebar.set_theme(theme)
        self.header.gauge.set_theme(theme)

    # --- narrow windows ------------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.drawer.resized(self.width())

    def is_narrow(self) -> bool:
        """Whether the sidebar is a drawer (the window is narrower than NARROW_BELOW)."""
        return self.drawer.narrow

    def toggle_sidebar(self) -> None:
        """Shows or hides the conversations (Ctrl+B, or the ☰ button): inline when wide, as a drawer when narrow."""
        self.drawer.toggle()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.chat_vm.stop()
        super().closeEvent(event)

