"""The command line's answers to MCP servers' questions: a form and a sampling approval asked on the terminal;
without one, forms are declined and sampling refused (nothing is sent without the user's answer)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from app.cli.approval import _is_tty, _read_line, _safe
from domain.mcp_interaction import ElicitAction, ElicitAnswer, Elicitation, ElicitField, SamplingRequest, coerce
from domain.tool_approval import ApprovalDecision

ATTEMPTS = 3
SHOWN_CHARS = 2000


class TerminalMcpUser:
    """Asks on the terminal (prompts on stderr, answers from stdin) when both are TTYs."""

    def __init__(self, *, stdin: TextIO | None = None, stderr: TextIO | None = None,
                 opener: Callable[[str], None] | None = None) -> None:
        self._stdin = stdin
        self._stderr = stderr
        self._open = opener or open_in_browser  # a URL-mode question's address, once the user agreed

    async def elicit(self, request: Elicitation) -> ElicitAnswer:
        """Answer it? y: each field asked in turn; d: declined; anything else: cancelled. URL mode: the address is
        shown and opened only after y."""
        if request.url is not None:
            return await self._elicit_url(request, request.url)
        if not self._terminal():
            self._say(f"palimpsest: declined without asking (no terminal): the MCP server {request.server} asked: "
                      f"{_safe(request.message)}\n")
            return ElicitAnswer(ElicitAction.DECLINE)
        self._say(f"\nThe MCP server {request.server} asks: {_safe(request.message)}\n"
                  "Answer? [y]es / [d]ecline / [c]ancel ")
        choice = (await self._line()).strip().lower()
        if choice in ("d", "decline"):
            return ElicitAnswer(ElicitAction.DECLINE)
        if choice not in ("y", "yes"):
            return ElicitAnswer(ElicitAction.CANCEL)
        values: dict[str, Any] = {}
        for spec in request.fields:
            value = await self._field(spec)
            if value is _CANCELLED:
                return ElicitAnswer(ElicitAction.CANCEL)
            if value is not None:
                values[spec.name] = value
        return ElicitAnswer(ElicitAction.ACCEPT, values)

    async def _elicit_url(self, request: Elicitation, url: str) -> ElicitAnswer:
        if not self._terminal():
            self._say(f"palimpsest: declined without asking (no terminal): the MCP server {request.server} asked you "
                      f"to open {_safe(url)}: {_safe(request.message)}\n")
            return ElicitAnswer(ElicitAction.DECLINE)
        self._say(f"\nThe MCP server {request.server} asks you to open an address: {_safe(request.message)}\n"
                  f"  {_safe(url)}\nOpen it? [y]es / [d]ecline / [c]ancel ")
        choice = (await self._line()).strip().lower()
        if choice in ("d", "decline"):
            return ElicitAnswer(ElicitAction.DECLINE)
        if choice not in ("y", "yes"):
            return ElicitAnswer(ElicitAction.CANCEL)
        self._open(url)
        return ElicitAnswer(ElicitAction.ACCEPT)

    def elicitation_completed(self, request: Elicitation) -> None:
        """The server said the step at a URL-mode question's address is done."""
        self._say(f"The MCP server {request.server} says the step at {_safe(request.url or '')} is done.\n")

    async def approve_sampling(self, request: SamplingRequest) -> ApprovalDecision:
        """y/yes runs this one request on the conversation's model, a/always this and every later one of the
        server (remembered; `mcp sampling NAME ask` revokes it); anything else refuses it."""
        if not self._terminal():
            self._say(f"palimpsest: refused without asking (no terminal): the MCP server {request.server} asked to "
                      "use your model.\n")
            return ApprovalDecision.DENY
        shown = "\n".join(f"  {role}: {_safe(text[:SHOWN_CHARS])}" for role, text in request.messages)
        system = f"  system: {_safe(request.system[:SHOWN_CHARS])}\n" if request.system else ""
        cost = f"Estimated: {request.estimate.describe()}\n" if request.estimate else ""
        self._say(f"\nThe MCP server {request.server} asks to use your model (up to {request.max_tokens:,} output "
                  f"tokens, billed to you):\n{system}{shown}\n{cost}"
                  "Run it? [y]es once / [a]lways for this server / [N]o ")
        choice = (await self._line()).strip().lower()
        if choice in ("a", "always"):
            return ApprovalDecision.ALWAYS
        return ApprovalDecision.ONCE if choice in ("y", "yes") else ApprovalDecision.DENY

    async def _field(self, spec: ElicitField) -> Any:
        label = spec.title or spec.name
        hints = [" / ".join(spec.choices)] if spec.choices else []
        hints += ["yes/no"] if spec.kind == "boolean" else []
        hints += ["required"] if spec.required else []
        prompt = f"  {_safe(label)}" + (f" ({', '.join(hints)})" if hints else "") + ": "
        for _ in range(ATTEMPTS):
            self._say(prompt)
            text = (await self._line()).rstrip("\n")
            if not text.strip():
                if not spec.required:
                    return None
                self._say("  (an answer is needed)\n")
                continue
            try:
                return coerce(text, spec)
            except ValueError as err:
                self._say(f"  ({err})\n")
        return _CANCELLED

    def _terminal(self) -> bool:
        return _is_tty(self._stdin or sys.stdin) and _is_tty(self._stderr or sys.stderr)

    def _say(self, text: str) -> None:
        stream = self._stderr or sys.stderr
        stream.write(text)
        stream.flush()

    async def _line(self) -> str:
        return await _read_line(self._stdin or sys.stdin)


_CANCELLED = object()


def open_in_browser(url: str) -> None:
    """Opens the address in a browser when there is a display (the address was printed in any case)."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        import webbrowser

        with contextlib.suppress(Exception):
            webbrowser.open(url)


def sign_in_notice(err: TextIO) -> Callable[[str, str], None]:
    """Shows an MCP server's OAuth sign-in URL on the terminal (the sign-in then waits for the browser's redirect)."""

    def show(server: str, url: str) -> None:
        err.write(f"The MCP server {server} asks you to sign in. Open this address in a browser:\n{url}\n"
                  "Waiting for the sign-in to finish...\n")
        err.flush()

    return show
