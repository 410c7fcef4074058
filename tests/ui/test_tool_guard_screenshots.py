"""Renders the tool-approval dialog and Settings › Tools to PNGs under tests/_artifacts/ (looked at by a person)."""

from __future__ import annotations

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QPlainTextEdit

from domain.settings import ToolSettings
from domain.tool_approval import ApprovalRequest
from tests.ui.window_helpers import settle, themed_window
from ui.widgets.tool_approval import ToolApprovalDialog


def saved(widget, path) -> QImage:  # type: ignore[no-untyped-def]
    assert widget.grab().save(str(path))
    return QImage(str(path))


def test_tool_approval_dialog_screenshot(qtbot, backend, worker, artifacts) -> None:
    window = themed_window(qtbot, backend, worker)
    body = '{\n  "title": "Quarterly numbers",\n  "content": "Revenue up 12%; churn flat.",\n  "folder": "reports"\n}'
    request = ApprovalRequest(
        tool="http_request", title="Allow the model to send POST http://192.168.1.20:8080/api/notes?",
        details=(("Method", "POST"), ("URL", "http://192.168.1.20:8080/api/notes"),
                 ("Headers", "Content-Type: application/json\nAuthorization: Bearer notes-app-token"), ("Body", body)),
    )
    dialog = ToolApprovalDialog(request, window)
    dialog.open()
    qtbot.waitUntil(dialog.isVisible)
    settle(qtbot, worker)
    image = saved(dialog, artifacts / "tool_approval.png")
    assert image.width() >= 600 and image.height() >= 300
    assert dialog.deny_button.isDefault()
    for name in ("Headers", "Body"):  # short enough to be read whole, without scrolling
        box = dialog.fields[name]
        assert isinstance(box, QPlainTextEdit) and not box.verticalScrollBar().isVisible()
    dialog.reject()


def test_settings_tools_screenshot(qtbot, backend, worker, artifacts) -> None:
    backend.tools = ToolSettings(("localhost", "nas.lan", "192.168.1.0/24"))
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.tools is not None and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    settle(qtbot, worker)
    assert dialog.tools.hosts.toPlainText() == "localhost\nnas.lan\n192.168.1.0/24"
    image = saved(dialog, artifacts / "settings_tools.png")
    assert image.width() >= 800 and image.height() >= 600


def test_settings_tools_lists_mcp_servers_and_their_tools_screenshot(qtbot, backend, worker, artifacts) -> None:
    from domain.mcp import McpServer, McpToolSpec, McpTransport, ToolPermission

    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    files = McpServer("files", McpTransport.STDIO, command="/usr/bin/python3", args=("-m", "tests.mcp.server"),
                      tools=(McpToolSpec("read_file", "Read a text file by name.", schema),
                             McpToolSpec("big_file", "Return a large text of the given size in kilobytes.", schema),
                             McpToolSpec("fail", "Always fails with the reason given.", schema)),
                      permissions={"read_file": ToolPermission.ALLOW, "fail": ToolPermission.DENY})
    web = McpServer("web", McpTransport.HTTP, url="https://mcp.example.com/mcp",
                    tools=(McpToolSpec("search", "Search the web and return the top results.", schema),))
    backend.mcp_servers = [files, web]
    backend.tools = ToolSettings(("nas.lan",))
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers != () and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    section = dialog.tools.mcp
    tree = section.tree
    assert [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())] == ["files", "web"]
    first = tree.topLevelItem(0)
    assert [first.child(i).text(0) for i in range(first.childCount())] == ["read_file", "big_file", "fail"]
    rules = [tree.itemWidget(first.child(i), 1).currentText() for i in range(first.childCount())]
    assert rules == ["allow", "ask", "deny"]
    first.setSelected(True)
    assert section.open_log.isEnabled() and section.refresh.isEnabled()
    settle(qtbot, worker)
    image = saved(dialog, artifacts / "settings_mcp.png")
    assert image.width() >= 800 and image.height() >= 600

    tree.itemWidget(first.child(1), 1).setCurrentText("allow")  # a rule changed in the list is stored
    qtbot.waitUntil(lambda: ("mcp_permission", "files", "big_file", "allow") in backend.calls)
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers[0].permission("big_file") is ToolPermission.ALLOW)
