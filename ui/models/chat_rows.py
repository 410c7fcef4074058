"""What the chat list shows, row by row, built from stored messages by pure functions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from domain.attachment import Attachment
from domain.models import Message, MessageType, ReasoningKind, ToolStatus
from ui.markdown_sources import with_sources


class RowKind(StrEnum):
    """Kinds of rows in the chat list."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    THINKING = "thinking"  # the model's reasoning before a reply: collapsible, collapsed once the reply starts
    ERROR = "error"
    DIVIDER = "divider"
    LOAD_OLDER = "load_older"


@dataclass(frozen=True)
class ChatRow:
    """One row of the chat: a message, a tool call with its result, an error, or the compaction divider."""

    kind: RowKind
    key: str
    text: str = ""
    message_id: str | None = None
    seq: int = -1
    dimmed: bool = False
    pinned: bool = False
    streaming: bool = False
    incomplete: bool = False
    model_label: str | None = None
    tool_name: str | None = None
    tool_input: str | None = None
    tool_output: str | None = None
    tool_chars: int | None = None
    tool_truncated: bool = False
    tool_error: bool = False
    tool_running: bool = False
    tool_progress: str | None = None  # a running tool's last progress report ("step 2 of 3 (67%)")
    retryable: bool = False
    fix_page: str | None = None  # an ERROR row: the Settings page that fixes it ("Open Settings › Providers")
    switch_to: tuple[str, str] | None = None  # an ERROR row: the (provider, model) that replaces a retired model
    switch_label: str = ""  # ... as the action names it ("Use Claude Sonnet 4.6 and retry")
    choose_model: bool = False  # an ERROR row: a retired model its vendor named no successor for (the model picker)
    ended: str = ""  # an incomplete ASSISTANT row: "stopped" (by the user) or "cut" (by a failure); "": not known
    summarized_count: int = 0
    unanswered: bool = False  # a user message whose turn failed before any reply (Retry when it is the newest)
    thinking_ms: int | None = None  # a THINKING row: how long the model reasoned
    thinking_tokens: int | None = None  # a THINKING row: reasoning tokens the provider reported
    redacted: bool = False  # a THINKING row: (part of) the reasoning came encrypted, unreadable to anyone
    branch: tuple[int, int] = (0, 0)  # this version's number and how many versions there are (‹ 2 / 3 ›)
    branch_prev: str | None = None  # the message id of the previous / next version
    branch_next: str | None = None
    attachments: tuple[Attachment, ...] = ()  # a user message's files (thumbnails above its text); a tool's images

    def __hash__(self) -> int:
        """Hashed once per row (a row keys the layout cache at every size query and paint; it never changes)."""
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(getattr(self, name) for name in _ROW_FIELDS))
            object.__setattr__(self, "_hash", cached)
        return cached


_ROW_FIELDS = tuple(f.name for f in fields(ChatRow))


def format_arguments(arguments: Mapping[str, Any] | str | None) -> str:
    """Tool arguments as pretty JSON (or the raw text when it is not JSON); code to run (`{"code", "language"}`, as a
    code interpreter's call is stored) as a fenced code block in its language."""
    if arguments is None:
        return ""
    value: Any = arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            return arguments
    if isinstance(value, dict) and isinstance(value.get("code"), str) and set(value) <= {"code", "language"}:
        return f"```{value.get('language') or ''}\n{value['code']}\n```"
    return json.dumps(value, indent=2, ensure_ascii=False)


def is_truncated(result: Message) -> bool:
    """Whether the stored tool output is shorter than the original."""
    original = result.tool_output_original_chars
    stored = len(result.tool_output or "")
    return original is not None and original > stored


def rows_from_messages(
    messages: Sequence[Message],
    *,
    boundary_seq: int | None,
    summarized_count: int,
    show_originals: bool,
    has_older: bool,
    siblings: Mapping[str, Sequence[str]] | None = None,
    has_newer: bool = False,
) -> list[ChatRow]:
    """Rows for stored messages: tool calls paired with results, the divider at the compaction boundary.

    Messages with seq < boundary_seq are behind the boundary: hidden unless show_originals (then dimmed),
    except pinned ones, which are always shown because they are always sent. A message with `siblings` (other
    versions: an edit, a regenerated answer) gets its place among them for the ‹ n / m › switcher. has_newer: the
    messages are a window the path goes on after (a search hit far back): a boundary after them is not drawn here.
    """
    versions = siblings or {}
    results = {m.tool_call_id: m for m in messages if m.type is MessageType.TOOL_RESULT and m.tool_call_id}
    unanswered = unanswered_ids(messages)
    if has_newer and messages:  # the last one of a window is answered further down (not read yet)
        unanswered.discard(messages[-1].id)
    rows: list[ChatRow] = []
    divider_done = boundary_seq is None
    if has_older and (show_originals or boundary_seq is None or (messages and messages[0].seq >= boundary_seq)):
        rows.append(ChatRow(RowKind.LOAD_OLDER, "load-older", text="Load earlier messages"))
    for message in messages:
        behind = boundary_seq is not None and message.seq < boundary_seq
        if not divider_done and not behind:
            rows.append(_divider(summarized_count, boundary_seq, show_originals))
            divider_done = True
        if behind and not show_originals and not message.pinned:
            continue
        thinking = thinking_row(message, dimmed=behind)
        if thinking is not None:
            rows.append(thinking)
        row = _row(message, results, dimmed=behind)
        if row is not None and message.id in unanswered and not behind:
            row = replace(row, unanswered=True, retryable=message is messages[-1])
        if row is not None and message.id in versions and row.kind in (RowKind.USER, RowKind.ASSISTANT):
            row = with_versions(row, message.id, versions[message.id])
        if row is not None:
            rows.append(row)
    if not divider_done and summarized_count > 0 and not has_newer:  # under a window the boundary is further down
        rows.append(_divider(summarized_count, boundary_seq, show_originals))
    return rows


