"""The --jsonl mapping of ChatEvents to one JSON object per line (field names are part of the CLI contract)."""

from __future__ import annotations

import json
from typing import Any

from domain.errors import NetworkError
from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    CompactStarted,
    ContextStatusChanged,
    MemoryFlushed,
    Notice,
    ResponseComplete,
    TextDelta,
    ThinkingDelta,
    TitleGenerated,
    ToolCallStarted,
    ToolProgress,
    ToolResultStored,
    ToolRoundLimitReached,
    Waiting,
)


def session_record(session_id: str) -> dict[str, Any]:
    """The first line of a --jsonl chat: which session the turn belongs to."""
    return {"type": "session", "session_id": session_id}


def event_record(event: ChatEvent) -> dict[str, Any]:
    """One ChatEvent as a JSON-ready dict with a `type` tag."""
    match event:
        case TextDelta(text=text):
            return {"type": "text_delta", "text": text}
        case ThinkingDelta(text=text):
            return {"type": "thinking_delta", "text": text}
        case ToolCallStarted(name=name, input=tool_input):
            return {"type": "tool_call", "name": name, "input": dict(tool_input)}
        case ToolResultStored(name=name, chars=chars, truncated=truncated, images=images):
            return {"type": "tool_result", "name": name, "chars": chars, "truncated": truncated,
                    **({"images": images} if images else {})}
        case ToolProgress(name=name, progress=progress, total=total, message=message):
            return {"type": "progress", "name": name, "progress": progress, "total": total, "message": message}
        case ResponseComplete(usage=usage):
            searched = {"web_search_requests": usage.web_search_requests} if usage.web_search_requests else {}
            return {
                "type": "response_complete",
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    **searched,  # only on a turn that searched
                },
            }
        case CompactStarted():
            return {"type": "compact_started"}
        case CompactCompleted():
            return {
                "type": "compact_completed",
                "did_compact": event.did_compact,
                "fallback": event.fallback,
                "tokens_before": event.tokens_before,
                "tokens_after": event.tokens_after,
            }
        case MemoryFlushed(saved_count=saved):
            return {"type": "memory_flush", "saved": saved}
        case ChatError(kind=kind, message=message, error=NetworkError(reason=reason, url=url)):
            return {"type": "error", "kind": kind, "message": message, "reason": reason, "url": url}
        case ChatError(kind=kind, message=message):
            return {"type": "error", "kind": kind, "message": message}
        case ContextStatusChanged(status=status):
            return {"type": "context_status", "used": status.used, "window": status.window}
        case TitleGenerated(title=title):
            return {"type": "title", "title": title}
        case ToolRoundLimitReached(rounds=rounds):
            return {"type": "tool_round_limit", "rounds": rounds}
        case Waiting(seconds=seconds):
            return {"type": "waiting", "seconds": seconds}
        case Notice(message=message, warning=True):
            return {"type": "warning", "message": message}
        case Notice(message=message):
            return {"type": "notice", "message": message}
    raise TypeError(f"not a ChatEvent: {event!r}")


def dumps(record: dict[str, Any]) -> str:
    """One compact JSON line (non-ASCII kept readable)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
