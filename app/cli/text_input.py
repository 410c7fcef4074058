"""Text that comes in from outside (argv, standard input) is checked to be valid UTF-8 before anything is stored."""

from __future__ import annotations

import argparse
from typing import TextIO

from domain.errors import InvalidInput

PATH_ARGUMENTS = frozenset({"output", "screenshot"})  # file names: any bytes the OS accepts are fine there
SHOWN_CHARS = 40
MAX_IDENTIFIER_CHARS = 200
IDENTIFIERS = {"provider": "provider", "model": "model id", "agent": "agent", "session_id": "session id",
               "id": "id", "name": "name"}  # argparse dests that name something: bounded, never pasted whole


def first_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate (an undecodable byte smuggled in by surrogateescape), or None."""
    for index, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return index
    return None


def shown(text: str) -> str:
    """The text for an error message: undecodable bytes as \\xNN, other surrogates as \\uNNNN, cut when long."""
    out = []
    for char in text[:SHOWN_CHARS]:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out) + ("…" if len(text) > SHOWN_CHARS else "")


def _byte_name(char: str) -> str:
    code = ord(char)
    return f"the byte 0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"the lone surrogate U+{code:04X}"


def require_text(text: str, what: str, *, secret: bool = False) -> str:
    """The text unchanged; InvalidInput naming `what` when it holds bytes that are not valid UTF-8 (the text is
    quoted in the message unless it is a `secret`)."""
    index = first_surrogate(text)
    if index is None:
        return text
    quoted = "" if secret else f": \"{shown(text)}\""
    raise InvalidInput(
        f"{what} is not valid UTF-8 text ({_byte_name(text[index])} at character {index}{quoted}). "
        "Convert it to UTF-8 first (for example with iconv -f latin1 -t utf-8)."
    )


def read_stdin_text(stdin: TextIO, *, line: bool = False, what: str = "Standard input") -> str:
    """All of standard input (or its first line), decoded strictly as UTF-8 (a leading BOM is dropped);
    InvalidInput naming `what` otherwise. The bytes are never quoted: they may be a key."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:  # an in-memory stream (tests): already text
        return require_text(stdin.readline() if line else stdin.read(), what, secret=True)
    data: bytes = buffer.readline() if line else buffer.read()
    try:
        return require_text(data.decode("utf-8-sig"), what, secret=True)
    except UnicodeDecodeError as error:
        raise InvalidInput(
            f"{what} is not valid UTF-8 text (the byte 0x{data[error.start]:02X} at offset {error.start} "
            "cannot be decoded). Convert it to UTF-8 first, for example with iconv -f latin1 -t utf-8."
        ) from None


def undecodable_argument(args: argparse.Namespace) -> str | None:
    """An error sentence for the first command-line value holding bytes that are not UTF-8, else None."""
    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and first_surrogate(item) is not None:
                index = first_surrogate(item) or 0
                hint = ", or pipe the message in on standard input with MESSAGE set to -" if name == "message" else ""
                return (f"the argument \"{shown(item)}\" is not valid UTF-8 text ({_byte_name(item[index])} at "
                        f"character {index}). Type it again as UTF-8{hint}.")
    return None


def overlong_identifier(args: argparse.Namespace) -> str | None:
    """An error sentence for the first identifier (provider, model, agent, session id, name) longer than
    MAX_IDENTIFIER_CHARS, else None."""
    for name, label in IDENTIFIERS.items():
        value = getattr(args, name, None)
        if isinstance(value, str) and len(value) > MAX_IDENTIFIER_CHARS:
            return (f"the {label} \"{shown(value)}\" is too long ({len(value)} characters; at most "
                    f"{MAX_IDENTIFIER_CHARS}).")
    return None


def elide(text: str, limit: int = SHOWN_CHARS) -> str:
    """The text cut in the middle with an ellipsis when longer than `limit`, saying how long it was."""
    if len(text) <= limit:
        return text
    keep = max(limit // 2, 1)
    return f"{text[:keep]}…{text[-(limit - keep):]} ({len(text)} characters)"
