"""ToolResultTruncator: results over the limit are stored as their head plus a marker; the original is kept."""

from __future__ import annotations

from domain.context.truncator import ToolResultTruncator
from domain.settings import ContextSettings


def test_result_at_the_limit_is_stored_unchanged() -> None:
    out = ToolResultTruncator().truncate("x" * 30_000, "m1")
    assert out.stored == "x" * 30_000
    assert not out.truncated and out.original is None and out.original_chars == 30_000


def test_result_over_the_limit_keeps_its_first_30000_characters_and_a_marker() -> None:
    text = "".join(chr(97 + i % 26) for i in range(45_000))
    out = ToolResultTruncator().truncate(text, "m1")
    assert out.truncated
    assert out.stored.startswith(text[:30_000])
    assert "[... content truncated, showing first 30000 of 45000 characters ...]" in out.stored
    assert out.original == text and out.original_chars == 45_000


def test_marker_names_read_tool_result_and_the_message_id() -> None:
    out = ToolResultTruncator().truncate("y" * 40_000, "msg-42")
    assert "read_tool_result" in out.stored and "msg-42" in out.stored


def test_archived_original_is_capped_in_bytes() -> None:
    settings = ContextSettings(tool_result_max_chars=100, tool_result_archive_max_bytes=1_000)
    out = ToolResultTruncator(settings).truncate("é" * 5_000, "m1")
    assert out.original is not None and len(out.original.encode()) <= 1_000
    assert out.original_chars == 5_000


def test_limit_comes_from_settings() -> None:
    out = ToolResultTruncator(ContextSettings(tool_result_max_chars=10)).truncate("z" * 11, "m1")
    assert out.stored.startswith("z" * 10) and "showing first 10 of 11 characters" in out.stored
