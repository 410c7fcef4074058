"""Truncation of oversized tool results at storage time; the full original is kept beside the stored head."""

from __future__ import annotations

from dataclasses import dataclass

from domain.settings import ContextSettings

READ_TOOL_NAME = "read_tool_result"


@dataclass(frozen=True)
class TruncatedOutput:
    """What to store for one tool result: the (possibly cut) text and the original when it was cut."""

    stored: str
    original: str | None
    original_chars: int
    truncated: bool


def truncation_marker(kept: int, total: int, message_id: str) -> str:
    """The marker appended to a truncated tool result, naming the tool that pages through the original."""
    return (
        f"\n\n[... content truncated, showing first {kept} of {total} characters ...]\n"
        f"[The full output is kept: call {READ_TOOL_NAME} with message_id=\"{message_id}\" "
        f"and an offset to read the rest.]"
    )


class ToolResultTruncator:
    """Cuts a tool result over the limit (30,000 characters by default) to its head plus a marker."""

    def __init__(self, settings: ContextSettings | None = None) -> None:
        self._settings = settings or ContextSettings()

    def truncate(self, output: str, message_id: str) -> TruncatedOutput:
        """Returns the text to store; `original` is the full output to archive when it was cut, else None."""
        limit = self._settings.tool_result_max_chars
        total = len(output)
        if total <= limit:
            return TruncatedOutput(stored=output, original=None, original_chars=total, truncated=False)
        archived = output
        max_bytes = self._settings.tool_result_archive_max_bytes
        if len(output.encode("utf-8")) > max_bytes:
            archived = output.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
        stored = output[:limit] + truncation_marker(limit, total, message_id)
        return TruncatedOutput(stored=stored, original=archived, original_chars=total, truncated=True)
