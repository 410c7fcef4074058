"""Signing in to a remote MCP server from the desktop app, against the OAuth test server (tests/mcp/oauth_server.py)
as a real process: adding it answers 401, Settings offers Sign in, which hands the authorization URL to the browser
(a test browser here, that follows the redirect to the app's port on 127.0.0.1); then the add completes and the
tokens are in the keychain only."""

from __future__ import annotations

import socket
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from data.mcp.oauth_keychain import read_entry
from tests.fakes_turn import FakeAdapterFactory
from tests.mcp.helpers import free_port
from tests.mcp.test_oauth import _serve
from ui.viewmodels.settings import SettingsViewModel
from ui.widgets.settings_mcp import McpSection


class Browser:
    """Opens the authorization URL the way a browser does (in its own thread), following the redirects."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.landed: list[str] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)

        def visit() -> None:
            with urllib.request.urlopen(url, timeout=30) as page:
                assert b"Signed in" in page.read()
                self.landed.append(page.url)

        threading.Thread(target=visit, daemon=True).start()


@pytest.fixture
def oauth_base() -> Iterator[str]:
    port = free_port()
    process = _serve(port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def test_a_server_asking_for_a_sign_in_gets_a_sign_in_button_that_opens_the_browser(
        qtbot, worker, tmp_path: Path, oauth_base: str) -> None:
    container = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory())
    try:
        vm = SettingsViewModel(ContainerBackend(container), worker)
        section = McpSection(vm)
        vm.state_changed.connect(section.show_state)
        qtbot.addWidget(section)
        browser = Browser()
        section.open_url = browser
        assert not section.sign_in.isEnabled()

        section.name.setText("web")
        section.target.setText(f"{oauth_base}/mcp")
        section.add.click()
        qtbot.waitUntil(lambda: vm.state.error is not None, timeout=60_000)
        assert vm.state.error == ("The MCP server web needs you to sign in: press Sign in, and sign in in the "
                                  "browser that opens.")
        assert "terminal" not in vm.state.error and vm.state.mcp_servers == ()
        assert section.sign_in.isEnabled()

        section.sign_in.click()
        qtbot.waitUntil(lambda: [s.name for s in vm.state.mcp_servers] == ["web"], timeout=60_000)
        assert [t.name for t in vm.state.mcp_servers[0].tools] == ["whoami", "admin_report"]
        assert vm.state.message == "MCP server web added with 2 tools."
        [url] = browser.opened
        assert "/authorize?" in url and "code_challenge_method=S256" in url
        assert browser.landed[0].startswith("http://127.0.0.1:") and "/callback?code=" in browser.landed[0]
        tokens = read_entry("web")["tokens"]
        assert tokens["access_token"] and tokens["refresh_token"]
        database = b"".join(p.read_bytes() for p in (tmp_path / "home").glob("palimpsest.db*"))
        assert tokens["access_token"].encode() not in database

        section.tree.topLevelItem(0).setSelected(True)  # signed in: Refresh uses the stored tokens, no new sign-in
        section.refresh.click()
        qtbot.waitUntil(lambda: vm.state.message == "web: 2 tools.", timeout=60_000)
        assert len(browser.opened) == 1 and section.sign_in.isEnabled()  # a remote server can sign in again
    finally:
        container.close()


def _listening(port: int) -> bool:
    """Whether something listens on the port (tried by binding it: a connection would be a request to answer)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
        return False


def test_cancel_sign_in_stops_waiting_for_the_browser_and_closes_the_redirect_port(
        qtbot, worker, tmp_path: Path, oauth_base: str) -> None:
    container = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory())
    try:
        vm = SettingsViewModel(ContainerBackend(container), worker)
        section = McpSection(vm)
        vm.state_changed.connect(section.show_state)
        qtbot.addWidget(section)
        opened: list[str] = []
        section.open_url = opened.append  # a browser nobody signs in with
        vm.add_mcp_server("web", f"{oauth_base}/mcp")
        qtbot.waitUntil(lambda: vm.state.mcp_sign_in is not None, timeout=60_000)

        section.sign_in.click()
        qtbot.waitUntil(lambda: bool(opened), timeout=60_000)
        redirect = parse_qs(urlparse(opened[0]).query)["redirect_uri"][0]
        port = urlparse(redirect).port
        assert port is not None and _listening(port)
        assert section.sign_in.text() == "Cancel sign-in" and section.sign_in.isEnabled()

        section.sign_in.click()
        assert vm.state.message == "Sign-in cancelled." and "mcp-sign-in" not in vm.state.busy
        qtbot.waitUntil(lambda: not _listening(port), timeout=30_000)
        assert section.sign_in.text() == "Sign in…"
        assert vm.state.mcp_servers == () and read_entry("web").get("tokens") is None
    finally:
        container.close()


def test_a_tool_call_that_needed_a_sign_in_offers_sign_in_in_its_card(qtbot, worker, tmp_path: Path,
                                                                       oauth_base: str) -> None:
    import asyncio

    from PySide6.QtCore import QPoint, QPointF, Qt

    from domain.mcp import McpServer, McpTransport
    from domain.models import Message, MessageType, ToolStatus
    from tests.ui.window_helpers import open_session, themed_window

    container = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory(default_completion="A title"))
    try:
        container.set_api_key("anthropic", "sk-ant-test")
        server = McpServer("web", McpTransport.HTTP, url=f"{oauth_base}/mcp", timeout_s=60)
        container.storage.mcp_servers.save(server)
        failed = asyncio.run(container.mcp.call_tool(server, "whoami", {}))  # what a chat's call gets: no sign-in
        assert failed.is_error and "needs you to sign in" in failed.output
        sid = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-6").id
        add = container.storage.messages.add
        add(Message("q", sid, MessageType.USER, "Who am I?"))
        add(Message("call", sid, MessageType.TOOL_CALL, tool_call_id="t1", tool_name="web__whoami", tool_input="{}",
                    provider_id="anthropic", model_id="claude-sonnet-4-6"))
        add(Message("result", sid, MessageType.TOOL_RESULT, tool_call_id="t1", tool_name="web__whoami",
                    tool_output=failed.output, tool_status=ToolStatus.ERROR))
        window = themed_window(qtbot, ContainerBackend(container), worker)
        open_session(qtbot, window, sid)
        view, model = window.chat_view, window.chat_vm.model
        tool = next(r for r in model.rows() if r.kind.value == "tool")
        layout = view.delegate.layout_for(tool, float(view.viewport().width()), False, view.font())
        [(rect, label)] = [(r, t) for r, a, t in layout.hotspots if a == "mcp-sign-in"]
        assert label == "Sign in…"
        browser = Browser()
        view.open_url = lambda url: browser(url.toString())  # type: ignore[method-assign]
        notices: list[str] = []
        window.chat_vm.notice.connect(notices.append)

        spot = (QPointF(view.visualRect(model.index(model.rows().index(tool))).topLeft()) + rect.center()).toPoint()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(spot))
        qtbot.waitUntil(lambda: "Signed in to web. Retry, or send again, to use its tools." in notices,
                        timeout=60_000)
        assert len(browser.opened) == 1 and "/authorize?" in browser.opened[0]
        assert read_entry("web")["tokens"]["access_token"]
        again = asyncio.run(container.mcp.call_tool(server, "whoami", {}))
        assert not again.is_error and again.output == "signed in through OAuth"
    finally:
        container.close()
