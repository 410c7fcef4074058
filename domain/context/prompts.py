"""The summarizer's prompts: a structured CHECKPOINT for the first compaction, an UPDATE for later ones."""

from __future__ import annotations

SUMMARIZER_SYSTEM = ""
CHECKPOINT_PROMPT = ""
UPDATE_PROMPT = ""


def checkpoint_prompt(transcript: str, instructions: str | None = None) -> str:
    """The prompt for a session's first summary."""
    raise NotImplementedError


def update_prompt(previous_summary: str, transcript: str, instructions: str | None = None) -> str:
    """The prompt merging new messages into the previous summary."""
    raise NotImplementedError
