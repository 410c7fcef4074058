"""`palimpsest sessions branches | checkout | fork | delete-branch`: the branches of a conversation."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.tables import one_line, table
from domain.chat.tree import Branch

if TYPE_CHECKING:
    from app.container import Container

ACTIONS = ("branches", "checkout", "fork", "delete-branch")


def branch_to_dict(b: Branch) -> dict[str, Any]:
    """One branch for `sessions branches --json`."""
    return {"number": b.number, "leaf_id": b.leaf_id, "fork_id": b.fork_id, "fork_parent_id": b.fork_parent_id,
            "messages": b.length, "active": b.active, "preview": b.preview}


def run_branches(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches one of ACTIONS."""
    action = args.action
    if action == "branches":
        branches = c.list_branches(args.id)
        if args.json:
            out.write(json.dumps([branch_to_dict(b) for b in branches], ensure_ascii=False, indent=2) + "\n")
        elif not branches:
            err.write("This session has no messages yet.\n")
        else:
            rows = [("*" if b.active else "", b.number, b.leaf_id, b.fork_id or "-", b.length, one_line(b.preview, 50))
                    for b in branches]
            out.write(table(("", "#", "LEAF", "FORK", "MESSAGES", "STARTS WITH"), rows) + "\n")
    elif action == "checkout":
        session = c.checkout_branch(args.id, args.message_id)
        leaf = c.list_branches(session.id)
        active = next((b for b in leaf if b.active), None)
        out.write(f"Session {session.id} is on branch {active.number if active else '-'} of {len(leaf)}"
                  f" (leaf {active.leaf_id if active else '-'}).\n")
    elif action == "fork":
        forked = c.fork_session(args.id, args.message_id)
        out.write(f"Forked into session {forked.id} ({one_line(forked.title, 40)}), "
                  f"{forked.message_count} messages.\n")
    elif action == "delete-branch":
        gone = c.delete_branch(args.id, args.message_id)
        out.write(f"Deleted {len(gone)} message{'s' if len(gone) != 1 else ''} of that branch.\n")
    return 0
