"""`palimpsest mcp ...`: add, list, import and remove MCP servers, see their tools, set each tool's rule."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.mcp_catalog_cmd import list_catalog
from app.cli.tables import one_line, table
from domain.errors import InvalidInput
from domain.lookup import require_agent, require_session
from domain.mcp import McpServer, qualified_name, tool_definitions
from domain.usecases.import_mcp_servers import ImportMcpServersUseCase
from domain.usecases.mcp_servers import (
    AddMcpServerUseCase,
    RefreshMcpToolsUseCase,
    RemoveMcpServerUseCase,
    SetMcpRootsUseCase,
    SetMcpSamplingUseCase,
    SetMcpServerEnabledUseCase,
    SetMcpToolPermissionUseCase,
    require_server,
)

if TYPE_CHECKING:
    from app.container import Container

MAX_IMPORT_BYTES = 1_000_000


def pairs(values: list[str] | None, separators: str, what: str) -> dict[str, str]:
    """`NAME=VALUE` (or `Name: value` for headers) arguments as a dict; InvalidInput for one without a value."""
    out: dict[str, str] = {}
    for item in values or []:
        cut = min((i for i in (item.find(s) for s in separators) if i > 0), default=-1)
        if cut < 0:
            raise InvalidInput(f"Give {what} as NAME{separators[0]}VALUE, not {item!r}.")
        out[item[:cut].strip()] = item[cut + 1:].strip()
    return out


def server_to_dict(server: McpServer, c: Container) -> dict[str, Any]:
    """A server for `mcp list --json` (secret names only, never values)."""
    return {"name": server.name, "transport": server.transport.value, "command": server.command,
            "args": list(server.args), "url": server.url, "env": list(server.env_names),
            "headers": list(server.header_names), "timeout_s": server.timeout_s, "roots": list(server.roots),
            "sampling": "allow" if server.sampling_always else "ask",
            "tools": [{"name": t.name, "permission": server.permission(t.name).value} for t in server.tools],
            "log": c.mcp.log_path(server.name) if server.command else None}


async def run_mcp(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the mcp action."""
    if args.action == "add":
        command = list(args.server_command or [])
        if command and "/" in command[0] and Path(command[0]).exists():  # a relative path works from any folder
            command[0] = str(Path(command[0]).absolute())
        add = AddMcpServerUseCase(c.mcp_servers, c.mcp_secrets, c.mcp)
        server = await add(args.name, command=command, url=args.url, env=pairs(args.env, "=", "--env"),
                           headers=pairs(args.header, ":=", "--header"), timeout_s=args.timeout,
                           roots=[str(Path(r).expanduser().absolute()) for r in getattr(args, "root", None) or []])
        out.write(f"Added MCP server {server.name} with {len(server.tools)} tools: "
                  f"{', '.join(t.name for t in server.tools) or 'none'}.\n")
        err.write("Each tool asks before it runs; change that with: palimpsest mcp permission "
                  f"{server.name} TOOL allow|deny|ask\n")
    elif args.action == "list":
        servers = list(c.mcp_servers.list())
        if args.json:
            out.write(json.dumps([server_to_dict(s, c) for s in servers], indent=2) + "\n")
        elif not servers:
            err.write("No MCP servers. Add one with: palimpsest mcp add NAME -- COMMAND ARGS...\n")
        else:
            rows = [(s.name, s.transport.value, len(s.tools), one_line(s.describe(), 70)) for s in servers]
            out.write(table(("NAME", "TRANSPORT", "TOOLS", "COMMAND / URL"), rows) + "\n")
    elif args.action == "tools":
        server = await RefreshMcpToolsUseCase(c.mcp_servers, c.mcp)(args.name)
        sizes = {d.name: c.estimator.estimate_tools([d]) for d in tool_definitions(server)}
        rows = [(t.name, server.permission(t.name).value + (" (as a task)" if t.task_required else
                                                            " (as a task if the server runs them)" if t.task_optional
                                                            else ""),
                 sizes.get(qualified_name(server.name, t.name), 0), one_line(t.description, 70))
                for t in server.tools]
        out.write(table(("TOOL", "RULE", "TOKENS", "DESCRIPTION"), rows) + "\n")
    elif args.action == "remove":
        server = RemoveMcpServerUseCase(c.mcp_servers, c.mcp_secrets)(args.name)
        out.write(f"Removed MCP server {server.name}.\n")
    elif args.action == "logout":
        from data.mcp.oauth_keychain import forget
        from data.mcp.oauth_revoke import revoke

        server = require_server(c.mcp_servers, args.name)
        revoked = revoke(server.name)
        signed_in = forget(server.name)
        said = "; the server revoked its tokens" if revoked else ""
        out.write(f"Signed out of {server.name}{said}.\n" if signed_in
                  else f"{server.name} had no sign-in to remove.\n")
    elif args.action == "import":
        data = _read_config(Path(args.file))
        add = AddMcpServerUseCase(c.mcp_servers, c.mcp_secrets, c.mcp)
        report = await ImportMcpServersUseCase(add)(data)
        for name, count in report.added:
            out.write(f"Added MCP server {name} with {count} tools.\n")
        for name, why in report.skipped:
            err.write(f"Skipped {name}: {why}\n")
        return 0 if report.added or not report.skipped else 1
    elif args.action == "permission":
        server = SetMcpToolPermissionUseCase(c.mcp_servers)(args.name, args.tool, args.rule)
        out.write(f"{server.name}: {args.tool} is now {args.rule}.\n")
    elif args.action in ("enable", "disable"):
        _toggle(c, args, out)
    elif args.action in ("prompts", "resources"):
        await list_catalog(c, args, out, err)
    elif args.action == "sampling":
        server = (SetMcpSamplingUseCase(c.mcp_servers)(args.name, args.rule) if args.rule
                  else require_server(c.mcp_servers, args.name))
        rule = "allow (runs without asking)" if server.sampling_always else "ask (each request)"
        out.write(f"{server.name}: sampling is {rule}.\n")
    elif args.action == "roots":
        await _roots(c, args, out)
    elif args.action == "log":
        out.write(c.mcp.log_path(require_server(c.mcp_servers, args.name).name) + "\n")
    return 0


