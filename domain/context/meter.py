"""The context meter: estimated tokens of a request against the model's window, broken down by part."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.attachment_plan import attachment_share
from domain.context.builder import inject_summary
from domain.context.estimator import REQUEST_OVERHEAD, RequestSize, TokenEstimator, message_floor, request_size
from domain.events import ContextBreakdown, ContextStatus
from domain.models import Message, MessageType, ToolDefinition

_RESULT = MessageType.TOOL_RESULT  # read once: an enum member's lookup costs ~0.15 µs per message in 3.11


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


def _message_tokens(estimator: TokenEstimator, messages: Sequence[Message], exact_up_to: int | None
                    ) -> tuple[int, int]:
    """(tool results, every other message) in tokens: each estimated, newest first, until `exact_up_to` is passed;
    the older ones then by their length (characters / 4, the estimator's floor) and their attachments."""
    known = estimator.estimate_split(messages, exact_up_to)  # the request's own sums plus what came since, if known
    if known is not None:
        return known
    assert exact_up_to is not None, "without a limit the sums are always made"
    results = other = 0
    estimate = estimator.estimate_message
    for m in reversed(messages):
        if results + other <= exact_up_to or m.attachments:
            tokens = estimate(m)
        else:
            tokens = message_floor(len(m.content), len(m.tool_input or ""), len(m.tool_name or ""),
                                   len(m.tool_output or ""))
        if m.type is _RESULT:
            results += tokens
        else:
            other += tokens
    return results, other


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
    exact_up_to: int | None = None,
    unloaded: int = 0,
) -> ContextStatus:
    """Estimates a request's parts. `used` is the request's estimate exactly as the planner makes it for the send
    (TokenEstimator.calibrated: text scaled by the model's ratio, attachments the provider counted as they are,
    rule-priced ones by their own ratio), and the breakdown shares that figure out over the parts, each calibrated
    the same way, so the parts add up to `used` exactly; the request's own framing counts with the system prompt.
    `reasoning`: tokens of the stored reasoning the request sends back (reasoning_echo.echoed_reasoning).
    `exact_up_to`: once the newest messages add up past this many tokens (the model's window), the older ones are
    counted by their length only (a lower bound of their estimate): the figure stays past the window, and a
    20,000-message session is not estimated in full just to say so. `unloaded`: tokens of older messages left
    unread for that reason (SessionContext.unloaded_tokens), counted with the messages."""
    system = estimator.estimate_text(system_prompt or "")
    full_system = estimator.estimate_text(inject_summary(system_prompt, summary) or "")
    summary_tokens = max(0, full_system - system)
    tool_results, other = _message_tokens(estimator, messages, exact_up_to)
    other += unloaded
    web = sum(estimator.web_tokens(m) for m in messages if m.web is not None)
    media = attachment_share(messages)
    tool_defs = estimator.estimate_tools(tools)
    size = request_size(REQUEST_OVERHEAD + full_system + other + tool_results + tool_defs + reasoning, messages)
    used = estimator.calibrated(size, model_key)
    text_used = estimator.calibrated(RequestSize(size.text), model_key)  # the text part alone, scaled alike
    media_text = media - size.exact - size.ruled  # attachments sent as text: placeholders, extracted text, files
    parts = [REQUEST_OVERHEAD + system, summary_tokens, max(0, other - media - web), tool_results, tool_defs,
             reasoning, web, media_text]
    shares = apportion(text_used, parts)
    breakdown = ContextBreakdown(
        system=shares[0], summary=shares[1], messages=shares[2], tool_results=shares[3], tools=shares[4],
        reasoning=shares[5], web_search=shares[6], attachments=shares[7] + used - text_used,
    )
    return ContextStatus(used=used, window=window, breakdown=breakdown, window_is_guess=window_is_guess)
