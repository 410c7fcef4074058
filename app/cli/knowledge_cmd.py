"""`palimpsest knowledge ...`: an agent's knowledge folders, indexed for search_documents and read_document."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from app.cli.tables import table
from domain.errors import InvalidInput
from domain.lookup import require_agent

if TYPE_CHECKING:
    from app.container import Container


def refresh_before_chat(c: Container, agent_id: str | None, err: TextIO) -> None:
    """Indexes again the agent's knowledge folders whose files changed (size, mtime; added, deleted) since they were
    indexed, before the question goes (progress on standard error; nothing is said when nothing changed)."""
    if agent_id is None or not c.documents.has_knowledge(agent_id):
        return

    def progress(line: str) -> None:
        err.write(line + "\n")
        err.flush()

    c.knowledge.refresh(agent_id, progress)


async def run_knowledge(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the knowledge action; progress goes to standard error."""
    agent = require_agent(c.agents, args.agent) if getattr(args, "agent", None) else None

    def progress(line: str) -> None:
        err.write(line + "\n")
        err.flush()

    if args.action == "add":
        assert agent is not None
        for path in args.paths:
            report = c.knowledge.add(agent.id, Path(path), progress)
            out.write(f"Added {report.folder} to {agent.name}'s knowledge: {report.added} files indexed.\n")
        return 0
    if args.action == "remove":
        assert agent is not None
        for path in args.paths:
            if not c.knowledge.remove(agent.id, path):
                raise InvalidInput(f"{path} is not one of {agent.name}'s knowledge folders "
                                   "(see: palimpsest knowledge list).")
            out.write(f"Removed {path} from {agent.name}'s knowledge.\n")
        return 0
    if args.action == "semantic":
        assert agent is not None
        pairs = [f"semantic_search={args.state}"] + ([f"embedding_model={args.model}"] if args.model else [])
        saved = c.configure_agent(agent.id, pairs)
        model = saved.context_overrides.get("embedding_model") or "the first OpenAI or Gemini provider"
        out.write(f"Semantic search is {args.state} for {saved.name}" + (f" (embeddings: {model}).\n"
                                                                          if args.state == "on" else ".\n"))
        return 0
    if args.action == "reindex":
        reports = c.knowledge.reindex(agent.id if agent else None, progress)
        out.write(f"Re-indexed {len(reports)} folder{'s' if len(reports) != 1 else ''}.\n")
        return 0
    folders = c.documents.folders(agent.id if agent else None)
    if not folders:
        out.write("No knowledge folders. Add one with: palimpsest knowledge add AGENT PATH\n")
        return 0
    names = {a.id: a.name for a in c.agents.list()}
    rows = []
    for agent_id, folder in folders:
        files, passages = c.documents.counts(agent_id, folder)
        rows.append([names.get(agent_id, agent_id), folder, str(files), str(passages)])
    out.write(table(["AGENT", "FOLDER", "FILES", "PASSAGES"], rows) + "\n")
    return 0
