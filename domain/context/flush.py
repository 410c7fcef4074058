"""The pre-compaction memory flush: when to run the silent turn, and what it says."""

from __future__ import annotations

from domain.models import Session
from domain.settings import ContextSettings

FLUSH_MAX_OUTPUT_TOKENS = 1_024  # the flush turn answers with save_memory calls or a silent token

SILENT_TOKEN = "NO_REPLY"

FLUSH_PROMPT = (
    "[System notice — not from the user] The conversation is about to be compacted: older messages will be "
    "replaced by a summary. Before that happens, save any durable facts worth keeping across conversations "
    "(the user's stable preferences, identities, long-lived project facts, decisions that will still matter) "
    "with the save_memory tool, one fact per call. Do not save transient details or anything already saved. "
    f"When you are done, or if there is nothing to save, reply with exactly {SILENT_TOKEN} and nothing else."
)


def flush_threshold(window: int, settings: ContextSettings) -> int:
    """The estimate above which the flush runs: the compaction threshold minus the flush margin."""
    return int(window * settings.compact_threshold_ratio) - settings.memory_flush_margin_tokens


def should_flush(estimate: int, window: int | None, settings: ContextSettings, session: Session) -> bool:
    """True when the silent memory-flush turn should run now (at most once per compaction cycle)."""
    if not settings.memory_flush_enabled or not window or window <= 0:
        return False
    if session.flushed_in_compaction_cycle:
        return False
    return estimate > flush_threshold(window, settings)


def is_silent_reply(text: str) -> bool:
    """True when a flush turn's reply is the silent token (possibly with whitespace or punctuation)."""
    return text.strip().strip(".").strip() in ("", SILENT_TOKEN)
