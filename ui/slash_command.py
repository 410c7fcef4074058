"""The composer's `/server:prompt name=value ...` command read from its text: what the word under the cursor is (a
prompt, an argument's name or its value) for completion, and the command whole for filling the prompt in."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from enum import Enum

_COMMAND = re.compile(r"^/([A-Za-z0-9_.\-]+:\S+)")


class SlashPart(Enum):
    """What the word under the cursor is."""

    PROMPT = "prompt"  # `/ser` or `/server:pro`
    NAME = "name"  # a word after the command without `=` yet
    VALUE = "value"  # `name=val`


@dataclass(frozen=True)
class SlashQuery:
    """The word under the cursor of a one-line text starting with `/`: its kind, what is typed of it, and where it
    starts (the completion replaces the text from there to the cursor)."""

    part: SlashPart
    prefix: str
    start: int
    command: str = ""  # `server:prompt` (for NAME and VALUE)
    argument: str = ""  # the argument whose value is typed (VALUE)
    given: dict[str, str] = field(default_factory=dict)  # the arguments typed in full so far


def slash_query(text: str, cursor: int) -> SlashQuery | None:
    """The query at `cursor`, or None when the text is not a slash command (or the cursor is past its line)."""
    if not text.startswith("/") or "\n" in text[:cursor]:
        return None
    before = text[:cursor]
    words = before.split(" ")
    if len(words) == 1:
        return SlashQuery(SlashPart.PROMPT, before[1:], 1)
    command = words[0][1:]
    if ":" not in command:
        return None
    current = words[-1]
    start = cursor - len(current)
    given = _pairs(words[1:-1])
    name, sep, value = current.partition("=")
    if sep:
        return SlashQuery(SlashPart.VALUE, value, start + len(name) + 1, command, name, given)
    return SlashQuery(SlashPart.NAME, current, start, command, given=given)


def slash_command(text: str) -> tuple[str, str, dict[str, str]] | None:
    """(server, prompt, arguments) of a whole `/server:prompt name=value ...` text (values may be quoted), or None."""
    found = _COMMAND.match(text.strip())
    if found is None:
        return None
    server, _, prompt = found.group(1).partition(":")
    rest = text.strip()[found.end():]
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    if any("=" not in w for w in words):
        return None
    return server, prompt, _pairs(words)


def _pairs(words: list[str]) -> dict[str, str]:
    pairs = {}
    for word in words:
        name, sep, value = word.partition("=")
        if sep and name:
            pairs[name] = value
    return pairs
