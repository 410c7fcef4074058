"""An MCP server's row read and written as JSON (shared by the SQLAlchemy repository and data/lite, no SQLAlchemy)."""

from __future__ import annotations

import json
from typing import Any

from domain.mcp import DEFAULT_TIMEOUT_S, McpServer, McpToolSpec, McpTransport, ToolPermission


def server_json(server: McpServer) -> tuple[str, str, str, str]:
    """The (transport, config, tools, permissions) columns of a server."""
    tools = [{"name": t.name, "description": t.description, "input_schema": dict(t.input_schema),
              **({"task_required": True} if t.task_required else {}),
              **({"task_optional": True} if t.task_optional else {})} for t in server.tools]
    return (server.transport.value, json.dumps(_config(server)), json.dumps(tools),
            json.dumps({k: v.value for k, v in server.permissions.items()}))


def _config(server: McpServer) -> dict[str, Any]:
    return {"command": server.command, "args": list(server.args), "env_names": list(server.env_names),
            "url": server.url, "header_names": list(server.header_names), "timeout_s": server.timeout_s,
            "disabled_agents": list(server.disabled_agents), "disabled_sessions": list(server.disabled_sessions),
            **({"roots": list(server.roots)} if server.roots else {}),
            **({"sampling": "allow"} if server.sampling_always else {})}


def _loads(text: str, kind: type) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return kind()
    return value if isinstance(value, kind) else kind()


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def server_to_domain(row: Any) -> McpServer:
    config = _loads(row.config, dict)
    tools = tuple(
        McpToolSpec(t["name"], str(t.get("description") or ""), t.get("input_schema") or {"type": "object"},
                    task_required=t.get("task_required") is True,
                    task_optional=t.get("task_optional") is True)
        for t in _loads(row.tools, list) if isinstance(t, dict) and isinstance(t.get("name"), str)
    )
    rules = {k: ToolPermission(v) for k, v in _loads(row.permissions, dict).items()
             if v in {p.value for p in ToolPermission}}
    timeout = config.get("timeout_s")
    return McpServer(
        name=row.name, transport=McpTransport(row.transport), command=config.get("command"),
        args=_strings(config.get("args")), env_names=_strings(config.get("env_names")), url=config.get("url"),
        header_names=_strings(config.get("header_names")), tools=tools, permissions=rules,
        disabled_agents=_strings(config.get("disabled_agents")),
        disabled_sessions=_strings(config.get("disabled_sessions")),
        timeout_s=float(timeout) if isinstance(timeout, int | float) and timeout > 0 else DEFAULT_TIMEOUT_S,
        roots=_strings(config.get("roots")), sampling_always=config.get("sampling") == "allow",
    )
