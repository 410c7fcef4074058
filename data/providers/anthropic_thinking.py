"""Anthropic thinking: the request's thinking form for a model and a reasoning level, and which stored reasoning
blocks go back (the current tool loop's own, signatures intact; never another model's, never older turns')."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from data.providers.conversation import ResultBlock, TextBlock, Turn
from data.providers.thinking_rules import ANTHROPIC_MIN_BUDGET as MIN_BUDGET
from data.providers.thinking_rules import ANTHROPIC_ROOM as THINKING_ROOM
from data.providers.thinking_rules import INTERLEAVED_THINKING_BETA
from data.registry.capabilities import ANTHROPIC_EFFORTS
from domain.models import ModelCapabilities, ModelId, ProviderId, ReasoningBlock, ReasoningKind, ThinkingForm

UNKNOWN_MAX_OUTPUT = 32_000  # max_tokens is never raised above this for a model whose output limit is unknown


@dataclass(frozen=True)
class ThinkingRequest:
    """What one request sends about thinking: its top-level parameters, its max_tokens, whether thinking is on
    (only then do the tool loop's reasoning blocks go back) and its extra headers (the interleaved-thinking beta)."""

    max_tokens: int
    params: dict[str, Any] = field(default_factory=dict)
    active: bool = False
    headers: dict[str, str] = field(default_factory=dict)


def loop_reasoning(
    turns: Sequence[Turn], provider_id: ProviderId, model_id: ModelId
) -> dict[int, list[ReasoningBlock]]:
    """The reasoning blocks to send back, by turn index: when the request continues a tool loop (it ends with a
    user turn of tool results only), each assistant turn since the last user text keeps its blocks that this
    provider and model produced and that can go back as they came (a thinking block with its signature, a
    redacted block with its data). Older turns send none: the API ignores their thinking."""
    if not turns or turns[-1].role != "user" or not all(isinstance(b, ResultBlock) for b in turns[-1].blocks):
        return {}
    echoed: dict[int, list[ReasoningBlock]] = {}
    for index in range(len(turns) - 1, -1, -1):
        turn = turns[index]
        if turn.role == "user" and any(isinstance(b, TextBlock) for b in turn.blocks):
            break
        if turn.role == "assistant":
            echoed[index] = [b for b in turn.reasoning if b.belongs_to(provider_id, model_id) and _sendable(b)]
    return echoed


def _sendable(block: ReasoningBlock) -> bool:
    if block.kind is ReasoningKind.THINKING:
        return bool(block.signature)
    return block.kind is ReasoningKind.REDACTED and bool(block.data)


def thinking_block(block: ReasoningBlock) -> dict[str, Any]:
    """A stored block in the Messages API's shape, exactly as it came."""
    if block.kind is ReasoningKind.REDACTED:
        return {"type": "redacted_thinking", "data": block.data}
    return {"type": "thinking", "thinking": block.text, "signature": block.signature}


def thinking_request(
    caps: ModelCapabilities | None,
    level: str,
    max_output_tokens: int,
    *,
    model_max_output: int | None,
    loop_lacks_thinking: bool = False,
    interleaved: bool = False,
) -> ThinkingRequest:
    """Thinking for the model's form at `level` (off / auto / low / medium / high / max):

    - budget models: `{"type": "enabled", "budget_tokens": N}` with max_tokens raised by N to keep the reply's
      room (capped at the model's output limit, N < max_tokens); off and auto (their default) send nothing; with
      `interleaved` (the model takes the interleaved-thinking beta, data.providers.thinking_rules.takes_interleaved)
      the beta header goes too, so the model thinks after each tool result, and N, then the whole assistant
      turn's budget, stays the level's even where the output limit cuts max_tokens below it;
    - adaptive models: `{"type": "adaptive"}` plus `output_config.effort` (the nearest effort the model takes),
      max_tokens raised the same way; off: `{"type": "disabled"}` (newer models think when nothing is sent);
    - always-on models: adaptive with an effort; off, which they cannot do, asks for their lowest effort;
    - auto is the provider's default for the model: nothing for a model that does not think unasked, adaptive at
      the model's own effort for one that does (so its thinking can be shown);
    - models that hide their thinking unless asked get `display: "summarized"`.

    `loop_lacks_thinking`: the request continues a tool loop that did not start with (or whose last step has no)
    thinking block of this model (another model's loop, or thinking off when it started): thinking stays off for
    the whole loop, as it was at its start (the API refuses thinking switched on mid-loop). With interleaved
    thinking every step of a loop that started thinking thinks, so the setting never changes inside a loop.
    Temperature and the other sampling parameters are never sent."""
    form = caps.thinking if caps is not None else ThinkingForm.NONE
    plain = ThinkingRequest(max_output_tokens)
    if form is ThinkingForm.NONE:
        return plain
    if form is ThinkingForm.BUDGET:
        if level in ("off", "auto") or loop_lacks_thinking:
            return plain
        max_tokens, budget = _raised(max_output_tokens, THINKING_ROOM[level], model_max_output)
        headers = {"anthropic-beta": INTERLEAVED_THINKING_BETA} if interleaved else {}
        if interleaved:
            budget = THINKING_ROOM[level]  # the turn's total, which may pass max_tokens under the beta
        if budget < MIN_BUDGET:
            return plain
        return ThinkingRequest(max_tokens, {"thinking": _display({"type": "enabled", "budget_tokens": budget}, caps)},
                               active=True, headers=headers)
    assert caps is not None
    if level == "auto" and not caps.thinks_unasked:
        return plain
    if form is ThinkingForm.ADAPTIVE and (level == "off" or loop_lacks_thinking):
        return ThinkingRequest(max_output_tokens, {"thinking": {"type": "disabled"}})
    params: dict[str, Any] = {"thinking": _display({"type": "adaptive"}, caps)}
    effort = _effort(caps.efforts, level)
    if effort is not None:
        params["output_config"] = {"effort": effort}
    room = THINKING_ROOM["low" if level == "off" else level]
    max_tokens, _ = _raised(max_output_tokens, room, model_max_output)
    return ThinkingRequest(max_tokens, params, active=True)


def _display(thinking: dict[str, Any], caps: ModelCapabilities | None) -> dict[str, Any]:
    if caps is not None and caps.hides_thinking:
        thinking["display"] = "summarized"
    return thinking


def _raised(reply: int, room: int, model_max_output: int | None) -> tuple[int, int]:
    """max_tokens for `reply` tokens of answer plus `room` of thinking, within the model's output limit, and the
    thinking budget that leaves (the reply keeps at least half of max_tokens when the limit cuts)."""
    limit = model_max_output or UNKNOWN_MAX_OUTPUT
    max_tokens = max(reply, min(reply + room, limit))
    budget = min(room, max_tokens - min(reply, max_tokens // 2))
    return max_tokens, min(budget, max_tokens - 1)


def _effort(efforts: Sequence[str], level: str) -> str | None:
    """The model's effort for a level: the level itself, else the nearest the model takes (off: its lowest; auto
    and a model without efforts: none)."""
    known = [e for e in ANTHROPIC_EFFORTS if e in efforts]
    if level == "auto" or not known:
        return None
    if level == "off":
        return known[0]
    if level in known:
        return level
    rank = ANTHROPIC_EFFORTS.index(level)
    below = [e for e in known if ANTHROPIC_EFFORTS.index(e) <= rank]
    return below[-1] if below else known[0]
