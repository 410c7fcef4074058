"""`palimpsest sessions list`: the table or JSON of sessions, read without SQLAlchemy when the file allows it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, TextIO

from app.cli.tables import one_line, table, when
from domain.models import Session


def session_to_dict(s: Session) -> dict[str, Any]:
    """A session row for `sessions list --json`."""
    return {
        "id": s.id, "title": s.title, "created_at": s.created_at.isoformat(), "updated_at": s.updated_at.isoformat(),
        "message_count": s.message_count, "compaction_count": s.compaction_count, "provider_id": s.current_provider_id,
        "model_id": s.current_model_id, "preview": s.last_message_preview, "total_input_tokens": s.total_input_tokens,
        "total_output_tokens": s.total_output_tokens, "total_cache_read_tokens": s.total_cache_read_tokens,
        "reasoning": s.reasoning, "web_search": s.web_search, "archived": not s.is_active,
    }


def archived_filter(args: argparse.Namespace) -> bool | None:
    """Which sessions the flags ask for: None all of them, True archived ones only, False the others."""
    return None if args.all else bool(args.archived)


def write_sessions(sessions: Sequence[Session], args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    """The sessions (already filtered) as JSON, a table, or a hint when there are none."""
    if args.json:
        out.write(json.dumps([session_to_dict(s) for s in sessions], ensure_ascii=False, indent=2) + "\n")
    elif not sessions:
        err.write("No archived sessions.\n" if args.archived
                  else "No sessions yet. Start one with: palimpsest chat \"hello\"\n")
    else:
        rows = [(s.id, when(s.updated_at), s.message_count, s.compaction_count,
                 one_line(s.title) + ("" if s.is_active else "  (archived)")) for s in sessions]
        out.write(table(("ID", "UPDATED", "MESSAGES", "COMPACTIONS", "TITLE"), rows) + "\n")


def list_without_storage(args: argparse.Namespace, out: TextIO, err: TextIO) -> bool:
    """Writes the list read straight from a current database (no Storage opened, so neither SQLAlchemy nor the
    container imported); False when the Storage must be opened first (a new, older or newer database)."""
    from data.db.direct_read import current_sessions

    found = current_sessions()
    if found is None:
        return False
    archived = archived_filter(args)
    write_sessions(found if archived is None else [s for s in found if s.is_active != archived], args, out, err)
    return True
