"""The bounded "Long-term memory" section of the system prompt, built from an agent's saved memories."""

from __future__ import annotations

from collections.abc import Sequence

from domain.models import Memory

MEMORY_HEADER = "## Long-term memory\nFacts saved in earlier conversations (newest first):"


def memory_section(memories: Sequence[Memory], max_chars: int = 4_000) -> str:
    """The section text (empty when there is nothing to say); whole facts only, newest first, within max_chars."""
    if not memories or max_chars <= len(MEMORY_HEADER):
        return ""
    lines: list[str] = []
    size = len(MEMORY_HEADER)
    for memory in sorted(memories, key=lambda m: m.created_at, reverse=True):
        line = "- " + " ".join(memory.content.split())
        if not line.strip("- "):
            continue
        if size + 1 + len(line) > max_chars:
            continue
        lines.append(line)
        size += 1 + len(line)
    return "\n".join([MEMORY_HEADER, *lines]) if lines else ""


def with_memory(system_prompt: str | None, memories: Sequence[Memory], max_chars: int = 4_000) -> str | None:
    """The system prompt with the memory section appended (unchanged when there are no memories)."""
    section = memory_section(memories, max_chars)
    if not section:
        return system_prompt
    return f"{system_prompt.rstrip()}\n\n{section}" if system_prompt and system_prompt.strip() else section
