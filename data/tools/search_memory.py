"""The search_memory tool: full-text search over the agent's long-term memories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.tools.base import optional_int, require_str
from domain.models import ToolDefinition
from domain.ports import MemoryRepository
from domain.provider_ports import ToolContext, ToolOutcome

DEFINITION = ToolDefinition(
    name="search_memory",
    description="Search long-term memory for saved facts matching the query words; returns the best matches.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "At most this many (10)."},
        },
        "required": ["query"],
    },
)


class SearchMemoryTool:
    """Runs search_memory against the memory repository."""

    definition = DEFINITION

    def __init__(self, memories: MemoryRepository) -> None:
        self._memories = memories

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        query = require_str(arguments, "query").strip()
        limit = optional_int(arguments, "limit", 10, minimum=1, maximum=50)
        found = self._memories.search(query, agent_id=context.agent_id, limit=limit)
        if not found:
            return ToolOutcome(f"No memories match {query!r}.")
        lines = [f"{len(found)} memor{'y' if len(found) == 1 else 'ies'} matching {query!r}:"]
        lines += [f"- [{m.created_at:%Y-%m-%d}] {m.content}" for m in found]
        return ToolOutcome("\n".join(lines))
