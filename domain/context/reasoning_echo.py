"""Which stored reasoning the next request carries back: the estimator and the gauge count only reasoning that is
actually sent. How much output room thinking takes is the provider's rule (domain.thinking_rules_port)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.context.estimator import TokenEstimator
from domain.models import (
    Message,
    MessageType,
    ModelId,
    ProviderId,
    ReasoningBlock,
    ReasoningKind,
)

ECHOED_KINDS = frozenset({ReasoningKind.THINKING, ReasoningKind.REDACTED, ReasoningKind.REASONING_CONTENT,
                          ReasoningKind.ENCRYPTED})  # a part's signature rides on its part: a few bytes
EVERY_TURN_KINDS = frozenset({ReasoningKind.ENCRYPTED})  # what an API that takes every turn's reasoning gets back
_ASSISTANT = frozenset({MessageType.AI_RESPONSE, MessageType.TOOL_CALL})  # read once, not per message
_USER, _RESULT = MessageType.USER, MessageType.TOOL_RESULT


def echoed_reasoning(
    messages: Sequence[Message], provider_id: ProviderId | None, model_id: ModelId | None, *,
    every_turn: bool = False,
) -> list[ReasoningBlock]:
    """The reasoning blocks a request to this provider and model sends back, only those this very model produced
    (another model's never: its signatures are not valid there).

    By default (an API that strips or ignores older turns' reasoning): only while the request continues a tool
    loop (the conversation ends with tool results), the blocks of the loop's assistant turns since the last user
    message. With `every_turn` (an API that wants every reasoning item back in its original place, so the prompt's
    prefix stays the same from turn to turn): the reasoning items of every turn, in order."""
    if not messages or provider_id is None or model_id is None:
        return []
    if every_turn:
        return [b for m in messages if m.type in _ASSISTANT
                for b in m.reasoning if b.kind in EVERY_TURN_KINDS and b.belongs_to(provider_id, model_id)
                and b.data]  # an item kept without its encrypted content (shown only) never goes back
    if messages[-1].type is not _RESULT:
        return []
    echoed: list[ReasoningBlock] = []
    for message in reversed(messages):
        if message.type is _USER:
            break
        if message.type in _ASSISTANT and message.reasoning:
            echoed.extend(b for b in message.reasoning
                          if b.kind in ECHOED_KINDS and b.belongs_to(provider_id, model_id))
    return echoed


def reasoning_tokens(estimator: TokenEstimator, blocks: Sequence[ReasoningBlock]) -> int:
    """Estimated input tokens of reasoning blocks sent back: their text (a thinking block's, a reasoning item's
    summary) plus their opaque data (redacted thinking, encrypted reasoning content), as both go."""
    return sum(estimator.estimate_text(b.text) + estimator.estimate_opaque(b.data or "") for b in blocks)
