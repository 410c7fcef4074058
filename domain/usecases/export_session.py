"""Export session: a whole conversation as Markdown or JSON, summary and every original message included."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, Literal

from domain.attachment import Attachment
from domain.errors import InvalidInput
from domain.models import SessionId
from domain.ports import MessageRepository, SessionRepository
from domain.usecases.show_session import MessageView, SessionDetail, ShowSessionUseCase
from domain.web import footnoted, record_to_json

ExportFormat = Literal["markdown", "json"]
FORMATS: tuple[str, ...] = ("markdown", "json")
_ROLE = {"user": "User", "ai_response": "Assistant", "tool_call": "Tool call", "tool_result": "Tool result",
         "error": "Error"}


def _time(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def message_to_dict(view: MessageView) -> dict[str, Any]:
    """One message as plain JSON-ready data."""
    m = view.message
    return {
        "id": m.id, "parent_id": m.parent_id, "seq": m.seq, "type": m.type.value, "content": m.content,
        "thinking_content": m.thinking_content, "tool_call_id": m.tool_call_id, "tool_name": m.tool_name,
        "tool_input": m.tool_input, "tool_output": m.tool_output,
        "tool_status": m.tool_status.value if m.tool_status else None,
        "tool_output_original_chars": m.tool_output_original_chars, "provider_id": m.provider_id,
        "model_id": m.model_id, "input_tokens": m.input_tokens, "output_tokens": m.output_tokens,
        "incomplete": m.incomplete, "end_reason": m.end_reason.value if m.end_reason is not None else None,
        "pinned": m.pinned, "created_at": _time(m.created_at),
        "behind_boundary": view.behind_boundary, "active": m.active,
        "reasoning_tokens": m.reasoning_tokens, "thinking_ms": m.thinking_ms,
        "reasoning": [  # signatures and opaque data elided: they are the provider's, not the user's to read
            {"kind": b.kind.value, "text": b.text, "signed": bool(b.signature or b.data), "provider_id": b.provider_id,
             "model_id": b.model_id}
            for b in m.reasoning
        ],
        "attachments": [attachment_to_dict(a) for a in m.attachments],
        # the provider's own search blocks elided like signatures: the sources and citations are kept
        "web": json.loads(record_to_json(m.web.pruned()) or "null") if m.web is not None else None,
    }


def attachment_to_dict(a: Attachment) -> dict[str, Any]:
    """An attachment's stored metadata as JSON-ready data (its bytes stay in the attachment store)."""
    return {"name": a.name, "kind": a.kind.value, "media_type": a.media_type, "size": a.size, "sha256": a.sha256,
            "width": a.width, "height": a.height, "pages": a.pages}


def detail_to_dict(detail: SessionDetail) -> dict[str, Any]:
    """A session's detail as plain JSON-ready data (the shape of `sessions show --json` and JSON export)."""
    s = detail.session
    return {
        "id": s.id, "title": s.title, "created_at": _time(s.created_at), "updated_at": _time(s.updated_at),
        "agent_id": s.current_agent_id, "provider_id": s.current_provider_id, "model_id": s.current_model_id,
        "compacted_summary": s.compacted_summary, "compact_boundary": s.compact_boundary,
        "reasoning": s.reasoning, "system_prompt": s.system_prompt,
        "compaction_count": s.compaction_count, "total_input_tokens": s.total_input_tokens,
        "total_output_tokens": s.total_output_tokens, "total_cache_read_tokens": s.total_cache_read_tokens,
        "message_count": len(detail.messages),
        "compactions": [
            {"created_at": _time(c.created_at), "boundary": c.boundary, "tokens_before": c.tokens_before,
             "tokens_after": c.tokens_after, "summary_tokens": c.summary_tokens, "trigger": c.trigger,
             "summary": c.summary, "through_id": c.through_id}
            for c in detail.compactions
        ],
        "messages": [message_to_dict(v) for v in detail.messages],
    }


def detail_json_chunks(detail: SessionDetail, per_chunk: int = 200) -> Iterator[str]:
    """`json.dumps(detail_to_dict(detail), ensure_ascii=False, indent=2)` in pieces, one per `per_chunk` messages
    (their concatenation is that text exactly): a long session is written as it is encoded, never held whole."""
    data = detail_to_dict(SessionDetail(detail.session, (), detail.compactions))
    data["message_count"] = len(detail.messages)
    views = detail.messages
    if not views:
        yield json.dumps(data, ensure_ascii=False, indent=2)
        return
    head = json.dumps(data, ensure_ascii=False, indent=2)
    yield head[:head.rindex('"messages": []')] + '"messages": [\n'
    for start in range(0, len(views), per_chunk):
        encoded = (json.dumps(message_to_dict(v), ensure_ascii=False, indent=2) for v in views[start:start + per_chunk])
        lead = "" if start == 0 else ",\n"  # JSON text has no raw newline inside a string: lines are safe to indent
        yield lead + ",\n".join("    " + item.replace("\n", "\n    ") for item in encoded)
    yield "\n  ]\n}"


