"""`palimpsest sessions prompt ID ["text" | -] [--clear]`: show or set a session's own system prompt."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.text_input import read_stdin_text, require_text
from domain.errors import InvalidInput

if TYPE_CHECKING:
    from app.container import Container


def session_prompt(c: Container, session_id: str, text: str | None, *, clear: bool = False) -> str:
    """Sets the prompt (from `text`, standard input for "-", none with `clear`) when asked, then describes the
    prompt in force: the session's own or its agent's."""
    if clear and text is not None:
        raise InvalidInput("Give either a new prompt or --clear, not both.")
    if clear:
        c.set_session_prompt(session_id, None)
    elif text is not None:
        value = read_stdin_text(sys.stdin, what="The prompt on standard input") if text == "-" else (
            require_text(text, "The prompt"))
        c.set_session_prompt(session_id, value)
    ctx = c.contexts.load(session_id, strict=False)
    own = ctx.session.system_prompt
    if own is not None:
        head = f"System prompt of {session_id} (this session's own; --clear goes back to the agent's):"
        body = own
    else:
        head = f"System prompt of {session_id} (the agent's, {ctx.agent.name}):"
        body = ctx.agent.system_prompt or "(none)"
    return "\n".join([head, *["    " + line for line in body.splitlines()]])
