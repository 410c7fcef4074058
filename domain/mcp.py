"""MCP servers as the domain sees them: their configuration, their tools, permissions, naming, and the ports."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from domain.errors import InvalidInput
from domain.models import ToolDefinition
from domain.provider_ports import ProgressReport, ToolOutcome

SEPARATOR = "__"
DEFAULT_TIMEOUT_S = 120.0
_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$")
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_IN_MODEL_NAMES = re.compile(r"[^A-Za-z0-9_-]")
MAX_MODEL_TOOL_NAME = 64  # what every provider accepts ([A-Za-z0-9_-]{1,64})


class McpTransport(StrEnum):
    """How Palimpsest reaches a server: a local command over stdio, or a URL over Streamable HTTP."""

    STDIO = "stdio"
    HTTP = "http"


class ToolPermission(StrEnum):
    """What happens when the model calls a tool: ask the user each time, run it, or refuse it."""

    ASK = "ask"
    ALLOW = "allow"
    DENY = "deny"


@dataclass(frozen=True)
class McpToolSpec:
    """One tool as its server listed it: the server's own name, description and JSON schema of the input."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    task_required: bool = False  # execution.taskSupport "required": callable only as a task (it is called as one)
    task_optional: bool = False  # "optional": called as a task when its server declares task-augmented tools/call


@dataclass(frozen=True)
class McpServer:
    """A configured MCP server. Environment values and header values are secrets kept in the keychain; only their
    names are here (and in the database)."""

    name: str
    transport: McpTransport
    command: str | None = None
    args: tuple[str, ...] = ()
    env_names: tuple[str, ...] = ()
    url: str | None = None
    header_names: tuple[str, ...] = ()
    tools: tuple[McpToolSpec, ...] = ()
    permissions: Mapping[str, ToolPermission] = field(default_factory=dict)
    disabled_agents: tuple[str, ...] = ()
    disabled_sessions: tuple[str, ...] = ()
    timeout_s: float = DEFAULT_TIMEOUT_S
    roots: tuple[str, ...] = ()  # absolute folder paths the server is told it may use (roots/list)
    sampling_always: bool = False  # its sampling requests run without asking (the user chose "always")

    def permission(self, tool: str) -> ToolPermission:
        """The rule for a tool of this server: ask unless the user chose otherwise."""
        return self.permissions.get(tool, ToolPermission.ASK)

    def with_permission(self, tool: str, permission: ToolPermission) -> McpServer:
        """A copy with one tool's rule changed."""
        return replace(self, permissions={**self.permissions, tool: permission})

    def enabled_for(self, agent_id: str | None, session_id: str | None) -> bool:
        """False when the agent or the session turned this server off."""
        return agent_id not in self.disabled_agents and session_id not in self.disabled_sessions

    def describe(self) -> str:
        """One line: the command line or the URL."""
        if self.transport is McpTransport.HTTP:
            return self.url or ""
        return " ".join([self.command or "", *self.args])


@dataclass(frozen=True)
class McpServerSecrets:
    """The values kept in the keychain for one server: environment variables and HTTP headers."""

    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


def qualified_name(server: str, tool: str) -> str:
    """The name the model sees: `server__tool`, with characters providers refuse in tool names (a tool named
    `repo.search`) made `_`, and cut to 64 characters with a short hash of the tool's own name when longer."""
    name = f"{server}{SEPARATOR}{_NOT_IN_MODEL_NAMES.sub('_', tool)}"
    if len(name) <= MAX_MODEL_TOOL_NAME:
        return name
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    return f"{name[:MAX_MODEL_TOOL_NAME - 9]}_{digest}"


def find_tool(server: McpServer, name: str) -> McpToolSpec | None:
    """The server's tool the model called by `name` (its `server__tool` name), None when it has none such."""
    return next((t for t in server.tools if qualified_name(server.name, t.name) == name), None)


def split_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of a `server__tool` name, None for a name without the separator."""
    server, sep, tool = name.partition(SEPARATOR)
    return (server, tool) if sep and server and tool else None


def tool_definitions(server: McpServer) -> list[ToolDefinition]:
    """The server's tools as the model is offered them (denied tools are not offered)."""
    return [
        ToolDefinition(qualified_name(server.name, t.name), t.description or t.name, t.input_schema)
        for t in server.tools
        if server.permission(t.name) is not ToolPermission.DENY
    ]


def check_server_name(name: str) -> str:
    """The name, stripped, or InvalidInput saying what a name may contain."""
    clean = name.strip()
    if not _SERVER_NAME.match(clean):
        raise InvalidInput(
            f"Invalid MCP server name {name!r}: use 1-32 letters, digits or '-' (no spaces or underscores), "
            "starting with a letter or digit."
        )
    return clean


def check_header_name(name: str) -> str:
    """A valid HTTP header name, or InvalidInput."""
    if not _HEADER_NAME.match(name):
        raise InvalidInput(f"Invalid HTTP header name {name!r}.")
    return name


def check_env_name(name: str) -> str:
    """A valid environment variable name, or InvalidInput."""
    if not _ENV_NAME.match(name):
        raise InvalidInput(f"Invalid environment variable name {name!r}.")
    return name


def check_url(url: str) -> str:
    """An http(s) URL, or InvalidInput."""
    clean = url.strip()
    if not re.match(r"^https?://[^\s/]+", clean):
        raise InvalidInput(f"Invalid MCP server URL {url!r}: it must start with http:// or https://.")
    return clean


class McpServerRepository(Protocol):
    """The configured MCP servers, by name."""

    def list(self) -> Sequence[McpServer]: ...
    def get(self, name: str) -> McpServer | None: ...
    def save(self, server: McpServer) -> McpServer:
        """Adds or replaces the server of that name."""
        ...
    def delete(self, name: str) -> None: ...


class McpSecretStore(Protocol):
    """Environment and header values of MCP servers, in the OS keychain."""

    def get(self, server: str) -> McpServerSecrets: ...
    def set(self, server: str, secrets: McpServerSecrets) -> None: ...
    def delete(self, server: str, secrets_names: McpServer) -> None: ...


class McpConnector(Protocol):
    """Talks to running MCP servers (started on first use, kept running, stopped by close())."""

    async def list_tools(self, server: McpServer) -> Sequence[McpToolSpec]:
        """Starts the server if needed and lists its tools; raises McpServerError when it cannot."""
        ...

    async def call_tool(self, server: McpServer, tool: str, arguments: Mapping[str, Any],
                        progress: ProgressReport | None = None) -> ToolOutcome:
        """Calls a tool; the server's failures, a crash or a timeout come back as an error outcome; `progress` is
        told each notifications/progress of the call, on the caller's loop."""
        ...

    def log_path(self, server: str) -> str:
        """The file a stdio server's stderr goes to."""
        ...

    def close(self) -> None:
        """Stops every server this connector started."""
        ...


class ExtraToolSource(Protocol):
    """Tools offered beside the built-in ones (the MCP servers'), per agent and session."""

    def mcp_definitions(self, agent_id: str | None, session_id: str | None) -> Sequence[ToolDefinition]: ...
    def mcp_search_definitions(self, agent_id: str | None) -> Sequence[ToolDefinition]:
        """The MCP tools that search the web, of the servers the agent has not turned off (web search on where
        the provider has none)."""
        ...


class McpServerError(InvalidInput):
    """A server could not be started or reached; the message says which and why."""

    kind = "mcp_server"