async def _roots(c: Container, args: argparse.Namespace, out: TextIO) -> None:
    if args.change and not args.paths:
        raise InvalidInput(f"Name the folders to {args.change}: palimpsest mcp roots NAME {args.change} PATH...")
    if args.paths and not args.change:
        raise InvalidInput("Say add or remove before the folders: palimpsest mcp roots NAME add|remove PATH...")
    if args.change:
        paths = [str(Path(p).expanduser().absolute()) for p in args.paths]
        change = {"add": paths} if args.change == "add" else {"remove": paths}
        server = SetMcpRootsUseCase(c.mcp_servers)(args.name, **change)
        await c.mcp.roots_changed(server)
    else:
        server = require_server(c.mcp_servers, args.name)
    out.write("".join(f"{root}\n" for root in server.roots) or f"{server.name} has no roots.\n")


def _toggle(c: Container, args: argparse.Namespace, out: TextIO) -> None:
    enabled = args.action == "enable"
    agent_id = require_agent(c.agents, args.agent).id if args.agent else None
    session_id = require_session(c.sessions, args.session_id).id if args.session_id else None
    server = SetMcpServerEnabledUseCase(c.mcp_servers)(args.name, enabled, agent_id=agent_id, session_id=session_id)
    where = f"agent {args.agent}" if args.agent else f"session {session_id}"
    out.write(f"{server.name} is {'on' if enabled else 'off'} for {where}.\n")


def _read_config(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if len(raw) > MAX_IMPORT_BYTES:
        raise InvalidInput(f"{path} is larger than an MCP configuration ({len(raw):,} bytes).")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"{path} is not valid JSON: {exc}.") from None
