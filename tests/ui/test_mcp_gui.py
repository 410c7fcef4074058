"""MCP tools in the desktop app end to end: real Container and worker, the real test MCP server (stdio subprocess),
the fake Anthropic server. An `ask` tool waits for the dialog (Always stores allow), Settings › Tools lists the server
and its tools, Stop cancels a call that never answers, and closing the app leaves no server running."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from app.container import Container
from app.gui.application import wait_until
from domain.mcp import ToolPermission
from domain.usecases.generate_title import TITLE_SYSTEM
from domain.usecases.mcp_servers import AddMcpServerUseCase
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.test_done_when import children_running
from tests.ui.live_window import live_window
from tests.ui.test_tool_guard_gui import approval_dialog
from ui.models.chat_rows import RowKind


class McpBrain:
    """`CALL tool` in the user's message becomes a call of files__tool; its result is then quoted back."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("MCP")
        results = [p for p in request.messages[-1].parts if isinstance(p, ToolResultPart)]
        if results:
            self.results.extend(results)
            return Reply.of_text("Tool said: " + results[-1].text[:60])
        tool = request.last_user_text.split()[1]
        return Reply(tool_calls=(ToolCall(f"files__{tool}", {"path": "notes.txt"} if tool == "read_file" else {}),))


def settings_shot(widget: QWidget, path: object) -> bool:
    return bool(widget.grab().save(str(path)))


async def _add_files_server() -> None:
    container = Container.build()
    try:
        await AddMcpServerUseCase(container.mcp_servers, container.mcp_secrets, container.mcp)(
            "files", command=[sys.executable, "-m", "tests.mcp.server"], timeout_s=60)
    finally:
        container.close()


def test_mcp_tools_in_the_desktop_app(qapp, monkeypatch: pytest.MonkeyPatch, artifacts) -> None:
    import asyncio

    asyncio.run(_add_files_server())
    brain = McpBrain()
    with live_window(brain, monkeypatch) as (app, running, _servers):
        window, vm = running.window, running.window.chat_vm
        vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)

        assert vm.send("CALL read_file")
        assert wait_until(app, lambda: approval_dialog() is not None, timeout=30), vm.state.error
        dialog = approval_dialog()
        assert dialog is not None and dialog.always_button is not None
        arguments = dialog.fields["Arguments"]
        assert isinstance(arguments, QPlainTextEdit)
        assert arguments.toPlainText() == '{\n  "path": "notes.txt"\n}'
        assert settings_shot(dialog, artifacts / "mcp_approval.png")
        dialog.always_button.click()
        assert wait_until(app, lambda: not vm.state.streaming and vm.last_reply().startswith("Tool said"),
                          timeout=30), vm.state.error
        assert brain.results[-1].text == "contents of notes.txt"

        assert vm.send("CALL read_file")  # Always: runs without asking again
        assert wait_until(app, lambda: not vm.state.streaming and len(brain.results) == 2, timeout=30)
        assert approval_dialog() is None and not any(r.kind is RowKind.ERROR for r in vm.model.rows())

        window.open_settings()
        settings = window.settings_dialog
        assert settings is not None
        assert wait_until(app, lambda: window.settings_vm.state.mcp_servers != ()
                          and not window.settings_vm.state.busy)
        settings.tabs.setCurrentWidget(settings.tools)
        tree = settings.tools.mcp.tree
        server = tree.topLevelItem(0)
        assert server.text(0) == "files" and server.childCount() == 10
        assert window.settings_vm.state.mcp_servers[0].permission("read_file") is ToolPermission.ALLOW
        assert tree.itemWidget(server.child(0), 1).currentText() == "allow"
        app.processEvents()
        assert settings_shot(settings, artifacts / "settings_mcp_real.png")
        settings.close()

        assert vm.send("CALL hang")  # Stop cancels a call that never answers
        assert wait_until(app, lambda: approval_dialog() is not None, timeout=30)
        approval_dialog().allow_button.click()  # type: ignore[union-attr]
        wait_until(app, lambda: False, timeout=0.5)
        vm.stop()
        assert wait_until(app, lambda: not vm.state.streaming, timeout=10), "Stop did not end the turn"
        assert len(children_running()) == 1  # the server keeps running for the next call
    assert children_running() == []
