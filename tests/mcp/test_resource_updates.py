"""An attached MCP resource is subscribed to; after its server says it changed, the conversation's next send re-reads
it and attaches the new contents with a notice, against the real protocol server (tests/mcp/protocol_server.py) run
as one subprocess for the module, through the desktop app's backend over the real Container."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.mcp import McpServer, McpTransport
from domain.models import MessageType
from tests.fakes_turn import FakeAdapterFactory, reply, tool_round
from ui.backend_types import Selection

PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"
SERVER_ARGS = ("-m", "tests.mcp.protocol_server")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Container, FakeAdapterFactory]]:
    factory = FakeAdapterFactory(default_completion="A title")
    c = Container.build(tmp_path_factory.mktemp("home"), adapter_factory=factory)
    c.set_api_key(PROVIDER, "sk-ant-test")
    server = McpServer("proto", McpTransport.STDIO, command=sys.executable, args=SERVER_ARGS, timeout_s=60)
    tools = asyncio.run(c.mcp.list_tools(server))  # the one server process of this module
    c.storage.mcp_servers.save(McpServer(**{**server.__dict__, "tools": tuple(tools)}))
    yield c, factory
    c.close()


async def _events(stream: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in stream]


async def _marked(c: Container, uri: str) -> None:
    """Waits until the server's notifications/resources/updated reached the hub (handled on its own loop)."""
    changes = c.mcp.catalog().resource_changes  # type: ignore[attr-defined]
    for _ in range(200):
        if changes.pending("proto", uri):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{uri} was never marked changed")


def _texts(c: Container, message: Any) -> list[str]:
    return [c.media.data(a).decode("utf-8") for a in message.attachments]


async def test_an_attached_resource_changed_by_a_tool_is_attached_again_before_the_next_send(
        world: tuple[Container, FakeAdapterFactory]) -> None:
    c, factory = world
    backend = ContainerBackend(c)
    await backend.set_mcp_tool_permission("proto", "edit_live", "allow")
    sid = c.create_session(provider_id=PROVIDER, model_id=MODEL).id
    selection = Selection(PROVIDER, MODEL)
    previews = await backend.attach_mcp_resource("proto", "notes://live", sid)
    assert [p.attachment.name for p in previews] == ["live.txt"]
    adapter = factory.adapter(PROVIDER)
    adapter.scripts.extend([tool_round(("t1", "proto__edit_live", {"text": "Version 2."})), reply("Edited.")])
    await _events(backend.send(sid, "Rewrite my notes.", selection, [p.attachment for p in previews]))
    assert _texts(c, adapter.requests[0].messages[-1]) == ["Version 1."]
    await _marked(c, "notes://live")

    adapter.scripts.append(reply("They say Version 2."))
    await _events(backend.send(sid, "What do they say now?", selection))
    sent = adapter.requests[-1].messages[-1]
    assert sent.type is MessageType.USER and _texts(c, sent) == ["Version 2."]
    assert sent.content == "What do they say now?\n\n[notes://live changed; its new contents are attached.]"
    stored = [m for m in c.messages.snapshot(sid) if m.type is MessageType.USER][-1]
    assert _texts(c, stored) == ["Version 2."]

    adapter.scripts.append(reply("Still Version 2."))  # unchanged since: nothing attached again
    await _events(backend.send(sid, "And now?", selection))
    assert adapter.requests[-1].messages[-1].attachments == () and \
        adapter.requests[-1].messages[-1].content == "And now?"


async def test_a_resource_read_for_a_new_chats_draft_is_watched_once_its_first_message_created_the_conversation(
        world: tuple[Container, FakeAdapterFactory]) -> None:
    c, factory = world
    backend = ContainerBackend(c)
    await backend.set_mcp_tool_permission("proto", "edit_live", "allow")
    previews = await backend.attach_mcp_resource("proto", "notes://live", None)  # no conversation yet
    before = c.media.data(previews[0].attachment).decode("utf-8")
    sid = c.create_session(provider_id=PROVIDER, model_id=MODEL).id  # what the first send does, then it sends
    selection = Selection(PROVIDER, MODEL)
    adapter = factory.adapter(PROVIDER)
    adapter.scripts.extend([tool_round(("t1", "proto__edit_live", {"text": before + " Then more."})), reply("Ok.")])
    await _events(backend.send(sid, "Add to my notes.", selection, [p.attachment for p in previews]))
    assert c.mcp_watch.of(sid) == [("proto", "notes://live")]
    await _marked(c, "notes://live")

    adapter.scripts.append(reply("Read."))
    await _events(backend.send(sid, "And now?", selection))
    sent = adapter.requests[-1].messages[-1]
    assert _texts(c, sent) == [before + " Then more."]
    assert sent.content == "And now?\n\n[notes://live changed; its new contents are attached.]"
