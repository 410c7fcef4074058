"""Imports other clients' MCP configuration (`{"mcpServers": {NAME: {command, args, env} | {url, headers}}}`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.errors import InvalidInput, PalimpsestError
from domain.usecases.mcp_servers import AddMcpServerUseCase

_INVALID = re.compile(r"[^A-Za-z0-9-]+")


@dataclass(frozen=True)
class _Entry:
    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the servers added (with their tool counts) and those skipped, with why."""

    added: tuple[tuple[str, int], ...]
    skipped: tuple[tuple[str, str], ...]


def server_name(raw: str) -> str:
    """A name another client accepts made into one Palimpsest accepts (`my_server` -> `my-server`)."""
    return _INVALID.sub("-", raw.strip()).strip("-")[:32] or "server"


def parse_config(data: Any) -> list[_Entry]:
    """The servers of the config, all checked before anything is added (InvalidInput naming the first bad one)."""
    if not isinstance(data, Mapping):
        raise InvalidInput("The MCP configuration must be a JSON object with an \"mcpServers\" object.")
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping) or not servers:
        raise InvalidInput("The MCP configuration has no \"mcpServers\" object with at least one server.")
    entries = []
    for raw_name, spec in servers.items():
        where = f"MCP server {raw_name!r}"
        if not isinstance(spec, Mapping):
            raise InvalidInput(f"The {where} must be an object.")
        kind = str(spec.get("type") or "")
        if kind == "sse":
            raise InvalidInput(f"The {where} uses the old SSE transport; only stdio and Streamable HTTP are "
                               "supported.")
        env, headers = _strings(spec.get("env"), where, "env"), _strings(spec.get("headers"), where, "headers")
        if isinstance(spec.get("command"), str):
            args = spec.get("args") or []
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise InvalidInput(f"The \"args\" of the {where} must be a list of strings.")
            entries.append(_Entry(server_name(str(raw_name)), (spec["command"], *args), env=env))
        elif isinstance(spec.get("url"), str):
            entries.append(_Entry(server_name(str(raw_name)), url=spec["url"], headers=headers))
        else:
            raise InvalidInput(f"The {where} has neither a \"command\" nor a \"url\".")
    names = [e.name for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InvalidInput(f"Two MCP servers would both be named {twice[0]!r}; rename one.")
    return entries


def _strings(value: Any, where: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidInput(f"The \"{key}\" of the {where} must be an object of strings.")
    return {str(k): v for k, v in value.items()}


class ImportMcpServersUseCase:
    """Adds every server of the config that is not configured yet; one that does not start is skipped, with why."""

    def __init__(self, add: AddMcpServerUseCase) -> None:
        self._add = add

    async def __call__(self, data: Any) -> ImportReport:
        """The report; InvalidInput (nothing added) when the config itself is malformed."""
        entries = parse_config(data)
        for e in entries:  # every entry checked before the first is started
            AddMcpServerUseCase.build(e.name, command=e.command, url=e.url, env=e.env, headers=e.headers,
                                      timeout_s=1.0)
        added, skipped = [], []
        for e in entries:
            try:
                server = await self._add(e.name, command=e.command, url=e.url, env=e.env, headers=e.headers)
            except PalimpsestError as err:
                skipped.append((e.name, str(err)))
                continue
            added.append((server.name, len(server.tools)))
        return ImportReport(tuple(added), tuple(skipped))
