"""Hand-written fakes of the MCP ports: servers in a dict, a connector that records calls, a deciding approver."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.mcp import McpServer, McpServerError, McpToolSpec
from domain.provider_ports import ProgressReport, ToolOutcome
from domain.tool_approval import ApprovalDecision, ApprovalRequest


class MemoryMcpServers:
    """An McpServerRepository in a dict, ordered by name like the SQL one."""

    def __init__(self, *servers: McpServer) -> None:
        self._by_name = {s.name: s for s in servers}

    def list(self) -> Sequence[McpServer]:
        return [self._by_name[n] for n in sorted(self._by_name)]

    def get(self, name: str) -> McpServer | None:
        return self._by_name.get(name)

    def save(self, server: McpServer) -> McpServer:
        self._by_name[server.name] = server
        return server

    def delete(self, name: str) -> None:
        self._by_name.pop(name, None)


@dataclass
class FakeConnector:
    """Lists the tools it was given per server (or raises its queued error) and records every call."""

    tools: dict[str, list[McpToolSpec]] = field(default_factory=dict)
    failures: deque[Exception] = field(default_factory=deque)
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    async def list_tools(self, server: McpServer) -> Sequence[McpToolSpec]:
        if self.failures:
            raise self.failures.popleft()
        if server.name not in self.tools:
            raise McpServerError(f"The MCP server {server.name!r} could not be started: command not found.")
        return self.tools[server.name]

    async def call_tool(self, server: McpServer, tool: str, arguments: Mapping[str, Any],
                        progress: ProgressReport | None = None) -> ToolOutcome:
        self.calls.append((server.name, tool, dict(arguments)))
        return ToolOutcome(f"{tool} ran")

    def log_path(self, server: str) -> str:
        return f"/logs/{server}.log"

    def close(self) -> None:
        pass


@dataclass
class DecidingApprover:
    """Answers queued decisions (Deny when none is left) and records the requests it was shown."""

    answers: deque[ApprovalDecision] = field(default_factory=deque)
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def approve(self, request: ApprovalRequest) -> bool:
        return await self.decide(request) is not ApprovalDecision.DENY

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.popleft() if self.answers else ApprovalDecision.DENY
