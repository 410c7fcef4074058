"""The chat's tools: the built-in ones plus every enabled MCP server's, each MCP call checked against its rule."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.mcp import (
    McpConnector,
    McpServer,
    McpServerRepository,
    ToolPermission,
    find_tool,
    split_name,
    tool_definitions,
)
from domain.models import ToolDefinition
from domain.provider_ports import ToolContext, ToolExecutor, ToolOutcome
from domain.tool_approval import ApprovalDecision, ApprovalRequest, DenyAllApprover, ToolApprover, ask
from domain.web_support import mcp_search_tools

SHOWN_ARGUMENT_CHARS = 20_000


class ToolsWithMcp:
    """A ToolExecutor: built-in tools by their names, MCP tools as `server__tool`. A call to an MCP tool runs only
    under its rule: allow runs it, deny refuses it, ask asks the user (Allow once / Always / Deny) first."""

    def __init__(
        self, builtin: ToolExecutor, servers: McpServerRepository, connector: McpConnector,
        approver: ToolApprover | None = None,
    ) -> None:
        self._builtin = builtin
        self._servers = servers
        self._connector = connector
        self._approver: ToolApprover = approver or DenyAllApprover()

    def definitions(self, enabled: Sequence[str] | None = None) -> Sequence[ToolDefinition]:
        """The built-in tools (see BuiltinTools.definitions)."""
        return self._builtin.definitions(enabled)

    def mcp_definitions(self, agent_id: str | None, session_id: str | None) -> Sequence[ToolDefinition]:
        """The tools of every MCP server the agent and the session have not turned off (as last listed)."""
        return [d for s in self._servers.list() if s.enabled_for(agent_id, session_id) for d in tool_definitions(s)]

    def mcp_search_definitions(self, agent_id: str | None) -> Sequence[ToolDefinition]:
        """The web search tools of the MCP servers the agent has not turned off (domain.web_support)."""
        return mcp_search_tools(self._servers.list(), agent_id)

    async def execute(self, name: str, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        """Runs a built-in tool, or an MCP tool under its rule; every failure is an error outcome."""
        parts = split_name(name)
        if parts is None:
            return await self._builtin.execute(name, arguments, context)
        server = self._servers.get(parts[0])
        if server is None:
            return ToolOutcome(f"Error: no MCP server named {parts[0]!r} is configured.", is_error=True)
        granted = name in context.granted and context.agent_id not in server.disabled_agents  # web search on
        if not server.enabled_for(context.agent_id, context.session_id) and not granted:
            return ToolOutcome(f"Error: the MCP server {server.name!r} is turned off here.", is_error=True)
        spec = find_tool(server, name)
        if spec is None:
            return ToolOutcome(f"Error: the MCP server {server.name!r} has no tool {parts[1]!r}.", is_error=True)
        tool = spec.name
        refusal = await self._check(server, tool, arguments)
        if refusal is not None:
            return refusal
        return await self._connector.call_tool(server, tool, arguments, context.progress)

    async def _check(self, server: McpServer, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome | None:
        rule = server.permission(tool)
        if rule is ToolPermission.ALLOW:
            return None
        if rule is ToolPermission.DENY:
            return ToolOutcome(f"Error: the user does not allow the tool {tool!r} of {server.name!r}.", is_error=True)
        decision = await ask(self._approver, approval_request(server, tool, arguments))
        if decision is ApprovalDecision.DENY:
            return ToolOutcome(f"Error: the user refused to run {tool!r} of the MCP server {server.name!r}.",
                               is_error=True)
        if decision is ApprovalDecision.ALWAYS:
            current = self._servers.get(server.name) or server
            self._servers.save(current.with_permission(tool, ToolPermission.ALLOW))
        return None


def approval_request(server: McpServer, tool: str, arguments: Mapping[str, Any]) -> ApprovalRequest:
    """What the user is shown before an MCP tool runs: the server, the tool and the arguments as JSON."""
    try:
        shown = json.dumps(dict(arguments), indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(arguments)
    if len(shown) > SHOWN_ARGUMENT_CHARS:
        shown = shown[:SHOWN_ARGUMENT_CHARS]
    description = next((t.description for t in server.tools if t.name == tool), "")
    details = [("Server", f"{server.name} ({server.describe()})"), ("Tool", tool)]
    if description:
        details.append(("Description", description))
    details.append(("Arguments", shown))
    request = ApprovalRequest(tool=f"{server.name}__{tool}", title=f"Run {tool} on the MCP server {server.name}?",
                              details=tuple(details))
    return replace(request, can_remember=True)