def demote_headings(markdown: str, top: int) -> str:
    """The Markdown with its headings shifted so the highest is level `top` (at most 6); code fences untouched."""
    lines = markdown.splitlines()
    fenced, levels = False, []
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and _heading_level(line):
            levels.append(_heading_level(line))
    shift = max(0, top - min(levels)) if levels else 0
    if not shift:
        return markdown
    out, fenced = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        level = 0 if fenced else _heading_level(line)
        out.append("#" * min(6, level + shift) + line[level:] if level else line)
    return "\n".join(out)


def _heading_level(line: str) -> int:
    hashes = len(line) - len(line.lstrip("#"))
    return hashes if 1 <= hashes <= 6 and line[hashes:hashes + 1] in (" ", "") else 0


def attachment_markdown(a: Attachment, link: str | None) -> str:
    """One attachment in Markdown: an image shown, another file linked, by the path of its exported copy (or only
    named when there is no copy)."""
    if link is None:
        return f"*Attached: {a.label}*"
    target = link.replace(" ", "%20")
    return f"![{a.name}]({target})" if a.kind.value == "image" else f"[{a.name}]({target}) — {a.label}"


def detail_to_markdown(detail: SessionDetail, links: Mapping[str, str] | None = None) -> str:
    """A session's detail as a readable Markdown document; `links`: sha256 -> the relative path of each
    attachment's exported copy (attachments without one are only named)."""
    s = detail.session
    out = [f"# {s.title}", "", f"- Session: `{s.id}`", f"- Created: {_time(s.created_at)}",
           f"- Compactions: {s.compaction_count}",
           f"- Tokens: {s.total_input_tokens} in, {s.total_output_tokens} out, {s.total_cache_read_tokens} cached", ""]
    if s.compacted_summary:
        out += ["## Current summary", "", demote_headings(s.compacted_summary, top=3), ""]
    out += ["## Messages", ""]
    for view in detail.messages:
        m = view.message
        label = _ROLE.get(m.type.value, m.type.value)
        flags = [f for f, on in (("summarized", view.behind_boundary), ("incomplete", m.incomplete),
                                 ("pinned", m.pinned)) if on]
        extra = f" ({', '.join(flags)})" if flags else ""
        name = f" `{m.tool_name}`" if m.tool_name else ""
        out.append(f"### {label}{name}{extra} — {_time(m.created_at) or ''}".rstrip(" —"))
        out.append("")
        if m.thinking_content and m.thinking_content.strip():  # reasoning folded, above the reply
            out += ["<details><summary>Thinking</summary>", "", m.thinking_content.strip(), "", "</details>", ""]
        body = footnoted(m.content, m.web)
        if m.type.value == "tool_call" and m.tool_input:
            body = f"```json\n{m.tool_input}\n```"
        elif m.type.value == "tool_result":
            body = f"```\n{m.tool_output or ''}\n```"
        out += [body, ""]
        out += [line for a in m.attachments for line in (attachment_markdown(a, (links or {}).get(a.sha256)), "")]
    return "\n".join(out)


class ExportSessionUseCase:
    """Renders a session for export; InvalidInput for an unknown format."""

    def __init__(self, sessions: SessionRepository, messages: MessageRepository) -> None:
        self._show = ShowSessionUseCase(sessions, messages)

    def __call__(self, session_id: SessionId, fmt: str = "markdown", *, links: Mapping[str, str] | None = None,
                 embedded: Mapping[str, str] | None = None) -> str:
        """The exported text; Markdown links attachments by `links` (sha256 -> relative path), JSON embeds them by
        `embedded` (sha256 -> base64) or else references them by digest."""
        if fmt not in FORMATS:
            raise InvalidInput(f"Unknown export format {fmt!r}; use markdown or json.")
        if fmt == "json":  # every branch (`active` marks the path), so `palimpsest import palimpsest` loses nothing
            data = detail_to_dict(self._show(session_id, include_inactive=True))
            for message in data["messages"]:
                for item in message["attachments"]:
                    if embedded and item["sha256"] in embedded:
                        item["data_base64"] = embedded[item["sha256"]]
                    elif links and item["sha256"] in links:
                        item["path"] = links[item["sha256"]]
            return json.dumps(data, ensure_ascii=False, indent=2)
        return detail_to_markdown(self._show(session_id), links)

    def attachments(self, session_id: SessionId) -> list[Attachment]:
        """The session's attachments (every message on every branch, each file once), in order."""
        seen: dict[str, Attachment] = {}
        for view in self._show(session_id, include_inactive=True).messages:
            for a in view.message.attachments:
                seen.setdefault(a.sha256, a)
        return list(seen.values())
