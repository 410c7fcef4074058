"""Which stored reasoning the next request carries back, and how much output room thinking takes: the estimator and
the gauge count only reasoning that is actually sent, and the reply's room never shrinks behind the thinking's."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.estimator import TokenEstimator
from domain.models import (
    AiModel,
    Message,
    MessageType,
    ModelId,
    ProviderId,
    ReasoningBlock,
    ReasoningKind,
    ThinkingForm,
)

ECHOED_KINDS = frozenset({ReasoningKind.THINKING, ReasoningKind.REDACTED, ReasoningKind.REASONING_CONTENT,
                          ReasoningKind.ENCRYPTED})  # a part's signature (Gemini) rides on its part: a few bytes
# thinking tokens the providers' adapters add above the reply's max output per level (data/providers/*_thinking)
THINKING_ROOM = {"low": 2_048, "medium": 8_192, "high": 16_384, "max": 32_000, "auto": 16_384}


def echoed_reasoning(
    messages: Sequence[Message], provider_id: ProviderId | None, model_id: ModelId | None
) -> list[ReasoningBlock]:
    """The reasoning blocks a request to this provider and model sends back: only while it continues a tool loop
    (the conversation ends with tool results), the blocks of the loop's assistant turns since the last user
    message that this very model produced (a reply's, and a Responses reasoning item kept with the call it came
    before). Older turns' reasoning is not sent (the APIs strip or ignore it), and
    another model's never is (its signatures are not valid there)."""
    if not messages or messages[-1].type is not MessageType.TOOL_RESULT or provider_id is None or model_id is None:
        return []
    echoed: list[ReasoningBlock] = []
    for message in reversed(messages):
        if message.type is MessageType.USER:
            break
        if message.type in (MessageType.AI_RESPONSE, MessageType.TOOL_CALL) and message.reasoning:
            echoed.extend(b for b in message.reasoning
                          if b.kind in ECHOED_KINDS and b.belongs_to(provider_id, model_id))
    return echoed


def reasoning_tokens(estimator: TokenEstimator, blocks: Sequence[ReasoningBlock]) -> int:
    """Estimated input tokens of reasoning blocks sent back: their text, or for opaque data (base64 of encrypted
    reasoning) about three quarters of its length in characters, at four characters a token."""
    return sum(estimator.estimate_text(b.text) if b.text else len(b.data or "") * 3 // 16 for b in blocks)


def thinking_room(model: AiModel | None, level: str) -> int:
    """Output tokens the adapters reserve for thinking above the reply at `level` for this model (0: none)."""
    caps = model.capabilities if model is not None else None
    if caps is None or caps.thinking is ThinkingForm.NONE:
        return 0
    if level == "off":
        return THINKING_ROOM["low"] if caps.thinking is ThinkingForm.ALWAYS_ON else 0
    if level == "auto" and not caps.thinks_unasked:
        return 0
    return THINKING_ROOM.get(level, THINKING_ROOM["auto"])
