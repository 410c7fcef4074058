"""`palimpsest sessions ...`: list, show, export, search, compact, reset-context, archive, delete, branches."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from app.cli.branches_cmd import ACTIONS as BRANCH_ACTIONS
from app.cli.branches_cmd import run_branches
from app.cli.context_cmd import render_status, status_to_dict
from app.cli.export_cmd import export_session
from app.cli.session_list import archived_filter, write_sessions
from app.cli.session_prompt_cmd import session_prompt
from app.cli.tables import one_line, when
from app.cli.web_cmd import session_web_search
from domain.models import Message, MessageType, ReplyEnd
from domain.ports import MATCH_CLOSE, MATCH_OPEN
from domain.usecases.export_session import detail_json_chunks
from domain.usecases.show_session import SessionDetail

if TYPE_CHECKING:
    from app.container import Container


ROLES = {"user": "user", "ai_response": "assistant", "tool_call": "tool call", "tool_result": "tool result",
         "error": "error"}  # who said it, in words: never the storage type's name
SHOWN_PER_WRITE = 500  # messages rendered into one write: the output starts at once and stays a few writes long


def render_detail(detail: SessionDetail) -> str:
    """A session and all its messages as plain text; summarized messages are marked with `~`."""
    return "\n".join(detail_chunks(detail))


def detail_chunks(detail: SessionDetail, per_chunk: int = SHOWN_PER_WRITE) -> Iterator[str]:
    """render_detail in pieces of `per_chunk` messages (joined with newlines they are render_detail's text)."""
    s = detail.session
    head = [
        f"{s.title}  ({s.id})",
        f"model: {s.current_provider_id or '-'}/{s.current_model_id or '-'}  messages: {len(detail.messages)}  "
        f"compactions: {s.compaction_count}",
        f"tokens: {s.total_input_tokens} in, {s.total_output_tokens} out, {s.total_cache_read_tokens} cache read",
    ]
    if s.compacted_summary:
        head += ["", "--- summary ---", s.compacted_summary, "--- end of summary ---"]
    head.append("")
    yield "\n".join(head)
    views = detail.messages
    for start in range(0, len(views), per_chunk):
        yield "\n".join(_message_text(view.message, view.behind_boundary) for view in views[start:start + per_chunk])
    if any(v.behind_boundary for v in views):
        yield "\n~ = summarized: kept in the database, sent only through the summary"


_HEADS = {t: ROLES.get(t.value, t.value.replace("_", " ")) for t in MessageType}
_INCOMPLETE = {ReplyEnd.STOPPED: " (stopped early, incomplete)", ReplyEnd.CUT: " (cut off, incomplete)"}


def _message_text(m: Message, behind_boundary: bool) -> str:
    """One message: its head line (mark, seq, role, tool, flags, time) and its body indented by four spaces."""
    head = f"{'~' if behind_boundary else ' '} #{m.seq} {_HEADS[m.type]}"
    if m.tool_name:
        head += f" [{m.tool_name}]"
    if m.incomplete:
        head += _INCOMPLETE[m.end_reason] if m.end_reason is not None else " (incomplete)"
    if not m.active:
        head += " (another branch: off the active path)"
    if m.type is MessageType.TOOL_CALL:
        body = m.tool_input or ""
    elif m.type is MessageType.TOOL_RESULT:
        body = _clip(m.tool_output or "")
    else:
        body = m.content
    body += "".join(f"\n[attached: {a.label}]" for a in m.attachments)
    return f"{head}  {_minute(m.created_at)}  id {m.id}\n    " + "\n    ".join(body.splitlines())


def _minute(at: datetime | None) -> str:
    """tables.when(at), with the common case done without strftime (20,000 messages: about 30 ms less)."""
    if at is not None and at.year >= 1000:
        return at.isoformat(" ", "minutes")[:16]
    return when(at)


TEXT_TOOL_OUTPUT_CHARS = 2_000


def _clip(text: str) -> str:
    if len(text) <= TEXT_TOOL_OUTPUT_CHARS:
        return text
    rest = len(text) - TEXT_TOOL_OUTPUT_CHARS
    return f"{text[:TEXT_TOOL_OUTPUT_CHARS]}\n… {rest} more characters (all of them: sessions show ID --json)"


async def run_sessions(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the sessions action."""
    action = args.action
    if action in BRANCH_ACTIONS:
        return run_branches(c, args, out, err)
    if action == "list":
        write_sessions(c.list_sessions(archived=archived_filter(args)), args, out, err)
    elif action == "show":
        detail = c.show_session(args.id, include_inactive=args.all)
        if args.json:
            for piece in detail_json_chunks(detail):  # written as it is encoded (the same text as one dumps)
                out.write(piece)
            out.write("\n")
        else:
            for chunk in detail_chunks(detail):  # written as it is rendered
                out.write(chunk + "\n")
    elif action == "export":
        return export_session(c, args, out, err)
    elif action == "search":
        hits = c.search_sessions(args.query)
        if not hits:
            err.write(f"No sessions match {args.query!r}.\n")
        for hit in hits:  # the message id of the hit (`-` for a title or summary match) opens it: sessions show
            out.write(f"{hit.session_id}  {hit.message_id or '-'}  {one_line(hit.title, 40)}"
                      f"{' (archived)' if hit.archived else ''}  {one_line(bracketed(hit.snippet), 100)}\n")
    elif action in ("archive", "unarchive"):
        archived = action == "archive"
        session = (c.archive_session if archived else c.archive_session.undo)(args.id)
        out.write(f"{'Archived' if archived else 'Unarchived'} session {session.id} ({one_line(session.title, 40)})"
                  f"{'; see it with: palimpsest sessions list --archived' if archived else ''}.\n")
    elif action == "compact":
        result = await c.compact_now(args.id, instructions=args.instructions, wait=args.wait,
                                     on_wait=lambda why: print(why, file=err, flush=True))
        if result.did_compact:
            out.write(f"Compacted: {result.tokens_before} → {result.tokens_after} tokens "
                      f"(summary {result.summary_tokens} tokens).\n")
        elif result.fallback:
            err.write("palimpsest: the summarizer failed twice; the session was left unchanged. Try again later "
                      "or choose another model with chat -p/-m.\n")
            return 1
        else:
            out.write(f"Nothing to compact{f' ({result.reason})' if result.reason else ''}.\n")
    elif action == "reset-context":
        session = c.reset_context(args.id)
        out.write(f"Context reset for {session.id}: the summary was dropped; all original messages are sent again.\n")
    elif action == "context":
        status = c.context_status(args.id.strip())
        out.write((json.dumps(status_to_dict(status), indent=2) if args.json else render_status(status)) + "\n")
    elif action == "delete" and getattr(args, "permanently", False):
        session = c.delete_session.permanently(args.id)
        out.write(f"Deleted session {session.id} ({one_line(session.title, 40)}) permanently.\n")
    elif action == "reasoning":
        out.write(_reasoning(c, args.id.strip(), args.level) + "\n")
    elif action == "web-search":
        out.write(session_web_search(c, args.id.strip(), args.choice) + "\n")
    elif action == "prompt":
        out.write(session_prompt(c, args.id.strip(), args.text, clear=args.clear) + "\n")
    elif action == "delete":
        session = c.delete_session(args.id)
        out.write(f"Deleted session {session.id} ({one_line(session.title, 40)}).\n")
    return 0


def _reasoning(c: Container, session_id: str, level: str | None) -> str:
    if level is not None:
        c.set_session_reasoning(session_id, None if level == "default" else level)
    ctx = c.contexts.load(session_id, strict=False)  # the level in force after the agent's and the session's choice
    source = "this session's own setting" if ctx.session.reasoning is not None else "the agent's or the app's setting"
    caps = ctx.model.capabilities if ctx.model else None
    levels = caps.reasoning_levels() if caps is not None and caps.source("thinking") is not None else ()  # known
    offered = f"; {ctx.model.id} offers {', '.join(levels)}" if ctx.model and levels else ""
    return f"Reasoning for {session_id}: {ctx.settings.reasoning} ({source}{offered})."


def bracketed(snippet: str) -> str:
    """A search snippet for a terminal: each match between brackets."""
    return snippet.replace(MATCH_OPEN, "[").replace(MATCH_CLOSE, "]")
