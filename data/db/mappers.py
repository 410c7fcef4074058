"""Mappers between rows and domain entities, both ways."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import fields
from datetime import date
from typing import Any

from data.db.attachments_json import attachments_from_json, attachments_to_json
from data.db.capabilities_json import capabilities_from_json, capabilities_to_json
from domain.models import (
    Agent,
    AiModel,
    CompactionRecord,
    Memory,
    Message,
    MessageType,
    ModelSource,
    Provider,
    ProviderApi,
    ProviderType,
    ReasoningBlock,
    ReasoningKind,
    ReplyEnd,
    Retirement,
    Session,
    ToolStatus,
    WindowSource,
)
from domain.settings import ContextSettings
from domain.web import record_from_json, record_to_json

Row = Any  # a row of data.db.rows or a data.lite Record: read by column name as attributes (no SQLAlchemy imported)

_SETTING_NAMES = frozenset(f.name for f in fields(ContextSettings))


def provider_to_domain(row: Row) -> Provider:
    return Provider(id=row.id, name=row.name, type=ProviderType(row.type), base_url=row.base_url,
                    is_active=bool(row.is_active), api=ProviderApi.stored(row.api))


def model_to_domain(row: Row) -> AiModel:
    return AiModel(
        id=row.id, display_name=row.display_name, provider_id=row.provider_id, is_default=bool(row.is_default),
        source=ModelSource(row.source), context_window_size=row.context_window_size,
        max_output_tokens=row.max_output_tokens, window_is_guess=bool(row.window_is_guess),
        user_window=bool(row.user_window), window_source=_window_source(row), input_limit=row.input_limit,
        capabilities=capabilities_from_json(row.capabilities), trained_window=row.trained_window,
        retirement=reported_retirement(row.retires_on),
    )


def reported_retirement(day: str | None) -> Retirement | None:
    """The retirement day the provider's own list reported (stored ISO day; one unreadable is taken as none)."""
    if not day:
        return None
    try:
        return Retirement(date.fromisoformat(day))
    except ValueError:
        return None


def retirement_day(model: AiModel) -> str | None:
    """The day to store for a model of a provider's list: the one that list reported, else none."""
    return model.retirement.on.isoformat() if model.retirement is not None else None


def _window_source(row: Row) -> WindowSource:
    if row.user_window:
        return WindowSource.USER
    try:
        return WindowSource(row.window_source) if row.window_source else WindowSource.REGISTRY
    except ValueError:  # a value written by a newer Palimpsest
        return WindowSource.REGISTRY


def model_onto_row(model: AiModel, row: Row) -> None:
    row.display_name = model.display_name
    row.is_default = model.is_default
    row.source = model.source.value
    row.context_window_size = model.context_window_size
    row.max_output_tokens = model.max_output_tokens
    row.window_is_guess = model.window_is_guess
    row.user_window = model.user_window
    row.window_source = model.window_source.value
    row.input_limit = model.input_limit
    row.capabilities = capabilities_to_json(model.capabilities)
    row.trained_window = model.trained_window


def agent_to_domain(row: Row) -> Agent:
    return Agent(
        id=row.id, name=row.name, system_prompt=row.system_prompt,
        preferred_provider_id=row.preferred_provider_id, preferred_model_id=row.preferred_model_id,
        enabled_tools=tuple(_json(row.tool_names, [])),
        context_overrides=known_overrides(_json(row.context_overrides, {})),
    )


def agent_onto_row(agent: Agent, row: Row) -> None:
    row.name = agent.name
    row.system_prompt = agent.system_prompt
    row.preferred_provider_id = agent.preferred_provider_id
    row.preferred_model_id = agent.preferred_model_id
    row.tool_names = json.dumps(list(agent.enabled_tools))
    row.context_overrides = json.dumps(dict(agent.context_overrides))


def known_overrides(raw: Any) -> dict[str, Any]:
    """Drops keys this version does not know (written by an older or newer Palimpsest)."""
    return {k: v for k, v in raw.items() if k in _SETTING_NAMES} if isinstance(raw, Mapping) else {}


