"""`palimpsest agents ...`: list, show and configure agents (personas) from the command line."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.tables import one_line, table
from domain.lookup import require_agent
from domain.models import Agent

if TYPE_CHECKING:
    from app.container import Container


def agent_to_dict(agent: Agent) -> dict[str, Any]:
    """An agent for `agents show --json`."""
    return {
        "id": agent.id, "name": agent.name, "system_prompt": agent.system_prompt,
        "provider": agent.preferred_provider_id, "model": agent.preferred_model_id,
        "tools": list(agent.enabled_tools), "context_overrides": dict(agent.context_overrides),
    }


def _render(agent: Agent) -> str:
    overrides = ", ".join(f"{k}={v}" for k, v in agent.context_overrides.items()) or "none"
    model = "/".join(p for p in (agent.preferred_provider_id, agent.preferred_model_id) if p) or "(default)"
    return "\n".join([
        f"{agent.name}  ({agent.id})",
        f"model: {model}",
        f"tools: {', '.join(agent.enabled_tools) or 'all built-in tools'}",
        f"context overrides: {overrides}",
        "system prompt:",
        *["    " + line for line in (agent.system_prompt or "(none)").splitlines()],
    ])


async def run_agents(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the agents action."""
    if args.action == "list":
        rows = [
            (a.id, a.name, "/".join(p for p in (a.preferred_provider_id, a.preferred_model_id) if p) or "-",
             ", ".join(f"{k}={v}" for k, v in a.context_overrides.items()) or "-", one_line(a.system_prompt, 40))
            for a in c.list_agents()
        ]
        out.write(table(("ID", "NAME", "MODEL", "OVERRIDES", "SYSTEM PROMPT"), rows) + "\n")
    elif args.action == "show":
        agent = require_agent(c.agents, args.name)
        out.write((json.dumps(agent_to_dict(agent), ensure_ascii=False, indent=2) if args.json else _render(agent))
                  + "\n")
    elif args.action == "set":
        agent = c.configure_agent(args.name, args.pairs)
        out.write(f"Saved agent {agent.name}.\n{_render(agent)}\n")
    return 0
