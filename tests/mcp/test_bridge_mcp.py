"""The desktop app's backend over the real Container: per-agent and per-conversation MCP switches change what the
next request offers; Settings' rule and removal reach storage."""

from __future__ import annotations

from pathlib import Path

from app.container import Container
from app.gui.bridge import ContainerBackend
from data.storage import Storage
from domain.mcp import McpServer, McpToolSpec, McpTransport, ToolPermission
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory
from ui.backend import SessionMcpServer

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


async def test_switches_per_agent_and_conversation_change_the_tools_a_request_offers(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path / "home")
    container = Container(storage, FakeApiKeyStorage({"anthropic": "sk-test"}), FakeAdapterFactory())
    try:
        storage.mcp_servers.save(McpServer("files", McpTransport.STDIO, command="x",
                                           tools=(McpToolSpec("read", "Reads.", SCHEMA),)))
        backend = ContainerBackend(container)
        session = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-6")
        agent = container.contexts.load(session.id).agent

        def offered() -> list[str]:
            return [t.name for t in container.contexts.load(session.id).tools if "__" in t.name]

        assert offered() == ["files__read"]
        assert await backend.session_mcp_servers(session.id) == [SessionMcpServer("files", True, 1)]
        await backend.set_session_mcp_server(session.id, "files", False)
        assert offered() == []
        assert await backend.session_mcp_servers(session.id) == [SessionMcpServer("files", False, 1)]
        await backend.set_session_mcp_server(session.id, "files", True)
        assert offered() == ["files__read"]

        servers = await backend.set_agent_mcp_servers(agent.id, ["files"])
        assert servers[0].disabled_agents == (agent.id,) and offered() == []
        await backend.set_agent_mcp_servers(agent.id, [])
        assert offered() == ["files__read"]

        changed = await backend.set_mcp_tool_permission("files", "read", "deny")
        assert changed.permission("read") is ToolPermission.DENY and offered() == []  # denied tools are not offered
        await backend.remove_mcp_server("files")
        assert await backend.list_mcp_servers() == []
    finally:
        container.close()


async def test_startup_names_the_mcp_tools_that_search_the_web_for_the_globe(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path / "home")
    container = Container(storage, FakeApiKeyStorage({"anthropic": "sk-test"}), FakeAdapterFactory())
    try:
        storage.mcp_servers.save(McpServer("files", McpTransport.STDIO, command="x",
                                           tools=(McpToolSpec("read", "Reads.", SCHEMA),)))
        storage.mcp_servers.save(McpServer("tavily", McpTransport.STDIO, command="y",
                                           tools=(McpToolSpec("tavily-search", "Searches the web.", SCHEMA),)))
        startup = await ContainerBackend(container).startup()
    finally:
        container.close()
    assert startup.mcp_search_tools == ("tavily__tavily-search",)
