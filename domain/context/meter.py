"""The context meter: estimated tokens of a request against the model's window, broken down by part."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.attachment_plan import attachment_share
from domain.context.builder import inject_summary
from domain.context.estimator import REQUEST_OVERHEAD, RequestSize, TokenEstimator, request_size
from domain.events import ContextBreakdown, ContextStatus
from domain.models import Message, MessageType, ToolDefinition


def apportion(total: int, parts: Sequence[int]) -> list[int]:
    """`total` shared out in proportion to `parts` (largest remainder), so the shares add up to `total` exactly."""
    raw = sum(parts)
    if raw <= 0:
        return [0] * (len(parts) - 1) + [total] if parts else []
    exact = [total * p / raw for p in parts]
    shares = [int(x) for x in exact]
    by_remainder = sorted(range(len(parts)), key=lambda i: (shares[i] - exact[i], -parts[i]))
    for i in by_remainder[: total - sum(shares)]:
        shares[i] += 1
    return shares


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
    """Estimates a request's parts. `used` is the request's estimate exactly as the planner makes it for the send
    (TokenEstimator.calibrated: text scaled by the model's ratio, attachments the provider counted as they are,
    rule-priced ones by their own ratio), and the breakdown shares that figure out over the parts, each calibrated
    the same way, so the parts add up to `used` exactly; the request's own framing counts with the system prompt.
    `reasoning`: tokens of the stored reasoning the request sends back (reasoning_echo.echoed_reasoning)."""
    system = estimator.estimate_text(system_prompt or "")
    full_system = estimator.estimate_text(inject_summary(system_prompt, summary) or "")
    summary_tokens = max(0, full_system - system)
    tool_results = sum(estimator.estimate_message(m) for m in messages if m.type is MessageType.TOOL_RESULT)
    other = sum(estimator.estimate_message(m) for m in messages if m.type is not MessageType.TOOL_RESULT)
    web = sum(estimator.web_tokens(m) for m in messages if m.web is not None)
    media = attachment_share(messages)
    tool_defs = estimator.estimate_tools(tools)
    size = request_size(REQUEST_OVERHEAD + full_system + other + tool_results + tool_defs + reasoning, messages)
    used = estimator.calibrated(size, model_key)
    text_used = estimator.calibrated(RequestSize(size.text), model_key)  # the text part alone, scaled alike
    media_text = media - size.exact - size.ruled  # attachments sent as text: placeholders, extracted text, files
    parts = [REQUEST_OVERHEAD + system, summary_tokens, other - media - web, tool_results, tool_defs, reasoning, web,
             media_text]
    shares = apportion(text_used, parts)
    breakdown = ContextBreakdown(
        system=shares[0], summary=shares[1], messages=shares[2], tool_results=shares[3], tools=shares[4],
        reasoning=shares[5], web_search=shares[6], attachments=shares[7] + used - text_used,
    )
    return ContextStatus(used=used, window=window, breakdown=breakdown, window_is_guess=window_is_guess)
