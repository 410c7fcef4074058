"""Asking the user before a tool does something with side effects: the request shown and the port that answers it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


@dataclass(frozen=True)
class ApprovalRequest:
    """What a tool wants to do, for the user to allow or refuse: a one-line title and labelled details."""

    tool: str
    title: str
    details: tuple[tuple[str, str], ...] = ()
    can_remember: bool = False  # the user may answer "Always" (an MCP tool's rule becomes allow)


class ApprovalDecision(StrEnum):
    """The user's answer: this once, always (remembered as the tool's rule), or no."""

    ONCE = "once"
    ALWAYS = "always"
    DENY = "deny"


class ToolApprover(Protocol):
    """Asks the user whether a tool may go ahead (a GUI dialog, a terminal prompt, a fixed answer)."""

    async def approve(self, request: ApprovalRequest) -> bool:
        """True only when the user allowed it; any doubt (no one to ask, dialog closed) is a refusal."""
        ...


class DenyAllApprover:
    """Refuses everything: the safe default when no one can be asked."""

    async def approve(self, request: ApprovalRequest) -> bool:
        """Always False."""
        return False


class AllowAllApprover:
    """Allows everything: for scripts whose user opted in up front (e.g. `--allow-tools`)."""

    async def approve(self, request: ApprovalRequest) -> bool:
        """Always True."""
        return True


class DecidingApprover(Protocol):
    """An approver that can also answer "Always" (the GUI dialog, the terminal prompt)."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision: ...


async def ask(approver: ToolApprover, request: ApprovalRequest) -> ApprovalDecision:
    """The approver's answer as a decision; an approver without `decide` answers only once or no."""
    decide = getattr(approver, "decide", None)
    if decide is not None and request.can_remember:
        decision: ApprovalDecision = await decide(request)
        return decision
    return ApprovalDecision.ONCE if await approver.approve(request) else ApprovalDecision.DENY
