"""The paperclip's MCP resource menu in a brand new chat (no conversation stored yet): it lists the servers'
resources, the one chosen goes into the draft and is sent with the first message, against the real server
(tests/mcp/gui_server.py) as a subprocess, through the real Container."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.mcp import McpServer, McpTransport
from domain.models import MessageType
from tests.fakes_turn import FakeAdapterFactory, reply
from tests.ui.window_helpers import themed_window

PROVIDER = "anthropic"
SERVER = McpServer("notes", McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.gui_server"),
                   timeout_s=60)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Container, FakeAdapterFactory]]:
    factory = FakeAdapterFactory(default_completion="A title")
    c = Container.build(tmp_path / "home", adapter_factory=factory)
    c.set_api_key(PROVIDER, "sk-ant-test")
    tools = asyncio.run(c.mcp.list_tools(SERVER))  # the real server, started once
    c.storage.mcp_servers.save(McpServer(**{**SERVER.__dict__, "tools": tuple(tools)}))
    yield c, factory
    c.close()


def labels(window) -> list[str]:
    return [a.text().split("\t")[0].strip() for a in window.mcp.actions()]


def test_a_resource_picked_in_a_new_unsent_chat_goes_with_its_first_message(
        qtbot, worker, world: tuple[Container, FakeAdapterFactory], monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    c, factory = world
    window = themed_window(qtbot, ContainerBackend(c), worker)
    vm = window.chat_vm
    qtbot.waitUntil(lambda: vm.state.selection is not None)
    assert vm.state.session is None  # a new chat: nothing stored yet
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a: (asked.append("x"), ([], ""))[1]))

    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "today" in labels(window), timeout=30_000)
    assert asked == []  # the menu, not the file dialog
    menu = window.mcp.menu
    assert menu is not None and menu.actions()[0].text() == "Attach files…"
    next(a for a in window.mcp.actions() if a.text().startswith("    today\t")).trigger()
    menu.close()
    qtbot.waitUntil(lambda: len(vm.state.pending) == 1 and vm.state.pending[0].attachment is not None,
                    timeout=30_000)
    assert vm.state.session is None  # still unsent

    adapter = factory.adapter(PROVIDER)
    adapter.scripts.append(reply("Milk and Ada."))
    assert vm.submit("What is on my list?")
    qtbot.waitUntil(lambda: len(adapter.requests) == 1 and not vm.state.streaming and vm.state.session is not None,
                    timeout=30_000)
    sent = adapter.requests[0].messages[-1]
    assert [c.media.data(a) for a in sent.attachments] == [b"Buy milk. Call Ada."]
    [stored] = [m for m in c.messages.snapshot(vm.state.session.id) if m.type is MessageType.USER]
    assert stored.content == "What is on my list?" and [a.name for a in stored.attachments] == ["today.txt"]


def test_without_any_mcp_server_the_paperclip_of_a_new_chat_opens_the_file_dialog(
        qtbot, worker, world: tuple[Container, FakeAdapterFactory], monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    c, _ = world
    c.storage.mcp_servers.delete("notes")
    window = themed_window(qtbot, ContainerBackend(c), worker)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a: (asked.append("x"), ([], ""))[1]))
    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: asked == ["x"])
    assert window.mcp.menu is None