def session_to_domain(row: Row) -> Session:
    return Session(
        id=row.id, title=row.title, current_agent_id=row.current_agent_id, created_at=row.created_at,
        updated_at=row.updated_at, message_count=row.message_count, last_message_preview=row.last_message_preview,
        is_active=bool(row.is_active), deleted_at=row.deleted_at, compacted_summary=row.compacted_summary,
        compact_boundary=row.compact_boundary, compaction_count=row.compaction_count,
        total_input_tokens=row.total_input_tokens, total_output_tokens=row.total_output_tokens,
        total_cache_read_tokens=row.total_cache_read_tokens,
        flushed_in_compaction_cycle=bool(row.flushed_in_compaction_cycle),
        current_provider_id=row.current_provider_id, current_model_id=row.current_model_id,
        reasoning=row.reasoning, system_prompt=row.system_prompt, web_search=row.web_search,
    )


def session_onto_row(session: Session, row: Row) -> None:
    """Copies the fields a caller may set; counters kept by the store (messages, tokens, compactions) are not."""
    row.title = session.title
    row.current_agent_id = session.current_agent_id
    row.is_active = session.is_active
    row.deleted_at = session.deleted_at
    if row.updated_at is None or session.updated_at > row.updated_at:  # a stale copy never moves it backwards
        row.updated_at = session.updated_at
    row.compacted_summary = session.compacted_summary
    row.compact_boundary = session.compact_boundary
    row.flushed_in_compaction_cycle = session.flushed_in_compaction_cycle
    row.current_provider_id = session.current_provider_id
    row.current_model_id = session.current_model_id
    row.reasoning = session.reasoning
    row.system_prompt = session.system_prompt
    row.web_search = session.web_search


def message_to_domain(row: Row) -> Message:
    return Message(
        id=row.id, session_id=row.session_id, type=MessageType(row.type), content=row.content,
        created_at=row.created_at, seq=row.seq, thinking_content=row.thinking_content,
        tool_call_id=row.tool_call_id, tool_name=row.tool_name, tool_input=row.tool_input,
        tool_output=row.tool_output, tool_status=ToolStatus(row.tool_status) if row.tool_status else None,
        tool_output_original_chars=row.tool_output_original_chars, model_id=row.model_id,
        provider_id=row.provider_id, input_tokens=row.input_tokens, output_tokens=row.output_tokens,
        incomplete=bool(row.incomplete), pinned=bool(row.pinned), has_image=bool(row.has_image),
        active=bool(row.active), reasoning=reasoning_from_json(row.reasoning),
        reasoning_tokens=row.reasoning_tokens, thinking_ms=row.thinking_ms, parent_id=row.parent_id,
        attachments=attachments_from_json(row.attachments), web=record_from_json(row.web),
        end_reason=_ENDS.get(row.end_reason or ""),
    )


_BLOCK_FIELDS = ("text", "signature", "data", "item_id", "provider_id", "model_id")


def reasoning_to_json(blocks: Sequence[ReasoningBlock]) -> str | None:
    """A message's reasoning blocks as compact JSON (None when there are none)."""
    if not blocks:
        return None
    return json.dumps([{"kind": b.kind.value, **{f: getattr(b, f) for f in _BLOCK_FIELDS if getattr(b, f)}}
                       for b in blocks], ensure_ascii=False, separators=(",", ":"))


def reasoning_from_json(text: str | None) -> tuple[ReasoningBlock, ...]:
    """The blocks back; a block of a kind this version does not know is skipped (never sent anywhere)."""
    if not text:
        return ()
    blocks = []
    for item in _json(text, []):
        try:
            kind = ReasoningKind(item.get("kind"))
        except ValueError:
            continue
        blocks.append(ReasoningBlock(kind, **{f: item[f] for f in _BLOCK_FIELDS if item.get(f) is not None}))
    return tuple(blocks)


MESSAGE_COLUMNS = (  # the order plain message rows are selected in (message_from_row unpacks them)
    "id", "session_id", "type", "content", "thinking_content", "tool_call_id", "tool_name", "tool_input", "tool_output",
    "tool_status", "model_id", "provider_id", "input_tokens", "output_tokens", "created_at", "seq", "pinned",
    "incomplete", "has_image", "tool_output_original_chars", "active", "reasoning", "reasoning_tokens", "thinking_ms",
    "parent_id", "attachments", "web", "end_reason",
)
_TYPES = {t.value: t for t in MessageType}
_ENDS = {e.value: e for e in ReplyEnd}  # a reason this version does not know reads as not known
_STATUSES = {s.value: s for s in ToolStatus}


