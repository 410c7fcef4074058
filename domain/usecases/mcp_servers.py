"""Use cases of MCP servers: add (checked by listing its tools), list, refresh tools, remove, rules, turn off."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from domain.errors import InvalidInput
from domain.mcp import (
    DEFAULT_TIMEOUT_S,
    McpConnector,
    McpSecretStore,
    McpServer,
    McpServerRepository,
    McpServerSecrets,
    McpTransport,
    ToolPermission,
    check_env_name,
    check_header_name,
    check_server_name,
    check_url,
)


def require_server(servers: McpServerRepository, name: str) -> McpServer:
    """The server of that name, or NotFound naming the configured ones."""
    server = servers.get(name.strip())
    if server is None:
        known = ", ".join(s.name for s in servers.list()) or "none yet"
        raise InvalidInput(f"No MCP server named {name!r} (configured: {known}).")
    return server


class AddMcpServerUseCase:
    """Adds a server after starting it once and listing its tools; nothing is stored when that fails."""

    def __init__(self, servers: McpServerRepository, secrets: McpSecretStore, connector: McpConnector) -> None:
        self._servers, self._secrets, self._connector = servers, secrets, connector

    async def __call__(
        self, name: str, *, command: Sequence[str] = (), url: str | None = None,
        env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S, roots: Sequence[str] = (),
    ) -> McpServer:
        """The stored server with its tools; InvalidInput for bad input, McpServerError when it does not start.
        `roots`: absolute folders the server is told it may use."""
        server = self.build(name, command=command, url=url, env=env or {}, headers=headers or {},
                            timeout_s=timeout_s)
        if roots:
            server = replace(server, roots=check_roots(roots))
        if self._servers.get(server.name) is not None:
            raise InvalidInput(f"An MCP server named {server.name!r} already exists; remove it first.")
        secrets = McpServerSecrets(dict(env or {}), dict(headers or {}))
        self._secrets.set(server.name, secrets)
        try:
            tools = tuple(await self._connector.list_tools(server))
        except BaseException:
            self._secrets.delete(server.name, server)
            raise
        return self._servers.save(replace(server, tools=tools))

    @staticmethod
    def build(name: str, *, command: Sequence[str], url: str | None, env: Mapping[str, str],
              headers: Mapping[str, str], timeout_s: float) -> McpServer:
        """The server described, validated (InvalidInput naming what is wrong)."""
        clean = check_server_name(name)
        if bool(command) == bool(url):
            raise InvalidInput("Give an MCP server either a command (after --) or --url, not both.")
        if not timeout_s > 0:
            raise InvalidInput("The call timeout must be more than 0 seconds.")
        if url:
            if env:
                raise InvalidInput("Environment variables apply to a command, not to a URL.")
            return McpServer(clean, McpTransport.HTTP, url=check_url(url),
                             header_names=tuple(check_header_name(h) for h in headers), timeout_s=timeout_s)
        if headers:
            raise InvalidInput("HTTP headers apply to a URL, not to a command.")
        if not command[0].strip():
            raise InvalidInput("The MCP server's command is empty.")
        return McpServer(clean, McpTransport.STDIO, command=command[0], args=tuple(command[1:]),
                         env_names=tuple(check_env_name(k) for k in env), timeout_s=timeout_s)


class RefreshMcpToolsUseCase:
    """Starts the server if needed, lists its tools again and stores the list."""

    def __init__(self, servers: McpServerRepository, connector: McpConnector) -> None:
        self._servers, self._connector = servers, connector

    async def __call__(self, name: str) -> McpServer:
        """The server with its current tools (McpServerError when it cannot be reached)."""
        server = require_server(self._servers, name)
        tools = tuple(await self._connector.list_tools(server))
        current = self._servers.get(server.name) or server
        return self._servers.save(replace(current, tools=tools))


class RemoveMcpServerUseCase:
    """Removes a server and its secrets from the keychain."""

    def __init__(self, servers: McpServerRepository, secrets: McpSecretStore) -> None:
        self._servers, self._secrets = servers, secrets

    def __call__(self, name: str) -> McpServer:
        """The removed server."""
        server = require_server(self._servers, name)
        self._servers.delete(server.name)
        self._secrets.delete(server.name, server)
        return server


class SetMcpRootsUseCase:
    """Adds or removes folders a server may use (its roots); the caller tells a running server (roots_changed)."""

    def __init__(self, servers: McpServerRepository) -> None:
        self._servers = servers

    def __call__(self, name: str, *, add: Sequence[str] = (), remove: Sequence[str] = ()) -> McpServer:
        """The server with its roots changed and stored; InvalidInput for a relative path or one not declared."""
        server = require_server(self._servers, name)
        missing = [r for r in remove if r not in server.roots]
        if missing:
            raise InvalidInput(f"{missing[0]} is not a root of {server.name!r} "
                               f"(roots: {', '.join(server.roots) or 'none'}).")
        kept = [r for r in server.roots if r not in remove]
        roots = check_roots([*kept, *(r for r in add if r not in kept)])
        return self._servers.save(replace(server, roots=roots))


class SetMcpSamplingUseCase:
    """Whether a server's sampling requests run without asking (allow) or are asked each time (ask, the default)."""

    def __init__(self, servers: McpServerRepository) -> None:
        self._servers = servers

    def __call__(self, name: str, rule: str) -> McpServer:
        """The server with the rule stored; InvalidInput for a rule other than ask or allow."""
        server = require_server(self._servers, name)
        if rule not in ("ask", "allow"):
            raise InvalidInput(f"A server's sampling rule is ask or allow, not {rule!r}.")
        return self._servers.save(replace(server, sampling_always=rule == "allow"))


