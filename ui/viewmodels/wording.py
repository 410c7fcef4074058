"""What the desktop app says about errors: the GUI's own way to fix things instead of CLI commands, and a reply
that was cut off named as such (no Qt, no I/O)."""

from __future__ import annotations

import re

from ui.worker import describe_error

KEYS_PLACE = "Settings › Providers"
# Domain messages are shared with the command line; in the app each CLI route becomes the place in Settings.
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Add one in Settings \(or `palimpsest keys set`\)"), f"Add a key in {KEYS_PLACE}"),
    (re.compile(r"Add or fix the key in Settings \(or `palimpsest keys set`\)"), f"Add or fix the key in {KEYS_PLACE}"),
    (re.compile(r"Add one in Settings \(or `palimpsest providers add`\)"), f"Add one in {KEYS_PLACE}"),
    (re.compile(r"in Settings › Models or with `palimpsest models add`"), "in Settings › Models"),
    (re.compile(r"set it with `palimpsest models add`"), "set it in Settings › Models"),
    (re.compile(r" \(in the gauge's panel, or with `palimpsest mcp disable NAME --session ID`\)"),
     " below"),
)
_ANY_CLI = re.compile(r"\s*\((?:or )?`?palimpsest [^)]*\)|,? or with `palimpsest [^`]*`|`palimpsest [^`]*`")
_REACH = re.compile(r"^Could not reach the provider(?: \((?P<detail>.*)\))?\.")
MAX_MESSAGE_CHARS = 1_000_000  # what the command line accepts too; larger pastes never reach the backend


def gui_text(message: str) -> str:
    """A domain sentence as the app says it: CLI commands become the place in Settings that does the same."""
    for pattern, replacement in _REWRITES:
        message = pattern.sub(replacement, message)
    if "palimpsest " in message:
        message = _ANY_CLI.sub("", message)
    return message


def describe(error: Exception) -> str:
    """describe_error in the app's wording."""
    return gui_text(describe_error(error))


def turn_error_text(kind: str, message: str, *, cut_off: bool) -> str:
    """The text of a failed turn's error row; `cut_off` when part of the reply had already arrived (it is kept)."""
    message = gui_text(message)
    if not cut_off:
        return message
    kept = "The part that arrived is kept above, marked incomplete."
    if kind == "network":
        match = _REACH.match(message)
        detail = f" ({match.group('detail')})" if match and match.group("detail") else ""
        return f"The reply was cut off: the connection to the provider broke{detail}. {kept}"
    return f"The reply was cut off. {message} {kept}"


def too_long_text(chars: int) -> str:
    """Why a composer text is refused before it is sent: how big it is and what fits."""
    return (f"This message is too long: {chars:,} characters, and at most {MAX_MESSAGE_CHARS:,} characters can be "
            "sent at once. Shorten it or split it; it stays in the box below.")