def with_versions(row: ChatRow, message_id: str, versions: Sequence[str]) -> ChatRow:
    """The row with its place among the versions of its message (oldest first)."""
    at = versions.index(message_id) if message_id in versions else 0
    return replace(row, branch=(at + 1, len(versions)), branch_prev=versions[at - 1] if at > 0 else None,
                   branch_next=versions[at + 1] if at + 1 < len(versions) else None)


def with_error_row(rows: Sequence[ChatRow], error: ChatRow) -> list[ChatRow]:
    """The rows with a failed turn's error row last; a reply kept incomplete just above it was cut by the failure
    (its caption says so, not that the user stopped it)."""
    out = list(rows)
    if out and out[-1].kind is RowKind.ASSISTANT and out[-1].incomplete and not out[-1].ended:
        out[-1] = replace(out[-1], ended="cut")
    return [*out, error]


def unanswered_ids(messages: Sequence[Message]) -> set[str]:
    """Ids of user messages no reply followed: the next message is another user message (or an error), or none."""
    ids = set()
    for i, message in enumerate(messages):
        if message.type is MessageType.USER:
            following = messages[i + 1] if i + 1 < len(messages) else None
            if following is None or following.type in (MessageType.USER, MessageType.ERROR):
                ids.add(message.id)
    return ids


def _divider(count: int, boundary_seq: int | None, originals_shown: bool) -> ChatRow:
    """The compaction divider; `dimmed` on it means the originals above are shown."""
    noun = "message" if count == 1 else "messages"
    return ChatRow(
        RowKind.DIVIDER, "divider", text=f"{count:,} earlier {noun} summarized", seq=boundary_seq or 0,
        summarized_count=count, dimmed=originals_shown,
    )


def thinking_row(message: Message, *, dimmed: bool = False) -> ChatRow | None:
    """The collapsed Thinking row above a reply that reasoned readably or in redacted form; None otherwise."""
    if message.type is not MessageType.AI_RESPONSE:
        return None
    text = (message.thinking_content or "").strip()
    redacted = any(b.kind is ReasoningKind.REDACTED for b in message.reasoning)
    if not text and not redacted:
        return None
    return ChatRow(
        RowKind.THINKING, key=f"{message.id}:thinking", text=text, message_id=message.id, seq=message.seq,
        dimmed=dimmed, thinking_ms=message.thinking_ms, thinking_tokens=message.reasoning_tokens, redacted=redacted,
    )


def thinking_status(row: ChatRow) -> str:
    """The Thinking header's detail: how long, how many tokens (as the provider reported them), and whether any of it
    was redacted."""
    if row.streaming:
        return "thinking…"
    parts = []
    if row.thinking_ms is not None:
        seconds = row.thinking_ms / 1000
        parts.append(f"{seconds:.1f} s" if seconds < 10 else f"{round(seconds)} s")
    if row.thinking_tokens:  # only the provider's count: the UI makes up no token figure of its own
        parts.append(f"{row.thinking_tokens:,} tokens")
    if row.redacted:
        parts.append("redacted by the provider" if not row.text else "partly redacted by the provider")
    return " · ".join(parts)


def _row(message: Message, results: Mapping[str, Message], *, dimmed: bool) -> ChatRow | None:
    common: dict[str, Any] = {
        "key": message.id, "message_id": message.id, "seq": message.seq, "dimmed": dimmed, "pinned": message.pinned,
    }
    if message.type is MessageType.USER:
        return ChatRow(RowKind.USER, text=message.content, attachments=message.attachments, **common)
    if message.type is MessageType.AI_RESPONSE:
        if not message.content.strip() and not message.incomplete:
            return None
        return ChatRow(
            RowKind.ASSISTANT, text=with_sources(message.content, message.web), incomplete=message.incomplete,
            ended=message.end_reason.value if message.incomplete and message.end_reason is not None else "",
            model_label=message.model_id, **common,
        )
    if message.type is MessageType.TOOL_CALL:
        result = results.get(message.tool_call_id or "")
        return tool_row(message, result, dimmed=dimmed)
    if message.type is MessageType.TOOL_RESULT:
        return None  # shown inside its call's row
    return ChatRow(RowKind.ERROR, text=message.content, **common)


def tool_row(call: Message, result: Message | None, *, dimmed: bool = False) -> ChatRow:
    """One collapsible row for a tool call and (when it ran) its result."""
    output = result.tool_output if result is not None else None
    chars = None
    if result is not None:
        chars = result.tool_output_original_chars or len(output or "")
    return ChatRow(
        RowKind.TOOL,
        key=call.id,
        message_id=(result.id if result is not None else call.id),
        seq=call.seq,
        dimmed=dimmed,
        pinned=call.pinned,
        tool_name=call.tool_name or "tool",
        tool_input=format_arguments(call.tool_input),
        tool_output=output,
        tool_chars=chars,
        tool_truncated=result is not None and is_truncated(result),
        tool_error=result is not None and result.tool_status is ToolStatus.ERROR,
        tool_running=result is None,
        attachments=result.attachments if result is not None else (),  # images the tool returned
    )