def check_roots(roots: Sequence[str]) -> tuple[str, ...]:
    """The folders as given, each an absolute path, or InvalidInput."""
    if any(not root.startswith("/") and ":" not in root[:3] for root in roots):
        raise InvalidInput("Give each root as an absolute folder path.")
    return tuple(dict.fromkeys(roots))


class SetMcpToolPermissionUseCase:
    """Sets the rule (ask / allow / deny) of one tool, or of every listed tool with "*"."""

    def __init__(self, servers: McpServerRepository) -> None:
        self._servers = servers

    def __call__(self, name: str, tool: str, permission: str) -> McpServer:
        """The server with the rule changed."""
        server = require_server(self._servers, name)
        try:
            rule = ToolPermission(permission.strip().lower())
        except ValueError:
            raise InvalidInput(f"A tool's rule is ask, allow or deny, not {permission!r}.") from None
        names = [t.name for t in server.tools] if tool == "*" else [tool]
        known = {t.name for t in server.tools}
        for t in names:
            if t not in known:
                raise InvalidInput(f"The MCP server {server.name!r} has no tool {t!r} "
                                   f"(tools: {', '.join(sorted(known)) or 'none listed'}).")
            server = server.with_permission(t, rule)
        return self._servers.save(server)


class SetMcpServerEnabledUseCase:
    """Turns a server on or off for one agent or one session (a new server is on everywhere)."""

    def __init__(self, servers: McpServerRepository) -> None:
        self._servers = servers

    def __call__(self, name: str, enabled: bool, *, agent_id: str | None = None,
                 session_id: str | None = None) -> McpServer:
        """The server with the change stored; exactly one of agent_id and session_id is given."""
        if (agent_id is None) == (session_id is None):
            raise InvalidInput("Name either an agent or a session.")
        server = require_server(self._servers, name)
        if agent_id is not None:
            server = replace(server, disabled_agents=_toggle(server.disabled_agents, agent_id, enabled))
        else:
            assert session_id is not None
            server = replace(server, disabled_sessions=_toggle(server.disabled_sessions, session_id, enabled))
        return self._servers.save(server)


def _toggle(off: tuple[str, ...], ident: str, enabled: bool) -> tuple[str, ...]:
    rest = tuple(x for x in off if x != ident)
    return rest if enabled else (*rest, ident)


__all__ = ["AddMcpServerUseCase", "RefreshMcpToolsUseCase", "RemoveMcpServerUseCase", "SetMcpRootsUseCase",
           "SetMcpSamplingUseCase", "SetMcpServerEnabledUseCase", "SetMcpToolPermissionUseCase", "require_server"]
