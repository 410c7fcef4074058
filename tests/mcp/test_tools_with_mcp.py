"""ToolsWithMcp: MCP tools offered as server__tool, each call under its rule (ask / allow / deny), per agent/session."""

from __future__ import annotations

from collections import deque

from domain.mcp import McpServer, McpToolSpec, McpTransport, ToolPermission
from domain.mcp_tools import ToolsWithMcp
from domain.provider_ports import ToolContext, ToolOutcome
from domain.tool_approval import AllowAllApprover, ApprovalDecision
from tests.fakes_turn import FakeToolExecutor
from tests.mcp.fakes import DecidingApprover, FakeConnector, MemoryMcpServers

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
FILES = McpServer("files", McpTransport.STDIO, command="files-server", tools=(
    McpToolSpec("read", "Reads a file.", SCHEMA), McpToolSpec("delete", "Deletes a file.", SCHEMA)))
CTX = ToolContext("s1", "agent-1")


def _tools(*servers: McpServer, approver: object | None = None) -> tuple[ToolsWithMcp, MemoryMcpServers, FakeConnector]:
    repo, connector = MemoryMcpServers(*servers), FakeConnector()
    builtin = FakeToolExecutor({"save_memory": lambda args, ctx: "saved"})
    return ToolsWithMcp(builtin, repo, connector, approver), repo, connector  # type: ignore[arg-type]


def test_mcp_tools_are_offered_as_server__tool_with_their_schemas_and_denied_ones_are_not() -> None:
    tools, _, _ = _tools(FILES.with_permission("delete", ToolPermission.DENY))
    [read] = tools.mcp_definitions("agent-1", "s1")
    assert (read.name, read.description, read.parameters) == ("files__read", "Reads a file.", SCHEMA)
    assert [d.name for d in tools.definitions()] == ["save_memory"]  # the built-in ones, unchanged


def test_a_server_turned_off_for_the_agent_or_the_session_offers_nothing_there() -> None:
    tools, _, _ = _tools(McpServer("files", McpTransport.STDIO, command="x", tools=FILES.tools,
                                   disabled_agents=("agent-1",), disabled_sessions=("s9",)))
    assert tools.mcp_definitions("agent-1", "s1") == []
    assert tools.mcp_definitions("agent-2", "s9") == []
    assert [d.name for d in tools.mcp_definitions("agent-2", "s1")] == ["files__read", "files__delete"]


async def test_an_allowed_tool_runs_without_asking() -> None:
    approver = DecidingApprover()
    tools, _, connector = _tools(FILES.with_permission("read", ToolPermission.ALLOW), approver=approver)
    outcome = await tools.execute("files__read", {"path": "a"}, CTX)
    assert outcome == ToolOutcome("read ran")
    assert connector.calls == [("files", "read", {"path": "a"})] and approver.asked == []


async def test_a_denied_tool_never_runs_and_the_model_reads_why() -> None:
    tools, _, connector = _tools(FILES.with_permission("delete", ToolPermission.DENY), approver=AllowAllApprover())
    outcome = await tools.execute("files__delete", {"path": "a"}, CTX)
    assert outcome.is_error and "does not allow the tool 'delete'" in outcome.output
    assert connector.calls == []


async def test_ask_shows_the_arguments_and_deny_refuses() -> None:
    approver = DecidingApprover(deque([ApprovalDecision.DENY]))
    tools, _, connector = _tools(FILES, approver=approver)
    outcome = await tools.execute("files__read", {"path": "/etc/hosts"}, CTX)
    assert outcome.is_error and "refused to run 'read'" in outcome.output
    assert connector.calls == []
    [request] = approver.asked
    assert request.can_remember and request.title == "Run read on the MCP server files?"
    assert dict(request.details)["Arguments"] == '{\n  "path": "/etc/hosts"\n}'
    assert dict(request.details)["Server"] == "files (files-server)"


async def test_allow_once_runs_it_and_asks_again_next_time() -> None:
    approver = DecidingApprover(deque([ApprovalDecision.ONCE, ApprovalDecision.DENY]))
    tools, repo, connector = _tools(FILES, approver=approver)
    assert not (await tools.execute("files__read", {"path": "a"}, CTX)).is_error
    assert (await tools.execute("files__read", {"path": "b"}, CTX)).is_error
    assert len(approver.asked) == 2 and len(connector.calls) == 1
    assert repo.get("files").permission("read") is ToolPermission.ASK  # type: ignore[union-attr]


async def test_always_runs_it_and_stores_allow_so_it_is_not_asked_again() -> None:
    approver = DecidingApprover(deque([ApprovalDecision.ALWAYS]))
    tools, repo, connector = _tools(FILES, approver=approver)
    await tools.execute("files__read", {"path": "a"}, CTX)
    await tools.execute("files__read", {"path": "b"}, CTX)
    assert len(approver.asked) == 1 and len(connector.calls) == 2
    assert repo.get("files").permission("read") is ToolPermission.ALLOW  # type: ignore[union-attr]


async def test_without_an_approver_nothing_that_asks_runs() -> None:
    tools, _, connector = _tools(FILES)
    outcome = await tools.execute("files__read", {"path": "a"}, CTX)
    assert outcome.is_error and connector.calls == []


async def test_unknown_servers_tools_and_turned_off_servers_are_error_outcomes() -> None:
    off = McpServer("files", McpTransport.STDIO, command="x", tools=FILES.tools, disabled_sessions=("s1",),
                    permissions={"read": ToolPermission.ALLOW})
    tools, _, connector = _tools(off, approver=AllowAllApprover())
    assert "no MCP server named 'web'" in (await tools.execute("web__get", {}, CTX)).output
    assert "turned off here" in (await tools.execute("files__read", {"path": "a"}, CTX)).output
    other = ToolContext("s2", "agent-1")
    assert "has no tool 'chmod'" in (await tools.execute("files__chmod", {}, other)).output
    assert connector.calls == []


async def test_tool_names_providers_refuse_are_made_safe_and_still_reach_the_right_tool() -> None:
    import re

    long_name = "search_" + "very_long_" * 8
    server = McpServer("gh", McpTransport.STDIO, command="x", tools=(
        McpToolSpec("repo.search/v2", "", SCHEMA), McpToolSpec(long_name, "", SCHEMA),
        McpToolSpec(long_name + "2", "", SCHEMA)), permissions={"repo.search/v2": ToolPermission.ALLOW,
                                                                long_name: ToolPermission.ALLOW})
    tools, _, connector = _tools(server)
    names = [d.name for d in tools.mcp_definitions("a", "s")]
    assert names[0] == "gh__repo_search_v2"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names) and len(set(names)) == 3
    await tools.execute(names[0], {}, CTX)
    await tools.execute(names[1], {}, CTX)
    assert [c[1] for c in connector.calls] == ["repo.search/v2", long_name]


async def test_built_in_tools_go_to_the_built_in_executor() -> None:
    tools, _, connector = _tools(FILES)
    assert (await tools.execute("save_memory", {"content": "x"}, CTX)).output == "saved"
    assert connector.calls == []
