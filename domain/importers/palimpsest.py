"""Reads Palimpsest's own JSON export (`sessions export --format json`, one session or a list of them): every
branch, the active path, the summary and the compaction log, ids kept (so a second import finds them)."""

from __future__ import annotations

from typing import Any

from domain.importers.model import ImportedConversation, MalformedExport, expect, load_json, ordered, when
from domain.models import (
    CompactionRecord,
    Message,
    MessageType,
    ReasoningBlock,
    ReasoningKind,
    ReplyEnd,
    ToolStatus,
)
from domain.settings import MAX_SYSTEM_PROMPT_CHARS
from domain.web import record_from_dict

_TEXT_FIELDS = ("content", "thinking_content", "tool_call_id", "tool_name", "tool_input", "tool_output",
                "provider_id", "model_id")


def read_palimpsest(text: str) -> list[ImportedConversation]:
    """Every session of the export; MalformedExport (with where) for anything it cannot read."""
    data = load_json(text)
    items = data if isinstance(data, list) else [data]
    return [conversation(item, f"sessions[{i}]" if isinstance(data, list) else "the session")
            for i, item in enumerate(items)]


def conversation(item: Any, where: str) -> ImportedConversation:
    """One conversation of the export (its decoded JSON at `where`); MalformedExport for what it cannot read."""
    expect(item, dict, where, "a session object")
    session_id = expect(item.get("id"), str, f"{where}.id", "the session's id")
    raw_messages = expect(item.get("messages"), list, f"{where}.messages", "a list of messages")
    created = when(item.get("created_at"), f"{where}.created_at")
    messages = [_message(m, f"{where}.messages[{i}]", session_id) for i, m in enumerate(raw_messages)]
    ids = {m.id for m in messages}
    for i, m in enumerate(messages):
        if m.parent_id is not None and m.parent_id not in ids:
            raise MalformedExport(f"{where}.messages[{i}].parent_id", f"a parent that is not in the file "
                                                                      f"({m.parent_id!r})")
    active = [m for m in messages if m.active]
    leaf = max(active, key=lambda m: m.seq).id if active else None
    records = tuple(_record(r, f"{where}.compactions[{i}]", session_id)
                    for i, r in enumerate(expect(item.get("compactions", []), list, f"{where}.compactions",
                                                 "a list of compactions")))
    totals = tuple(int(item.get(k) or 0) for k in ("total_input_tokens", "total_output_tokens",
                                                    "total_cache_read_tokens"))
    return ImportedConversation(
        session_id=session_id, title=str(item.get("title") or "Imported conversation"), created_at=created,
        updated_at=when(item.get("updated_at"), f"{where}.updated_at", created),
        messages=ordered(messages, f"{where}.messages", key=lambda m: m.seq), leaf_id=leaf,
        checkpoints=records, summary=item.get("compacted_summary") if isinstance(item.get("compacted_summary"),
                                                                                 str) else None,
        agent_id=item.get("agent_id"), provider_id=item.get("provider_id"), model_id=item.get("model_id"),
        totals=(totals[0], totals[1], totals[2]),
        reasoning=item.get("reasoning") if isinstance(item.get("reasoning"), str) else None,
        system_prompt=_prompt(item.get("system_prompt"), f"{where}.system_prompt"),
    )


def _prompt(value: object, where: str) -> str | None:
    """An exported session's own system prompt: a non-blank string, else None (the agent's applies); one longer than
    a prompt may be is refused, as `sessions prompt` refuses it."""
    text = value.strip() if isinstance(value, str) else ""
    if len(text) > MAX_SYSTEM_PROMPT_CHARS:
        raise MalformedExport(where, f"a system prompt longer than {MAX_SYSTEM_PROMPT_CHARS:,} characters")
    return text or None


def _message(raw: Any, at: str, session_id: str) -> Message:
    expect(raw, dict, at, "a message object")
    try:
        kind = MessageType(raw.get("type"))
    except ValueError:
        raise MalformedExport(f"{at}.type", f"an unknown message type ({raw.get('type')!r})") from None
    values: dict[str, Any] = {k: raw.get(k) for k in _TEXT_FIELDS}
    for k, v in values.items():
        if v is not None and not isinstance(v, str):
            raise MalformedExport(f"{at}.{k}", "expected a string")
    status = raw.get("tool_status")
    blocks = tuple(ReasoningBlock(ReasoningKind(b["kind"]), text=str(b.get("text") or ""),
                                  provider_id=b.get("provider_id"), model_id=b.get("model_id"))
                   for b in raw.get("reasoning") or [] if isinstance(b, dict) and b.get("kind") in _KINDS)
    return Message(
        id=expect(raw.get("id"), str, f"{at}.id", "the message's id"), session_id=session_id, type=kind,
        created_at=when(raw.get("created_at"), f"{at}.created_at"),
        seq=int(expect(raw.get("seq", 0), int, f"{at}.seq", "a number")),
        tool_status=ToolStatus(status) if status in ("success", "error") else None,
        tool_output_original_chars=raw.get("tool_output_original_chars"),
        input_tokens=raw.get("input_tokens"), output_tokens=raw.get("output_tokens"),
        reasoning_tokens=raw.get("reasoning_tokens"), thinking_ms=raw.get("thinking_ms"),
        incomplete=bool(raw.get("incomplete")), pinned=bool(raw.get("pinned")), active=bool(raw.get("active", True)),
        end_reason=_ENDS.get(raw.get("end_reason") or ""), parent_id=raw.get("parent_id"), reasoning=blocks,
        content=values.pop("content") or "", **values,
        web=record_from_dict(raw["web"]).pruned() if isinstance(raw.get("web"), dict) else None,
    )


_KINDS = frozenset(k.value for k in ReasoningKind)
_ENDS = {e.value: e for e in ReplyEnd}  # a reason this version does not know: not known


def _record(raw: Any, at: str, session_id: str) -> CompactionRecord:
    expect(raw, dict, at, "a compaction object")
    return CompactionRecord(
        session_id=session_id, created_at=when(raw.get("created_at"), f"{at}.created_at"),
        boundary=int(expect(raw.get("boundary"), int, f"{at}.boundary", "a number")),
        tokens_before=int(raw.get("tokens_before") or 0), tokens_after=int(raw.get("tokens_after") or 0),
        summary_tokens=int(raw.get("summary_tokens") or 0), trigger=str(raw.get("trigger") or "imported"),
        summary=raw.get("summary") if isinstance(raw.get("summary"), str) else None,
        through_id=raw.get("through_id") if isinstance(raw.get("through_id"), str) else None,
    )
