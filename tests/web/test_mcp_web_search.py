"""Web search where the provider has none of its own (an OpenAI-compatible server): with search on, the turn offers
the search tool of the user's MCP search server — even one turned off for this conversation, the globe being the
conversation's later choice — and that tool runs; with search off, a server turned off here offers nothing."""

from __future__ import annotations

from pathlib import Path

from app.container import Container
from domain.events import ToolResultStored
from domain.mcp import McpServer, McpToolSpec, McpTransport, ToolPermission
from domain.mcp_tools import ToolsWithMcp
from domain.provider_ports import ToolContext
from domain.web_support import mcp_search_tools
from tests.fakes_turn import FakeAdapterFactory, FakeToolExecutor, reply, tool_round
from tests.mcp.fakes import FakeConnector, MemoryMcpServers

QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
BRAVE = McpServer("brave", McpTransport.STDIO, command="brave-search",
                  tools=(McpToolSpec("brave_web_search", "Searches the web.", QUERY),
                         McpToolSpec("brave_local_search", "Finds local businesses.", QUERY),
                         McpToolSpec("summarize", "Summarizes a page.", QUERY)),
                  permissions={"brave_web_search": ToolPermission.ALLOW})


def test_the_search_tools_of_a_search_server_are_picked_out_and_an_agent_that_turned_it_off_gets_none() -> None:
    assert [t.name for t in mcp_search_tools([BRAVE], "a1")] == ["brave__brave_web_search",
                                                                 "brave__brave_local_search"]
    off = McpServer("brave", McpTransport.STDIO, command="x", tools=BRAVE.tools, disabled_agents=("a1",))
    assert mcp_search_tools([off], "a1") == []


async def test_a_granted_search_tool_runs_though_its_server_is_off_for_the_conversation() -> None:
    off_here = McpServer("brave", McpTransport.STDIO, command="x", tools=BRAVE.tools, permissions=BRAVE.permissions,
                         disabled_sessions=("s1",))
    connector = FakeConnector()
    tools = ToolsWithMcp(FakeToolExecutor(), MemoryMcpServers(off_here), connector)  # type: ignore[arg-type]
    refused = await tools.execute("brave__brave_web_search", {"query": "q"}, ToolContext("s1", "a1"))
    granted = await tools.execute("brave__brave_web_search", {"query": "q"},
                                  ToolContext("s1", "a1", granted=("brave__brave_web_search",)))
    assert refused.is_error and "turned off here" in refused.output
    assert not granted.is_error and connector.calls == [("brave", "brave_web_search", {"query": "q"})]


async def test_with_search_on_a_compatible_servers_turn_offers_and_runs_the_mcp_search_tool(tmp_path: Path) -> None:
    factory = FakeAdapterFactory(default_completion="A title")
    c = Container.build(tmp_path / "home", adapter_factory=factory)
    connector = FakeConnector()
    c.tools._connector = connector  # the MCP servers' side, faked
    try:
        local = c.add_provider("Local", "http://127.0.0.1:8080/v1")
        c.add_model(local.id, "llama", 32_768)
        sid = c.create_session(provider_id=local.id, model_id="llama").id
        c.storage.mcp_servers.save(McpServer(BRAVE.name, BRAVE.transport, command=BRAVE.command, tools=BRAVE.tools,
                                             permissions=BRAVE.permissions, disabled_sessions=(sid,)))
        adapter = factory.adapter(local.id)
        adapter.scripts.append(reply("No search."))
        adapter.scripts.append(tool_round(("call_1", "brave__brave_web_search", {"query": "tides brest"})))
        adapter.scripts.append(reply("High tide is at 06:12."))
        [e async for e in c.send_message(sid, "hi")]
        c.set_session_web_search(sid, True)
        events = [e async for e in c.send_message(sid, "When is high tide in Brest?")]
    finally:
        c.close()
    offered = [[t.name for t in r.tools] for r in adapter.requests]
    assert "brave__brave_web_search" not in offered[0]  # off for this conversation, and search off
    assert "brave__brave_web_search" in offered[1] and "brave__summarize" not in offered[1]
    assert connector.calls == [("brave", "brave_web_search", {"query": "tides brest"})]
    done = [e for e in events if isinstance(e, ToolResultStored)]
    assert len(done) == 1 and not done[0].is_error
