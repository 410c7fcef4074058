"""The chat screen's MCP gestures: `/server:prompt` in the composer, and the paperclip's menu listing the servers'
resources and resource templates (a template's values asked in a form) besides Attach files."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, Qt, QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QMenu, QWidget

from domain.mcp_interaction import ElicitAction, Elicitation, ElicitField
from ui.mcp_backend import McpListing, ServerResource
from ui.viewmodels.chat import ChatViewModel
from ui.widgets.attach_wiring import AttachmentWiring
from ui.widgets.chat_view import ChatView
from ui.widgets.composer import Composer
from ui.widgets.elicitation_dialog import ElicitationDialog
from ui.widgets.slash_popup import SlashCompleter

LOADING = "Listing the MCP servers' resources…"
Present = Callable[[QDialog], None]


class McpWiring(QObject):
    """Owned by the main window. `menu` is the paperclip's menu while it shows (tests find its actions there);
    `present` shows a template's form (replaced in tests)."""

    def __init__(self, window: QWidget, vm: ChatViewModel, composer: Composer, attachments: AttachmentWiring,
                 view: ChatView) -> None:
        super().__init__(window)
        vm.mcp.authorization_url.connect(lambda url: view.open_url(QUrl(url)))  # a sign-in from a tool card
        self._window, self._vm, self._composer, self._files = window, vm, composer, attachments
        self.slash = SlashCompleter(composer.edit, vm.mcp, window)
        vm.mcp.prompt_filled.connect(lambda _text: composer.take_focus())
        vm.mcp.resources_ready.connect(self._listed)
        attachments.clip_menu = self.show_menu
        self.menu: QMenu | None = None
        self.present: Present = lambda dialog: dialog.open()

    def show_menu(self) -> bool:
        """The paperclip with an MCP server on for the conversation: a menu of Attach files… and the servers'
        resources (listed as it shows); False when no server is on (the file dialog opens as before). In a new chat
        not stored yet, the servers are asked first, then the menu or the file dialog opens."""
        if self._vm.state.session is None and not self._vm.state.loading:
            self._vm.mcp.servers_on_for_new_chat(lambda on: self._popup() if on else self._files.choose_files())
            return True
        if not any(s.enabled for s in self._vm.state.mcp_servers):
            return False
        self._popup()
        return True

    def _popup(self) -> None:
        """The menu, opening upwards from the paperclip, its resources being listed."""
        if self.menu is not None:  # already showing (the paperclip clicked twice while the servers were asked)
            return
        menu = QMenu(self._window)
        menu.setObjectName("AttachMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        menu.addAction("Attach files…", self._files.choose_files)
        menu.addSection("MCP resources")
        loading = menu.addAction(LOADING)
        loading.setEnabled(False)
        loading.setObjectName("loading")
        self.menu = menu
        menu.destroyed.connect(lambda: setattr(self, "menu", None) if self.menu is menu else None)
        spot = self._composer.clip.mapToGlobal(QPoint(0, 0))
        menu.popup(QPoint(spot.x(), spot.y() - menu.sizeHint().height() - 4))
        self._vm.mcp.load_resources()

    def actions(self) -> list[QAction]:
        """The menu's resource entries now (empty while they are listed or when no menu shows)."""
        menu = self.menu
        return [a for a in menu.actions() if a.data() is not None] if menu is not None else []

    def _listed(self, listing: McpListing) -> None:
        menu = self.menu
        if menu is None:
            return
        for action in menu.actions():
            if action.objectName() == "loading":
                menu.removeAction(action)
        server = None
        for item in listing.resources:
            if item.server != server:
                server = item.server
                header = menu.addAction(server)
                header.setEnabled(False)
            label = f"{item.label}…" if item.template is not None else item.label
            item_of = item.resource or item.template
            about = " ".join((item_of.description if item_of is not None else "").split())[:60]
            action = menu.addAction(f"    {label}\t{about}".rstrip(), self._chooser(item))
            action.setData(item.uri)
            action.setToolTip(item.uri)
        for problem in listing.problems:
            note = menu.addAction(problem if len(problem) <= 90 else problem[:89] + "…")
            note.setEnabled(False)
            note.setToolTip(problem)
        if not listing.resources and not listing.problems:
            menu.addAction("No MCP server on here lists resources.").setEnabled(False)
        menu.adjustSize()
        self._place(menu)

    def _place(self, menu: QMenu) -> None:
        """Opens upwards from the paperclip, its bottom just above it."""
        spot = self._composer.clip.mapToGlobal(QPoint(0, 0))
        menu.move(spot.x(), spot.y() - menu.sizeHint().height() - 4)

    def _chooser(self, item: ServerResource) -> Callable[[], None]:
        return lambda: self._chosen(item)

    def _chosen(self, item: ServerResource) -> None:
        template = item.template
        if template is None:
            self._vm.mcp.attach_resource(item.server, item.uri)
            return
        fields = tuple(ElicitField(name, required=True) for name in template.variables)
        dialog = ElicitationDialog(Elicitation(item.server, f"Which {template.name}? ({template.uri_template})",
                                               fields), self._window)
        dialog.setWindowTitle(f"Attach {template.name} from {item.server}")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)

        def answered(_code: int) -> None:
            answer = dialog.answer()
            if answer.action is ElicitAction.ACCEPT:
                values = {k: str(v) for k, v in answer.values.items()}
                self._vm.mcp.attach_resource(item.server, template.expand(values))

        dialog.finished.connect(answered)
        self.present(dialog)
