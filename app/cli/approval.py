"""The command line's answer when a tool asks for approval: a y/N prompt on a terminal, else no unless --allow-tools."""

from __future__ import annotations

import asyncio
import re
import sys
import threading
from typing import TextIO

from domain.tool_approval import ApprovalDecision, ApprovalRequest

SHOWN_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class CliApprover:
    """Asks on the terminal (prompt on stderr, answer from stdin) when both are TTYs; without a terminal it refuses,
    unless the user passed `--allow-tools` (`allow_all`), which allows every request without asking."""

    def __init__(self, *, allow_all: bool = False, stdin: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._allow_all = allow_all
        self._stdin = stdin
        self._stderr = stderr

    async def approve(self, request: ApprovalRequest) -> bool:
        """True when allowed up front or when the user answers y/yes; no terminal, EOF or anything else is a no."""
        return await self.decide(request) is not ApprovalDecision.DENY

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        """Once for y/yes, Always for a/always (when the request may be remembered), else Deny."""
        if self._allow_all:
            return ApprovalDecision.ONCE
        stdin = self._stdin or sys.stdin
        stderr = self._stderr or sys.stderr
        if not (_is_tty(stdin) and _is_tty(stderr)):
            stderr.write(
                f"palimpsest: refused without asking (no terminal): {_safe(request.title)} "
                "Pass --allow-tools to allow such tool requests in scripts.\n"
            )
            stderr.flush()
            return ApprovalDecision.DENY
        choices = "[y/a/N] (a: always allow this tool)" if request.can_remember else "[y/N]"
        stderr.write(render_request(request) + f"Allow? {choices} ")
        stderr.flush()
        answer = (await _read_line(stdin)).strip().lower()
        if answer in ("y", "yes"):
            return ApprovalDecision.ONCE
        if request.can_remember and answer in ("a", "always"):
            return ApprovalDecision.ALWAYS
        return ApprovalDecision.DENY


def render_request(request: ApprovalRequest) -> str:
    """The request as terminal text: the title, then each detail indented; control characters shown escaped and
    long values cut, so nothing the model wrote can redraw the terminal."""
    lines = [f"\n{_safe(request.title)}"]
    for label, value in request.details:
        shown = value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS]
        body = "\n".join(_safe(line) for line in shown.split("\n"))
        if len(value) > SHOWN_CHARS:
            body += f"\n[... {len(value) - SHOWN_CHARS:,} more characters not shown]"
        lines.append(f"  {label}:" + ("\n    " + body.replace("\n", "\n    ") if "\n" in body else f" {body}"))
    return "\n".join(lines) + "\n"


def _safe(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


async def _read_line(stream: TextIO) -> str:
    """One line from `stream`, read in a daemon thread so the event loop keeps running (and exit never waits)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(line: str) -> None:
        if not future.done():
            future.set_result(line)

    def read() -> None:
        try:
            line = stream.readline()
        except (OSError, ValueError):
            line = ""
        try:
            loop.call_soon_threadsafe(deliver, line)
        except RuntimeError:  # the loop is gone: no one waits for the answer any more
            pass

    threading.Thread(target=read, name="approval-prompt", daemon=True).start()
    return await future
