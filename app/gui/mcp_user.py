"""The desktop app's McpUser: an MCP server's question shown as a dialog on the GUI thread while the server's loop
waits on a future; a sampling request asked like a tool's request (Allow once or Deny); the server's word that a
URL-mode question's step is done closes its dialog, or is told in a notice once the dialog was answered."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QDialog, QMessageBox

from app.gui.approver import GuiApprover
from domain.mcp_interaction import ElicitAnswer, Elicitation, SamplingRequest
from domain.tool_approval import ApprovalDecision, ApprovalRequest, ask
from ui.signals import emit
from ui.widgets.elicitation_dialog import ElicitationDialog
from ui.widgets.tool_approval import visible

Present = Callable[[QDialog], None]


class GuiMcpUser(QObject):
    """Create on the GUI thread. elicit() runs on the MCP servers' loop: the dialog opens on the GUI thread, and the
    answer comes back with call_soon_threadsafe; cancelling the call closes the dialog (answered as Cancel)."""

    _asked = Signal(object, object)  # Elicitation, the answer callback
    _completed = Signal(object)  # the Elicitation whose URL-mode step the server says is done

    def __init__(self, approver: GuiApprover, *, present: Present | None = None,
                 opener: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self._approver = approver
        self._opener = opener or _open_url  # a URL-mode question's address, after Open
        self._present: Present = present or (lambda dialog: dialog.open())
        self._notify: Present = present or (lambda notice: notice.show())  # a notice does not block the window
        self._asked.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self._completed.connect(self._done, Qt.ConnectionType.QueuedConnection)
        self._open_urls: dict[str, ElicitationDialog] = {}  # URL-mode dialogs still showing, by elicitation id

    async def elicit(self, request: Elicitation) -> ElicitAnswer:
        """The user's Submit (with the values), Decline or Cancel."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[ElicitAnswer] = loop.create_future()

        def answer(value: ElicitAnswer) -> None:  # on the GUI thread
            def resolve() -> None:
                if not future.done():
                    future.set_result(value)
            try:
                loop.call_soon_threadsafe(resolve)
            except RuntimeError:  # the servers' loop is closed: no one waits any more
                pass

        emit(self._asked, request, answer)
        return await future

    async def approve_sampling(self, request: SamplingRequest) -> ApprovalDecision:
        """Asked with the tool-approval dialog: the server, the estimated cost, the messages and the output limit;
        Allow once runs it, Always runs every request of this server from now on (`mcp sampling NAME ask` revokes
        it)."""
        shown = "\n\n".join(f"{role}: {text}" for role, text in request.messages)
        details = [("Server", request.server), ("Output limit", f"{request.max_tokens:,} tokens, billed to you")]
        if request.estimate is not None:
            details.append(("Estimated cost", request.estimate.describe()))
        if request.system:
            details.append(("System prompt", request.system))
        details.append(("Messages", shown))
        return await ask(self._approver, ApprovalRequest(
            tool=f"{request.server}:sampling", title=f"Let the MCP server {request.server} use your model?",
            details=tuple(details), can_remember=True))

    def elicitation_completed(self, request: Elicitation) -> None:
        """The server's notifications/elicitation/complete (on the servers' loop): shown on the GUI thread."""
        emit(self._completed, request)

    @Slot(object, object)
    def _show(self, request: Elicitation, answer: Callable[[ElicitAnswer], Any]) -> None:
        dialog = ElicitationDialog(request, self._approver.window, opener=self._opener)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        key = request.elicitation_id if request.url is not None else None
        if key:
            self._open_urls[key] = dialog

        def finished(_code: int) -> None:
            if key and self._open_urls.get(key) is dialog:
                del self._open_urls[key]
            answer(dialog.answer())

        dialog.finished.connect(finished)
        self._present(dialog)

    @Slot(object)
    def _done(self, request: Elicitation) -> None:
        """A dialog still asking is closed (answered accept, nothing opened: the step is done); after the user's
        answer, a notice says so."""
        dialog = self._open_urls.pop(request.elicitation_id or "", None)
        if dialog is not None:
            dialog.completed_elsewhere()
            return
        notice = QMessageBox(QMessageBox.Icon.Information, f"{request.server} is done",
                             f"The MCP server {visible(request.server)} says the step at {visible(request.url or '')} "
                             "is done.", QMessageBox.StandardButton.Ok, self._approver.window)
        notice.setObjectName("ElicitationDone")
        notice.setTextFormat(Qt.TextFormat.PlainText)
        notice.setWindowModality(Qt.WindowModality.NonModal)
        notice.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self._notify(notice)


def _open_url(url: str) -> None:
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    QDesktopServices.openUrl(QUrl(url))
