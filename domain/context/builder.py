"""Builds the request from a session: summary injected into the system prompt, messages after the boundary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.context.estimator import TokenEstimator
from domain.models import Message, Session, ToolDefinition

SUMMARY_HEADER = "Previous conversation summary:\n"
SUMMARY_SEPARATOR = "\n\n---\n\n"
CONTINUE_LINE = "Continue the conversation from the summary above."


@dataclass(frozen=True)
class BuiltRequest:
    """The system prompt and messages to send."""

    system_prompt: str | None
    messages: list[Message]


def inject_summary(system_prompt: str | None, summary: str | None) -> str | None:
    """The system prompt with the summary block in front (or a continue line when there is no prompt)."""
    raise NotImplementedError


class CompactAwareMessageBuilder:
    """Assembles what a provider receives: valid alternation, whole tool rounds, pinned messages kept."""

    def build(
        self,
        session: Session,
        messages: Sequence[Message],
        system_prompt: str | None,
        pinned: Sequence[Message] = (),
    ) -> BuiltRequest:
        """`messages` are the stored ones from the boundary on; `pinned` may include ones behind it."""
        raise NotImplementedError

    def fit_to_budget(
        self,
        request: BuiltRequest,
        budget_tokens: int,
        estimator: TokenEstimator,
        tools: Sequence[ToolDefinition] = (),
    ) -> BuiltRequest:
        """The summary-bearing system prompt plus as many of the newest whole turns as fit the budget."""
        raise NotImplementedError
