"""Builds the request from a session: summary injected into the system prompt, messages after the boundary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.context.alternation import Normalizer, retext, turns, with_seq_order
from domain.context.estimator import TokenEstimator
from domain.context.pruner import clear_text, result_text, trim_marker
from domain.models import Message, MessageType, Session, ToolDefinition

SUMMARY_HEADER = "Previous conversation summary:\n"
SUMMARY_SEPARATOR = "\n\n---\n\n"
CONTINUE_LINE = "Continue the conversation based on the summary above."
FIT_TRIM_CHARS = 1_000


@dataclass(frozen=True)
class BuiltRequest:
    """The system prompt and messages to send."""

    system_prompt: str | None
    messages: list[Message]


def inject_summary(system_prompt: str | None, summary: str | None) -> str | None:
    """The system prompt with the summary block in front (or a continue line when there is no prompt)."""
    if not summary or not summary.strip():
        return system_prompt
    base = system_prompt if system_prompt and system_prompt.strip() else CONTINUE_LINE
    return f"{SUMMARY_HEADER}{summary.strip()}{SUMMARY_SEPARATOR}{base}"


class CompactAwareMessageBuilder:
    """Assembles what a provider receives: valid alternation, whole tool rounds, pinned messages kept."""

    def __init__(self) -> None:
        self._normalize = Normalizer()  # a turn builds its growing request several times (plan, gauge, next turn)

    def build(
        self,
        session: Session,
        messages: Sequence[Message],
        system_prompt: str | None,
        pinned: Sequence[Message] = (),
    ) -> BuiltRequest:
        """`messages` are the stored ones from the boundary on (older ones are ignored); `pinned` may include
        ones behind the boundary, which are sent verbatim before the rest (whole tool rounds only)."""
        boundary = session.compact_boundary if session.compacted_summary else None
        if boundary is None:
            chosen = list(messages)
        else:
            recent = [m for m in messages if m.seq >= boundary]
            older_pinned = [m for m in pinned if m.seq < boundary and m.pinned]
            chosen = with_seq_order([*older_pinned, *recent]) if older_pinned else recent
        return BuiltRequest(inject_summary(system_prompt, session.compacted_summary), self._normalize(chosen))

    def fit_to_budget(
        self,
        request: BuiltRequest,
        budget_tokens: int,
        estimator: TokenEstimator,
        tools: Sequence[ToolDefinition] = (),
        model_key: str | None = None,
    ) -> BuiltRequest:
        """The summary-bearing system prompt plus as many of the newest whole turns as fit the budget.

        When even the newest turn alone is too big, its older tool rounds are dropped and tool results shrunk
        (cleared, then the last round trimmed to head and tail, then cleared); the smallest such request is
        returned even when it still exceeds the budget (the caller then reports the overflow)."""

        def cost(msgs: Sequence[Message]) -> int:
            return estimator.estimate_request(request.system_prompt, msgs, tools, model_key)

        all_turns = turns(request.messages)
        if not all_turns or cost(request.messages) <= budget_tokens:
            return request
        base = cost([])
        kept: list[list[Message]] = []
        used = base
        for turn in reversed(all_turns):
            size = estimator.estimate_messages(turn)
            scaled = estimator.apply_calibration(size, model_key)
            if kept and used + scaled > budget_tokens:
                break
            kept.insert(0, turn)
            used += scaled
        while True:
            chosen = [m for turn in kept for m in turn]
            if cost(chosen) <= budget_tokens:
                return BuiltRequest(request.system_prompt, chosen)
            if len(kept) == 1:
                break
            kept.pop(0)
        for candidate in shrink_turn(kept[-1]):
            chosen = candidate
            if cost(candidate) <= budget_tokens:
                break
        return BuiltRequest(request.system_prompt, chosen)


def shrink_turn(turn: list[Message]) -> list[list[Message]]:
    """Ever smaller valid versions of one turn: older rounds' results cleared, older rounds dropped, last round's
    results trimmed, then cleared."""
    head = turn[:1]
    rounds = _rounds(turn[1:])
    if not rounds:
        return [turn]
    older = [m for r in rounds[:-1] for m in r]
    last = rounds[-1]
    cleared_older = [_cleared(m) for m in older]
    variants = [
        head + cleared_older + last,
        head + last,
        head + [_trimmed(m) for m in last],
        head + [_cleared(m) for m in last],
    ]
    if last and last[-1].type is not MessageType.TOOL_RESULT:  # the turn ended with a reply: the user text suffices
        variants.append(head)
    return variants


def _rounds(rest: list[Message]) -> list[list[Message]]:
    """Splits a turn's assistant part into rounds, each starting at an assistant group."""
    out: list[list[Message]] = []
    prev: Message | None = None
    for m in rest:
        starts = m.type is MessageType.AI_RESPONSE or (
            m.type is MessageType.TOOL_CALL and (prev is None or prev.type is MessageType.TOOL_RESULT)
        )
        if starts or not out:
            out.append([m])
        else:
            out[-1].append(m)
        prev = m
    return out


def _cleared(m: Message) -> Message:
    if m.type is not MessageType.TOOL_RESULT or m.has_image:
        return m
    return retext(m, clear_text(m.id)) if len(result_text(m)) > len(clear_text(m.id)) else m


def _trimmed(m: Message) -> Message:
    if m.type is not MessageType.TOOL_RESULT or m.has_image:
        return m
    text = result_text(m)
    marker = trim_marker(FIT_TRIM_CHARS, FIT_TRIM_CHARS, len(text), m.id)
    if len(text) <= 2 * FIT_TRIM_CHARS + len(marker):
        return m
    return retext(m, text[:FIT_TRIM_CHARS] + marker + text[-FIT_TRIM_CHARS:])
