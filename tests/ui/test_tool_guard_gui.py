"""The tool guard in the desktop app end to end: real Container, real SDK adapter, the fake Anthropic server, a local
echo server. A local host is refused until Settings › Tools allows it; a POST waits for the approval dialog."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from app.gui.application import Running, wait_until
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.echo_server import EchoServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.ui.live_window import live_window
from ui.models.chat_rows import RowKind
from ui.widgets.tool_approval import ToolApprovalDialog


class CommandBrain:
    """`GET URL` or `POST URL` in the user's message becomes that http_request; a tool result is then quoted back."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Guard")
        results = [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]
        if results:
            self.results.extend(results)
            return Reply.of_text("Tool said: " + results[-1].text[:60])
        method, _, url = request.last_user_text.partition(" ")
        call = {"url": url, "method": method}
        if method == "POST":
            call |= {"headers": {"Content-Type": "text/plain"}, "body": "buy milk"}
        return Reply(tool_calls=(ToolCall("http_request", call),))


def approval_dialog() -> ToolApprovalDialog | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, ToolApprovalDialog) and w.isVisible()),
                None)


def turn(app: QApplication, running: Running, brain: CommandBrain, text: str,
         answer: Callable[[ToolApprovalDialog], None] | None = None) -> ToolResultPart:
    vm = running.window.chat_vm
    before = len(brain.results)
    assert vm.send(text)
    if answer is not None:
        assert wait_until(app, lambda: approval_dialog() is not None, timeout=30), vm.state.error
        dialog = approval_dialog()
        assert dialog is not None and dialog.parentWidget() is running.window and dialog.isModal()
        answer(dialog)
    assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) > before
                      and vm.last_reply().startswith("Tool said"), timeout=30), vm.state.error
    assert not any(r.kind is RowKind.ERROR for r in vm.model.rows())
    return brain.results[-1]


def test_settings_tools_opens_a_local_host_and_a_post_waits_for_the_users_answer(
    qapp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)
    brain = CommandBrain()
    with EchoServer() as echo, live_window(brain, monkeypatch) as (app, running, _servers):
        window, vm = running.window, running.window.chat_vm
        vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)

        refused = turn(app, running, brain, f"GET {echo.url}/page")
        assert refused.is_error and "Settings → Tools → Allowed hosts" in refused.text
        assert echo.received.requests == []

        window.open_settings()
        settings = window.settings_dialog
        assert settings is not None
        assert wait_until(app, lambda: window.settings_vm.state.tools is not None
                          and not window.settings_vm.state.busy)
        settings.tabs.setCurrentWidget(settings.tools)
        settings.tools.hosts.setPlainText("127.0.0.1\n")
        settings.tools.save.click()
        assert wait_until(app, lambda: window.settings_vm.state.message == "Allowed hosts saved (1 host).")
        settings.close()

        reached = turn(app, running, brain, f"GET {echo.url}/page")
        assert not reached.is_error and reached.text.startswith("HTTP 200")

        shown: list[tuple[str, str]] = []

        def allow(dialog: ToolApprovalDialog) -> None:
            shown.extend((k, f.text()) for k, f in dialog.fields.items() if isinstance(f, QLabel))
            dialog.allow_button.click()

        posted = turn(app, running, brain, f"POST {echo.url}/notes", allow)
        assert shown == [("Method", "POST"), ("URL", f"{echo.url}/notes"), ("Headers", "Content-Type: text/plain"),
                         ("Body", "buy milk")]
        assert not posted.is_error and posted.text.startswith("HTTP 201")

        denied = turn(app, running, brain, f"POST {echo.url}/other", lambda d: d.deny_button.click())
        assert denied.is_error and "The user did not allow this POST request" in denied.text
        assert [r[:3] for r in echo.received.requests] == [
            ("GET", "/page", ""), ("POST", "/notes", "buy milk")]
