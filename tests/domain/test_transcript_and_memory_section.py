"""The summarizer's transcript and chunks, and the bounded long-term memory section."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.context.memory_section import MEMORY_HEADER, memory_section, with_memory
from domain.context.transcript import chunk_blocks, render_transcript
from domain.models import Memory
from tests.domain.conversation import Conversation


def test_transcript_labels_every_message_and_clips_long_tool_output() -> None:
    c = Conversation()
    c.user("fix /src/app.py")
    c.tool_round("E" * 10_000, name="read_file", text="Looking")
    c.assistant("Fixed the KeyError in app.py")
    text = render_transcript(c.messages)
    assert "[User]\nfix /src/app.py" in text and "[Assistant]\nFixed the KeyError in app.py" in text
    assert "[Assistant called tool read_file]" in text and "[Tool result read_file]" in text
    assert "characters omitted" in text and len(text) < 3_000


def test_chunks_respect_the_limit_and_lose_nothing() -> None:
    blocks = [f"block {i} " + "x" * (i * 37 % 500) for i in range(100)] + ["y" * 2_500]
    chunks = chunk_blocks(blocks, 1_000)
    assert all(len(c) <= 1_000 for c in chunks)
    joined = "".join(chunks).replace("\n\n", "")
    assert joined == "".join(blocks)


def memory(text: str, minutes: int) -> Memory:
    return Memory(id=text, content=text, created_at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes))


def test_memory_section_lists_newest_facts_first_within_its_bound() -> None:
    memories = [memory(f"fact {i} " + "z" * 50, i) for i in range(200)]
    section = memory_section(memories, 1_000)
    assert section.startswith(MEMORY_HEADER) and len(section) <= 1_000
    assert section.index("fact 199") < section.index("fact 198")


def test_no_memories_leave_the_prompt_unchanged() -> None:
    assert with_memory("Be brief.", [], 1_000) == "Be brief."
    assert with_memory("Be brief.", [memory("likes tea", 0)], 1_000) == f"Be brief.\n\n{MEMORY_HEADER}\n- likes tea"
