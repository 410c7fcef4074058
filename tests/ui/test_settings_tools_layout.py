"""Settings › Tools at 1280×800: nothing overlaps the MCP tool table; an earlier visit's status is not shown again."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from domain.mcp import McpServer, McpToolSpec, McpTransport
from domain.settings import ToolSettings
from tests.ui.window_helpers import themed_window

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def _files_server() -> McpServer:
    return McpServer("files", McpTransport.STDIO, command="/usr/bin/python3", args=("-m", "tests.mcp.server"),
                     tools=tuple(McpToolSpec(f"tool_{i}", "Read a text file by name.", SCHEMA) for i in range(8)))


def _open_tools(qtbot, window):
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.tools is not None and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    qtbot.waitUntil(dialog.tools.isVisible)
    return dialog


def _rect(widget: QWidget, dialog: QWidget) -> QRect:
    return QRect(widget.mapTo(dialog, widget.rect().topLeft()), widget.size())


def test_no_control_overlaps_the_tool_table_at_1280_by_800(qtbot, backend, worker) -> None:
    backend.mcp_servers = [_files_server()]
    backend.tools = ToolSettings(("nas.lan",))
    window = themed_window(qtbot, backend, worker)
    assert (window.width(), window.height()) == (1280, 800)
    dialog = _open_tools(qtbot, window)
    qtbot.waitUntil(lambda: dialog.tools.mcp.tree.topLevelItemCount() == 1)
    section = dialog.tools.mcp
    section.values.add_row("API_TOKEN", "secret")  # a variable row or two make the section taller still
    section.values.add_row("OTHER", "value")
    below = [section.refresh, section.remove, section.open_log, section.name, section.target, section.add,
             section.values.title, section.values.add_row_button, *section.values.rows[-1],
             dialog.tools.hosts, dialog.tools.save]

    def overlapping() -> list[str]:
        table = _rect(section.tree, dialog)
        return [w.text() if hasattr(w, "text") and w.text() else type(w).__name__ for w in below
                if _rect(w, dialog).intersects(table) or _rect(w, dialog).top() < table.bottom()]

    qtbot.waitUntil(lambda: section.values.rows[-1][0].isVisible())
    qtbot.waitUntil(lambda: not overlapping(), timeout=2000)  # once the layout has settled
    assert _rect(section.tree, dialog).height() >= section.tree.minimumHeight()
    buttons = [_rect(b, dialog) for b in (section.refresh, section.remove, section.open_log)]
    adding = _rect(section.name, dialog)
    assert all(not b.intersects(adding) and b.bottom() < adding.top() for b in buttons)


def test_a_status_from_the_last_visit_is_gone_when_settings_open_again(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    dialog = _open_tools(qtbot, window)
    window.settings_vm.save_allowed_hosts("nas.lan")
    qtbot.waitUntil(lambda: dialog.status.text() == "Allowed hosts saved (1 host).")
    dialog.close()
    dialog = _open_tools(qtbot, window)
    assert window.settings_vm.state.message is None
    assert dialog.status.text() == ""