def message_from_row(row: Sequence[Any]) -> Message:
    """A message from a plain row selected in MESSAGE_COLUMNS order (the hot path: a turn reads every message
    since the boundary, the chat's gauge and `sessions show` a whole session)."""
    (id_, session_id, type_, content, thinking, call_id, tool_name, tool_input, tool_output, status, model_id,
     provider_id, input_tokens, output_tokens, created_at, seq, pinned, incomplete, has_image, original_chars,
     active, reasoning, reasoning_tokens, thinking_ms, parent_id, attachments, web, end_reason) = row
    values = {
        "id": id_, "session_id": session_id, "type": _TYPES[type_], "content": content, "created_at": created_at,
        "seq": seq, "thinking_content": thinking, "tool_call_id": call_id, "tool_name": tool_name,
        "tool_input": tool_input, "tool_output": tool_output, "tool_status": _STATUSES[status] if status else None,
        "tool_output_original_chars": original_chars, "model_id": model_id, "provider_id": provider_id,
        "input_tokens": input_tokens, "output_tokens": output_tokens, "incomplete": bool(incomplete),
        "pinned": bool(pinned), "has_image": bool(has_image), "active": bool(active),
        "reasoning": reasoning_from_json(reasoning) if reasoning else (), "reasoning_tokens": reasoning_tokens,
        "thinking_ms": thinking_ms, "parent_id": parent_id,
        "attachments": attachments_from_json(attachments) if attachments else (),
        "web": record_from_json(web) if web else None,
        "end_reason": _ENDS.get(end_reason) if end_reason else None,
    }
    if not _PLAIN_MESSAGE:
        return Message(**values)
    message = _new(Message)  # every field set at once: a frozen dataclass's __init__ sets them one by one
    message.__dict__.update(values)
    return message


# Message has no __post_init__, no __slots__ and exactly the fields of MESSAGE_COLUMNS, so filling its __dict__
# makes the same object as calling it, in about half the time; should any of that change, the constructor is used.
_PLAIN_MESSAGE = (not hasattr(Message, "__post_init__") and "__slots__" not in vars(Message)
                  and {f.name for f in fields(Message)} == set(MESSAGE_COLUMNS))
_new = object.__new__


def message_values(message: Message) -> dict[str, Any]:
    """The columns of a message a caller may set (everything but id, session, seq, created_at and its parent)."""
    return {
        "type": message.type.value, "content": message.content, "thinking_content": message.thinking_content,
        "tool_call_id": message.tool_call_id, "tool_name": message.tool_name, "tool_input": message.tool_input,
        "tool_output": message.tool_output, "tool_status": message.tool_status.value if message.tool_status else None,
        "tool_output_original_chars": message.tool_output_original_chars, "model_id": message.model_id,
        "provider_id": message.provider_id, "input_tokens": message.input_tokens,
        "output_tokens": message.output_tokens, "incomplete": message.incomplete, "pinned": message.pinned,
        "has_image": message.has_image, "active": message.active, "reasoning": reasoning_to_json(message.reasoning),
        "reasoning_tokens": message.reasoning_tokens, "thinking_ms": message.thinking_ms,
        "attachments": attachments_to_json(message.attachments), "web": record_to_json(message.web),
        "end_reason": message.end_reason.value if message.end_reason is not None else None,
    }


def memory_to_domain(row: Row) -> Memory:
    return Memory(id=row.id, content=row.content, created_at=row.created_at, agent_id=row.agent_id,
                  source_session_id=row.source_session_id)


def compaction_to_domain(row: Row) -> CompactionRecord:
    return CompactionRecord(
        session_id=row.session_id, created_at=row.created_at, boundary=row.boundary,
        tokens_before=row.tokens_before, tokens_after=row.tokens_after, summary_tokens=row.summary_tokens,
        trigger=row.trigger, summary=row.summary, through_id=row.through_message_id,
    )


def _json(text: str | None, default: Any) -> Any:
    try:
        return json.loads(text) if text else default
    except ValueError:
        return default
