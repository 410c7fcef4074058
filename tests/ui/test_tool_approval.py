"""The desktop tool guard: the approval dialog (plain text, Deny by default), the GUI approver crossing from the worker
loop to the GUI thread and back, and Settings › Tools saving the allowed hosts (junk refused with a message)."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit

from app.gui.approver import GuiApprover
from domain.settings import ToolSettings
from domain.tool_approval import ApprovalRequest
from tests.ui.fake_backend import FakeChatBackend
from ui.viewmodels.settings import SettingsViewModel
from ui.widgets.settings_dialog import SettingsDialog
from ui.widgets.tool_approval import SHOWN_CHARS, ToolApprovalDialog
from ui.worker import AsyncWorker

POST = ApprovalRequest(
    tool="http_request", title="Allow the model to send POST http://nas.lan/api/notes?",
    details=(("Method", "POST"), ("URL", "http://nas.lan/api/notes"),
             ("Headers", "Content-Type: application/json\nX-Token: abc"), ("Body", '{"note": "buy milk"}')),
)


class Asked:
    """Collects the dialogs the approver presents instead of opening them (the test answers them)."""

    def __init__(self) -> None:
        self.dialogs: list[ToolApprovalDialog] = []

    def __call__(self, dialog: ToolApprovalDialog) -> None:
        self.dialogs.append(dialog)


def ask(worker: AsyncWorker, approver: GuiApprover, request: ApprovalRequest = POST) -> list[object]:
    """Starts approve() on the worker's loop; the answer (or error) lands in the returned list."""
    answers: list[object] = []
    worker.call(lambda: approver.approve(request), answers.append, answers.append)
    return answers


def field_text(dialog: ToolApprovalDialog, label: str) -> str:
    field = dialog.fields[label]
    return field.text() if isinstance(field, QLabel) else field.toPlainText()


def test_the_dialog_shows_method_url_headers_and_body_and_both_answers_reach_the_worker(qtbot, worker) -> None:
    asked = Asked()
    approver = GuiApprover(present=asked)
    allowed = ask(worker, approver)
    qtbot.waitUntil(lambda: len(asked.dialogs) == 1)
    dialog = asked.dialogs[0]
    assert dialog.title.text() == POST.title
    assert [field_text(dialog, k) for k in ("Method", "URL", "Headers", "Body")] == [
        "POST", "http://nas.lan/api/notes", "Content-Type: application/json\nX-Token: abc", '{"note": "buy milk"}']
    assert dialog.deny_button.isDefault() and not dialog.allow_button.isDefault()
    dialog.allow_button.click()
    qtbot.waitUntil(lambda: allowed == [True])

    denied = ask(worker, approver)
    qtbot.waitUntil(lambda: len(asked.dialogs) == 2)
    asked.dialogs[1].deny_button.click()
    qtbot.waitUntil(lambda: denied == [False])


def open_dialog() -> ToolApprovalDialog | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, ToolApprovalDialog) and w.isVisible()),
                None)


def test_closing_the_dialog_is_a_refusal(qtbot, worker) -> None:
    approver = GuiApprover()  # the real presentation: dialog.open(), not blocking the test
    answers = ask(worker, approver)
    qtbot.waitUntil(lambda: open_dialog() is not None)
    dialog = open_dialog()
    assert dialog is not None and dialog.isModal()
    dialog.close()
    qtbot.waitUntil(lambda: answers == [False])


def test_the_worker_loop_keeps_running_while_the_user_decides(qtbot, worker) -> None:
    asked = Asked()
    approver = GuiApprover(present=asked)
    answer = ask(worker, approver)
    qtbot.waitUntil(lambda: len(asked.dialogs) == 1)
    other: list[object] = []

    async def meanwhile() -> str:
        await asyncio.sleep(0.01)
        return "still running"

    worker.call(meanwhile, other.append, other.append)
    qtbot.waitUntil(lambda: other == ["still running"])
    assert answer == []  # the question is still open
    asked.dialogs[0].allow_button.click()
    qtbot.waitUntil(lambda: answer == [True])


def test_a_cancelled_request_withdraws_its_dialog(qtbot, worker) -> None:
    asked = Asked()
    approver = GuiApprover(present=asked)
    future = worker.call(lambda: approver.approve(POST), lambda _: None, lambda _: None)
    qtbot.waitUntil(lambda: len(asked.dialogs) == 1)
    finished: list[int] = []
    asked.dialogs[0].finished.connect(finished.append)
    future.cancel()
    qtbot.waitUntil(lambda: finished == [0])


def test_what_the_model_wrote_is_shown_as_plain_visible_text_and_huge_bodies_are_cut(qtbot) -> None:
    request = ApprovalRequest(
        tool="http_request", title="Allow <b>POST</b> http://x.example/?",
        details=(("Method", "POST"), ("Headers", "X-A: 1\r\nX-Injected: yes\u202e"), ("Body", "z" * (SHOWN_CHARS + 5))),
    )
    dialog = ToolApprovalDialog(request)
    qtbot.addWidget(dialog)
    assert dialog.title.text() == "Allow <b>POST</b> http://x.example/?"
    assert dialog.title.textFormat() == Qt.TextFormat.PlainText  # never read as HTML
    assert field_text(dialog, "Headers") == "X-A: 1\\x0d\nX-Injected: yes\\u202e"
    body = dialog.fields["Body"]
    assert isinstance(body, QPlainTextEdit) and body.isReadOnly()
    assert body.toPlainText().endswith("\n[... 5 more characters not shown]")


def test_settings_tools_saves_the_hosts_and_refuses_junk_with_a_message(qtbot, worker) -> None:
    backend = FakeChatBackend()
    backend.tools = ToolSettings(("nas.lan",))
    vm = SettingsViewModel(backend, worker)
    dialog = SettingsDialog(vm)
    qtbot.addWidget(dialog)
    vm.load()
    qtbot.waitUntil(lambda: vm.state.tools is not None and not vm.state.busy)
    page = dialog.tools
    assert page.hosts.toPlainText() == "nas.lan"
    page.hosts.setPlainText("nas.lan\n\nLOCALHOST\n192.168.1.0/24\n")
    page.save.click()
    qtbot.waitUntil(lambda: vm.state.message == "Allowed hosts saved (3 hosts).")
    assert backend.tools == ToolSettings(("nas.lan", "localhost", "192.168.1.0/24"))
    assert page.hosts.toPlainText() == "nas.lan\nlocalhost\n192.168.1.0/24"  # shown as stored
    page.hosts.setPlainText("nas.lan\nhttp://printer.lan:631/admin")
    page.save.click()
    qtbot.waitUntil(lambda: vm.state.error is not None)
    assert vm.state.error == ("'http://printer.lan:631/admin' is a URL; give only its host: printer.lan "
                              "(every port of an allowed host is allowed).")
    assert dialog.status.text() == vm.state.error
    assert backend.tools == ToolSettings(("nas.lan", "localhost", "192.168.1.0/24"))  # nothing half-saved
    assert page.hosts.toPlainText() == "nas.lan\nhttp://printer.lan:631/admin"  # the typing is kept to fix
