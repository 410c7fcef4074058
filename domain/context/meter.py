"""The context meter: estimated tokens of a request against the model's window, broken down by part."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.attachment_plan import attachment_share
from domain.context.builder import inject_summary
from domain.context.estimator import REQUEST_OVERHEAD, TokenEstimator
from domain.events import ContextBreakdown, ContextStatus
from domain.models import Message, MessageType, ToolDefinition


def measure_context(
    estimator: TokenEstimator,
    *,
    system_prompt: str | None,
    summary: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] = (),
    window: int | None = None,
    window_is_guess: bool = False,
    model_key: str | None = None,
    reasoning: int = 0,
) -> ContextStatus:
    """Estimates a request's parts; `used` is calibrated for the model, the breakdown parts are raw. `reasoning`:
    tokens of the stored reasoning the request sends back (reasoning_echo.echoed_reasoning)."""
    system = estimator.estimate_text(system_prompt or "")
    full_system = estimator.estimate_text(inject_summary(system_prompt, summary) or "")
    summary_tokens = max(0, full_system - system)
    tool_results = sum(estimator.estimate_message(m) for m in messages if m.type is MessageType.TOOL_RESULT)
    other = sum(estimator.estimate_message(m) for m in messages if m.type is not MessageType.TOOL_RESULT)
    media = attachment_share(messages)
    tool_defs = estimator.estimate_tools(tools)
    raw = REQUEST_OVERHEAD + full_system + tool_results + other + tool_defs + reasoning
    breakdown = ContextBreakdown(
        system=system, summary=summary_tokens, messages=other - media, tool_results=tool_results, tools=tool_defs,
        reasoning=reasoning, attachments=media,
    )
    return ContextStatus(
        used=estimator.apply_calibration(raw, model_key),
        window=window,
        breakdown=breakdown,
        window_is_guess=window_is_guess,
    )
