"""The summarizer's prompts: a structured CHECKPOINT for the first compaction, an UPDATE for later ones."""

from __future__ import annotations

SUMMARIZER_SYSTEM = (
    "You are a conversation summarizer. You write the checkpoint an assistant will rely on to continue a long "
    "conversation whose older messages it can no longer see. Follow the exact format you are given. Do not "
    "continue the conversation, do not answer questions in it, and output only the summary."
)

CHECKPOINT_FORMAT = """## Goal
[What the user is trying to accomplish — 1-2 sentences]

## Constraints & Preferences
- [Requirements, preferences and technical constraints the user stated]

## Progress
### Done
- [x] [Completed items with their key details]

### In Progress
- [ ] [Current work items]

## Key Decisions
- **[Decision]**: [what was chosen and why]

## Next Steps
1. [Ordered list of what comes next]

## Critical Context
- [Exact file paths, identifiers, function and variable names, numbers, URLs, commands and error messages —
  anything needed to continue the work, copied verbatim]

## User Requests
- "[The user's own requests and instructions, quoted word for word where short]"
"""

CHECKPOINT_PROMPT = (
    "Read the conversation below and write a structured checkpoint summary of it in exactly this format:\n\n"
    f"{CHECKPOINT_FORMAT}\n"
    "Keep exact values (paths, names, numbers, URLs, error text) verbatim. Quote the user's requests. "
    "Omit a section's items when there is nothing for it, but keep its heading."
)

UPDATE_PROMPT = (
    "You are updating an existing checkpoint summary with NEW conversation messages that came after it.\n\n"
    "Rules:\n"
    "1. PRESERVE all existing information unless the new messages explicitly supersede it.\n"
    "2. ADD new progress, decisions, constraints and context from the new messages.\n"
    "3. MOVE items from \"In Progress\" to \"Done\" when they were completed.\n"
    "4. UPDATE \"Next Steps\" to reflect what was accomplished.\n"
    "5. PRESERVE exact file paths, identifiers, numbers, URLs and error messages verbatim.\n"
    "6. Keep quoting the user's own requests.\n"
    f"7. Use the SAME format as the existing summary:\n\n{CHECKPOINT_FORMAT}\n"
    "Output ONLY the updated summary."
)

FOCUS_HEADER = "Additional instructions from the user for this summary (give them priority):"


def _focus(instructions: str | None) -> str:
    text = (instructions or "").strip()
    return f"\n\n{FOCUS_HEADER}\n{text}" if text else ""


def checkpoint_prompt(transcript: str, instructions: str | None = None) -> str:
    """The prompt for a session's first summary."""
    return f"{CHECKPOINT_PROMPT}{_focus(instructions)}\n\n<conversation>\n{transcript}\n</conversation>"


def update_prompt(previous_summary: str, transcript: str, instructions: str | None = None) -> str:
    """The prompt merging new messages into the previous summary."""
    return (
        f"{UPDATE_PROMPT}{_focus(instructions)}\n\n"
        f"<existing_summary>\n{previous_summary.strip()}\n</existing_summary>\n\n"
        f"<new_messages>\n{transcript}\n</new_messages>"
    )


def prompt_overhead_chars(previous_summary: str | None, instructions: str | None) -> int:
    """Characters a prompt adds around the transcript (used to size chunks)."""
    if previous_summary:
        return len(update_prompt(previous_summary, "", instructions))
    return len(checkpoint_prompt("", instructions))
