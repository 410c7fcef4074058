"""The context panel lists the MCP servers with a box each: unticking one turns it off for this conversation only,
and the gauge is measured again; the tool-definition warning is shown above them."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox

from domain.events import ContextBreakdown, ContextStatus
from domain.mcp import McpServer, McpToolSpec, McpTransport
from tests.ui.window_helpers import demo_sessions, open_session, themed_window

WARNING = ("Tool definitions take 24,310 tokens, 12% of the window (over 10%); turn MCP servers off for this "
           "conversation to free it.")  # the boxes to do so are right below it
SHOWN = WARNING


def test_the_context_panel_turns_an_mcp_server_off_for_this_conversation(qtbot, backend, worker, artifacts) -> None:
    schema = {"type": "object"}
    backend.mcp_servers = [
        McpServer("files", McpTransport.STDIO, command="x", tools=(McpToolSpec("read_file", "", schema),)),
        McpServer("github", McpTransport.STDIO, command="y",
                  tools=tuple(McpToolSpec(f"tool_{i}", "", schema) for i in range(41))),
    ]
    backend.context = ContextStatus(60_000, 200_000, ContextBreakdown(900, 0, 30_000, 4_790, 24_310),
                                    threshold=170_000, warnings=(WARNING,))
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    qtbot.waitUntil(lambda: window.chat_vm.state.mcp_servers != ())
    gauge = window.header.gauge
    qtbot.mouseClick(gauge, Qt.MouseButton.LeftButton, pos=QPoint(gauge.width() // 2, gauge.height() // 2))
    panel = gauge.panel
    assert panel is not None
    qtbot.waitUntil(panel.isVisible)
    assert SHOWN in panel.texts()
    boxes = {b.text(): b for b in panel.findChildren(QCheckBox)}
    assert set(boxes) == {"files — 1 tool", "github — 41 tools"}
    assert all(b.isChecked() for b in boxes.values())
    panel.grab().save(str(artifacts / "context_panel_mcp.png"))

    boxes["github — 41 tools"].setChecked(False)

    qtbot.waitUntil(lambda: ("session_mcp_server", sid, "github", False) in backend.calls)
    qtbot.waitUntil(lambda: [s.enabled for s in window.chat_vm.state.mcp_servers] == [True, False])
    assert backend.mcp_servers[1].disabled_sessions == (sid,)
    qtbot.waitUntil(lambda: any(not b.isChecked() for b in panel.findChildren(QCheckBox) if b.isVisible()))


def test_settings_agents_turns_an_mcp_server_off_for_one_agent(qtbot, backend, worker) -> None:
    backend.mcp_servers = [McpServer("files", McpTransport.STDIO, command="x",
                                     tools=(McpToolSpec("read_file", "", {"type": "object"}),))]
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers != () and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.agents)
    page = dialog.agents
    items = {page.tools.item(i).text(): page.tools.item(i) for i in range(page.tools.count())}
    server = items["MCP server: files (1 tool)"]
    assert server.checkState() == Qt.CheckState.Checked  # a new server is on for every agent
    server.setCheckState(Qt.CheckState.Unchecked)
    page._save()
    qtbot.waitUntil(lambda: ("agent_mcp_servers", "general", ("files",)) in backend.calls)
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers[0].disabled_agents == ("general",))
    saved = next(a for a in backend.agents if a.id == "general")
    assert saved.enabled_tools == ("http_request",)  # the MCP entry is not a built-in tool name


def test_settings_tools_adds_a_server_from_a_command_line_or_a_url(qtbot, backend, worker) -> None:
    backend.mcp_tools_on_add = [McpToolSpec("read_file", "Reads.", {"type": "object"})]
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.tools is not None and not window.settings_vm.state.busy)
    section = dialog.tools.mcp
    section.name.setText("files")
    section.target.setText("python -m 'my server' --root \"/tmp/my notes\"")
    section.add.click()
    qtbot.waitUntil(lambda: window.settings_vm.state.message == "MCP server files added with 1 tool.")
    [server] = backend.mcp_servers
    assert (server.command, server.args) == ("python", ("-m", "my server", "--root", "/tmp/my notes"))
    assert section.tree.topLevelItem(0).text(0) == "files"

    section.name.setText("web")
    section.target.setText("https://mcp.example.com/mcp")
    section.add.click()
    qtbot.waitUntil(lambda: len(backend.mcp_servers) == 2)
    assert backend.mcp_servers[1].url == "https://mcp.example.com/mcp"
    qtbot.waitUntil(lambda: not window.settings_vm.state.busy and section.add.isEnabled())

    section.name.setText("bad name")
    section.target.setText("x")
    section.add.click()
    qtbot.waitUntil(lambda: (window.settings_vm.state.error or "").startswith("Invalid MCP server name 'bad name'"))
    section.name.setText("q")
    section.target.setText("python 'unclosed")
    section.add.click()
    assert window.settings_vm.state.error == "The command line cannot be read: No closing quotation."
    assert len(backend.mcp_servers) == 2
