"""Settings › Tools' add form takes a command's environment variables or a URL's headers: values masked, sent to the
keychain only, bad rows refused with a clear message and nothing stored."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLineEdit

from domain.mcp import McpServer, McpTransport
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_settings_viewmodel import idle, loaded
from tests.ui.test_tool_guard_screenshots import saved
from tests.ui.window_helpers import settle, themed_window
from ui.viewmodels.settings_mcp import checked_values


def test_a_command_servers_environment_goes_to_the_keychain_and_only_its_names_to_the_state(qtbot, worker) -> None:
    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    vm.add_mcp_server("files", "files-server --root '/my notes'", [("API_TOKEN", "tok-SENTINEL-1"), ("", "")])
    qtbot.waitUntil(lambda: vm.state.mcp_servers != ())
    idle(qtbot, vm)
    server = vm.state.mcp_servers[0]
    assert server.args == ("--root", "/my notes") and server.env_names == ("API_TOKEN",)
    assert backend.mcp_secrets == {"files": {"API_TOKEN": "tok-SENTINEL-1"}}
    assert "tok-SENTINEL-1" not in repr(vm.state)
    assert vm.state.message == ("MCP server files added with 0 tools; 1 environment variable kept in the system "
                                "keychain.")


def test_a_url_servers_rows_are_headers(qtbot, worker) -> None:
    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    vm.add_mcp_server("web", "https://mcp.example.com/mcp", [("Authorization", " Bearer sk-h "), ("X-Team", "a")])
    qtbot.waitUntil(lambda: vm.state.mcp_servers != ())
    assert vm.state.mcp_servers[0].header_names == ("Authorization", "X-Team")
    assert backend.mcp_secrets == {"web": {"Authorization": "Bearer sk-h", "X-Team": "a"}}


def test_bad_rows_are_refused_with_a_clear_message_and_nothing_is_stored(qtbot, worker) -> None:
    backend = FakeChatBackend()
    vm = loaded(qtbot, backend, worker)
    cases = {
        ("", "v"): "The environment variable in row 1 has a value but no name.",
        ("MY TOKEN", "v"): "The environment variable name 'MY TOKEN' contains a space; names have none.",
        ("TOKEN=abc", "v"): "The environment variable name 'TOKEN=abc' contains =; type the value in its own box.",
    }
    for row, message in cases.items():
        vm.add_mcp_server("files", "files-server", [row])
        assert vm.state.error == message
    vm.add_mcp_server("files", "files-server", [("A", "1"), ("A", "2")])
    assert vm.state.error == "The environment variable 'A' is given twice."
    vm.add_mcp_server("web", "https://mcp.example.com/mcp", [("Authorization: Bearer", "x")])
    assert vm.state.error == "The header name 'Authorization: Bearer' contains a space; names have none."
    vm.add_mcp_server("files", "files-server", [("1ABC", "v")])  # the use case's own check, through the backend
    qtbot.waitUntil(lambda: vm.state.error == "Invalid environment variable name '1ABC'.")
    assert backend.mcp_servers == [] and backend.mcp_secrets == {}


def test_header_name_with_a_colon_is_refused() -> None:
    assert checked_values([("Authorization:", "Bearer x")], headers=True) == (
        "The header name 'Authorization:' contains :; type the value in its own box.")
    assert checked_values([("X-A", "1"), ("", "")], headers=True) == {"X-A": "1"}


def test_without_a_keychain_a_server_with_values_is_not_added(qtbot, worker) -> None:
    backend = FakeChatBackend(keychain_problem="No system keychain is available.")
    vm = loaded(qtbot, backend, worker)
    vm.add_mcp_server("files", "files-server", [("API_TOKEN", "tok")])
    qtbot.waitUntil(lambda: vm.state.error is not None)
    assert (vm.state.error or "").startswith("The MCP server 'files' was not added: its environment and header")
    assert backend.mcp_servers == [] and backend.mcp_secrets == {}


def test_the_add_form_edits_masked_values_and_shows_refusals_in_the_dialog(qtbot, backend, worker, artifacts) -> None:
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.tools is not None and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    section = dialog.tools.mcp
    section.name.setText("web")
    section.target.setText("https://mcp.example.com/mcp")
    assert section.values.title.text().startswith("HTTP headers") and section.values.add_row_button.text() == (
        "Add header")
    section.values.add_row_button.click()
    section.values.add_row_button.click()
    (key, value, _), (key2, value2, _) = section.values.rows
    key.setText("Authorization")
    value.setText("Bearer sk-web-SENTINEL")
    key2.setText("X Team")
    value2.setText("blue")
    assert value.echoMode() is QLineEdit.EchoMode.Password and value2.echoMode() is QLineEdit.EchoMode.Password
    settle(qtbot, worker)
    assert saved(dialog, artifacts / "settings_mcp_add.png").width() >= 800

    section.add.click()
    assert dialog.status.text() == "The header name 'X Team' contains a space; names have none."
    assert backend.mcp_servers == []
    section.values.rows[1][2].click()  # remove the bad row
    assert [k for k, _ in section.values.values()] == ["Authorization"]
    section.add.click()
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers != () and not window.settings_vm.state.busy)
    assert backend.mcp_secrets == {"web": {"Authorization": "Bearer sk-web-SENTINEL"}}
    assert section.tree.topLevelItem(0).text(0) == "web"
    assert section.name.text() == "" and section.values.rows == []  # the form is emptied once the server is stored

    section.target.setText("npx -y server")
    assert section.values.title.text().startswith("Environment variables")


def test_settings_change_a_servers_sampling_rule_and_its_folders(qtbot, backend, worker) -> None:
    backend.mcp_servers = [McpServer("files", McpTransport.STDIO, command="files-server", roots=("/home/u/notes",))]
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.mcp_servers != () and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.tools)
    section = dialog.tools.mcp
    top = section.tree.topLevelItem(0)
    box = section.tree.itemWidget(top, 1)
    assert isinstance(box, QComboBox) and box.currentText() == "sampling: ask"
    assert (top.child(0).text(0), top.child(0).text(2)) == ("folder", "/home/u/notes")

    box.setCurrentText("sampling: allow")
    qtbot.waitUntil(lambda: backend.mcp_servers[0].sampling_always and not window.settings_vm.state.busy)
    assert window.settings_vm.state.message == "files: requests to use your model are run without asking."

    top = section.tree.topLevelItem(0)
    top.setSelected(True)
    section.choose_folder = lambda: "/home/u/project"
    section.add_root.click()
    qtbot.waitUntil(lambda: backend.mcp_servers[0].roots == ("/home/u/notes", "/home/u/project"))
    qtbot.waitUntil(lambda: section.tree.topLevelItem(0).childCount() == 2 and not window.settings_vm.state.busy)
    section.tree.clearSelection()
    section.tree.topLevelItem(0).child(0).setSelected(True)
    assert section.remove_root.isEnabled()
    section.remove_root.click()
    qtbot.waitUntil(lambda: backend.mcp_servers[0].roots == ("/home/u/project",))
    assert ("mcp_roots", "files", (), ("/home/u/notes",)) in backend.calls
    box = section.tree.itemWidget(section.tree.topLevelItem(0), 1)
    assert isinstance(box, QComboBox) and box.currentText() == "sampling: allow"
