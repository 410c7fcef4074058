"""The arguments of `palimpsest knowledge ...` (argparse only: building the parser loads nothing else)."""

from __future__ import annotations

import argparse
from typing import Any


def add_knowledge_parser(commands: argparse._SubParsersAction, group: Any) -> None:
    """The `knowledge` command group (called by the CLI parser)."""
    knowledge = group(commands, "knowledge", "folders of documents an agent's conversations can search and read")
    add = knowledge.add_parser("add", help="add folders to an agent's knowledge and index them")
    add.add_argument("agent", metavar="AGENT")
    add.add_argument("paths", metavar="PATH", nargs="+")
    listing = knowledge.add_parser("list", help="list the knowledge folders with their files and passages")
    listing.add_argument("agent", metavar="AGENT", nargs="?")
    remove = knowledge.add_parser("remove", help="remove a folder from an agent's knowledge (its index goes too)")
    remove.add_argument("agent", metavar="AGENT")
    remove.add_argument("paths", metavar="PATH", nargs="+")
    reindex = knowledge.add_parser("reindex", help="index the folders again: only changed files are read")
    reindex.add_argument("agent", metavar="AGENT", nargs="?")
    semantic = knowledge.add_parser(
        "semantic", help="turn an agent's semantic search on or off (passages are sent to the embedding provider)")
    semantic.add_argument("agent", metavar="AGENT")
    semantic.add_argument("state", choices=("on", "off"))
    semantic.add_argument("--model", metavar="PROVIDER[/MODEL]",
                          help="the embedding provider and model (default: the first OpenAI or Gemini provider)")
