"""The desktop app's ToolApprover: a tool on the worker's loop waits on a future while the GUI thread asks the user."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QWidget

from domain.tool_approval import ApprovalDecision, ApprovalRequest
from ui.signals import emit
from ui.widgets.tool_approval import ToolApprovalDialog, decision_of

Present = Callable[[ToolApprovalDialog], None]
"""Shows the dialog without blocking (default: QDialog.open); the answer arrives through its finished signal."""


@dataclass(eq=False)
class _Pending:
    """One question in flight: the request, how to answer the waiting coroutine, and the dialog once shown."""

    request: ApprovalRequest
    answer: Callable[[ApprovalDecision], None]
    withdrawn: bool = False
    dialog: ToolApprovalDialog | None = None


class GuiApprover(QObject):
    """Create on the GUI thread. approve() runs on the worker's loop: it posts the request to the GUI thread and awaits
    a future there; the dialog's answer comes back with loop.call_soon_threadsafe, so the worker's loop keeps running
    (streams, other calls) while the user decides. Closing the dialog, or the turn being cancelled, is a refusal."""

    _asked = Signal(object)  # _Pending
    _withdrawn = Signal(object)  # _Pending

    def __init__(self, window: QWidget | None = None, *, present: Present | None = None) -> None:
        super().__init__()
        self.window = window  # the dialog's parent (window-modal over it); settable once the window exists
        self._present: Present = present or _open
        self._asked.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self._withdrawn.connect(self._withdraw, Qt.ConnectionType.QueuedConnection)

    async def approve(self, request: ApprovalRequest) -> bool:
        """True only when the user pressed Allow once (or Always); Deny, closing the dialog or cancellation is
        False."""
        return await self.decide(request) is not ApprovalDecision.DENY

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        """Allow once, Always (offered when the request can be remembered) or Deny; closing is Deny."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[ApprovalDecision] = loop.create_future()

        def resolve(decision: ApprovalDecision) -> None:
            if not future.done():
                future.set_result(decision)

        def answer(decision: ApprovalDecision) -> None:  # called on the GUI thread
            try:
                loop.call_soon_threadsafe(resolve, decision)
            except RuntimeError:  # the worker's loop is closed: no one waits for the answer any more
                pass

        pending = _Pending(request, answer)
        emit(self._asked, pending)
        try:
            return await future
        except asyncio.CancelledError:
            pending.withdrawn = True
            emit(self._withdrawn, pending)
            raise

    @Slot(object)
    def _show(self, pending: _Pending) -> None:
        if pending.withdrawn:
            return
        dialog = ToolApprovalDialog(pending.request, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)

        def finished(code: int) -> None:
            pending.dialog = None  # deleted on close
            pending.answer(decision_of(code))

        dialog.finished.connect(finished)
        pending.dialog = dialog
        self._present(dialog)

    @Slot(object)
    def _withdraw(self, pending: _Pending) -> None:
        if pending.dialog is not None:
            pending.dialog.reject()


def _open(dialog: ToolApprovalDialog) -> None:
    dialog.open()  # modal to its window, without a nested event loop
