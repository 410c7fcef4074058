"""The desktop app's resource picker subscribes to the resource it attaches: after the real protocol server
(tests/mcp/protocol_server.py, one subprocess for the module) says it changed, the next message sent from the
composer carries its new contents and a notice, through the view model, the bridge and the real Container."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.mcp import McpServer, McpTransport
from tests.fakes_turn import FakeAdapterFactory, reply
from tests.ui.window_helpers import open_session, themed_window

PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"
SERVER = McpServer("proto", McpTransport.STDIO, command=sys.executable, args=("-m", "tests.mcp.protocol_server"),
                   timeout_s=60)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Container, FakeAdapterFactory]]:
    factory = FakeAdapterFactory(default_completion="A title")
    c = Container.build(Path(tmp_path_factory.mktemp("home")), adapter_factory=factory)
    c.set_api_key(PROVIDER, "sk-ant-test")
    tools = asyncio.run(c.mcp.list_tools(SERVER))  # the module's one server process
    c.storage.mcp_servers.save(McpServer(**{**SERVER.__dict__, "tools": tuple(tools)}))
    yield c, factory
    c.close()


def test_a_resource_attached_from_the_picker_is_sent_again_after_its_server_changed_it(
        qtbot, worker, world: tuple[Container, FakeAdapterFactory]) -> None:
    c, factory = world
    adapter = factory.adapter(PROVIDER)
    sid = c.create_session(provider_id=PROVIDER, model_id=MODEL).id
    window = themed_window(qtbot, ContainerBackend(c), worker)
    open_session(qtbot, window, sid)
    vm = window.chat_vm

    vm.mcp.attach_resource("proto", "notes://live")  # what the paperclip menu's resource does
    qtbot.waitUntil(lambda: len(vm.state.pending) == 1 and vm.state.pending[0].attachment is not None,
                    timeout=30_000)
    adapter.scripts.append(reply("Noted."))
    assert vm.submit("Keep these notes.")
    qtbot.waitUntil(lambda: len(adapter.requests) == 1 and not vm.state.streaming, timeout=30_000)
    assert [c.media.data(a) for a in adapter.requests[0].messages[-1].attachments] == [b"Version 1."]

    outcome = asyncio.run(c.mcp.call_tool(SERVER, "edit_live", {"text": "Version 2."}))  # on the hub's loop
    assert outcome.output == "changed; the subscriber was told"
    changes = c.mcp.catalog().resource_changes  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: changes.pending("proto", "notes://live"), timeout=10_000)

    adapter.scripts.append(reply("Version 2 now."))
    assert vm.submit("What do they say now?")
    qtbot.waitUntil(lambda: len(adapter.requests) == 2 and not vm.state.streaming, timeout=30_000)
    sent = adapter.requests[1].messages[-1]
    assert [c.media.data(a) for a in sent.attachments] == [b"Version 2."]
    assert sent.content == "What do they say now?\n\n[notes://live changed; its new contents are attached.]"
