"""The Anthropic Messages stream folded into domain events, and thinking forms learned from the API's refusals."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from data.providers.anthropic_thinking import thinking_block
from data.providers.anthropic_web import SearchFold
from data.providers.conversation import parse_tool_arguments
from data.registry.capabilities import ANTHROPIC_EFFORTS
from domain.events import (
    ReasoningDone,
    ReplyProgress,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    WebSearched,
)
from domain.models import CapabilitySource, ModelCapabilities, ReasoningBlock, ReasoningKind, ThinkingForm, Usage

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
}


_FORM_REFUSED = re.compile(r'"thinking\.type\.(enabled|disabled|adaptive)" is not supported for this model')


def learned_form(message: str | None, known: ModelCapabilities | None) -> ModelCapabilities | None:
    """The capabilities a 400 proves wrong, corrected: budget refused -> adaptive; disabling refused -> always on;
    adaptive refused -> budget. None when the message is not such a refusal."""
    match = _FORM_REFUSED.search(message or "")
    if match is None:
        return None
    form = {"enabled": ThinkingForm.ADAPTIVE, "disabled": ThinkingForm.ALWAYS_ON, "adaptive": ThinkingForm.BUDGET}
    base = known or ModelCapabilities()
    efforts = base.efforts or (ANTHROPIC_EFFORTS[:3] if form[match.group(1)] is not ThinkingForm.BUDGET else ())
    sources = (*[s for s in base.sources if s[0] != "thinking"], ("thinking", CapabilitySource.PROVIDER_API))
    return replace(base, thinking=form[match.group(1)], efforts=efforts, sources=sources)


class StreamState:
    """Folds raw Messages API stream events into domain events; a thinking block's text streams as ThinkingDelta
    and the block, signed, comes as ReasoningDone when it ends (a redacted one with its data)."""

    def __init__(self, provider_id: str = "", model_id: str = "") -> None:
        self.input = self.output = self.cache_read = self.cache_write = self.reasoning = 0
        self.stop_reason: StopReason = "other"
        self.finished = False
        self.tools: dict[int, tuple[str, str, list[str]]] = {}
        self.thoughts: dict[int, ReasoningBlock] = {}  # thinking / redacted blocks under way, by index
        self.texts: dict[int, list[str]] = {}
        self.owner = (provider_id, model_id)
        self.web = SearchFold(provider_id, model_id)
        self.searches = 0  # usage.server_tool_use.web_search_requests
        self.paused = False  # stop_reason pause_turn: a server tool loop to be continued by sending the turn back
        self.signed: list[ReasoningBlock] = []  # the turn's thinking blocks so far (a continuation sends them back)
        self.earlier = Usage()  # the usage of the turn's earlier (paused) responses

    def next_leg(self) -> list[dict[str, Any]]:
        """After a pause_turn: the assistant content to send back as it came, and the state ready for the
        continuation's response."""
        content = [thinking_block(b) for b in self.signed] + self.web.so_far()
        self.earlier, self.paused, self.finished = self.usage(), False, False
        self.input = self.output = self.cache_read = self.cache_write = self.reasoning = self.searches = 0
        self.web.new_leg()
        return content

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = event.type
        if kind == "message_start":
            self._take_usage(event.message.usage)
        elif kind == "content_block_start":
            self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            delta = event.delta
            if self.web.delta(event.index, delta):
                return [ReplyProgress()]
            if delta.type == "text_delta" and delta.text:
                return [TextDelta(delta.text)]
            if delta.type == "thinking_delta" and delta.thinking:
                self.texts.setdefault(event.index, []).append(delta.thinking)
                return [ThinkingDelta(delta.thinking)]
            if delta.type == "signature_delta" and event.index in self.thoughts:
                block = self.thoughts[event.index]
                self.thoughts[event.index] = replace(block, signature=(block.signature or "") + delta.signature)
            if delta.type == "input_json_delta" and event.index in self.tools:
                self.tools[event.index][2].append(delta.partial_json)
                return [ReplyProgress()]
        elif kind == "content_block_stop" and event.index not in self.tools and event.index not in self.thoughts:
            self.web.stop(event.index)
        elif kind == "content_block_stop" and event.index in self.tools:
            call_id, name, pieces = self.tools.pop(event.index)
            return [ToolCallRequested(call_id, name, parse_tool_arguments("".join(pieces)))]
        elif kind == "content_block_stop" and event.index in self.thoughts:
            block = self.thoughts.pop(event.index)
            text = "".join(self.texts.pop(event.index, [])) or block.text
            self.signed.append(replace(block, text=text))
            return [ReasoningDone(replace(block, text=text))]
        elif kind == "message_delta":
            self.stop_reason = _STOP_REASONS.get(event.delta.stop_reason or "", "other")
            self.paused = event.delta.stop_reason == "pause_turn"
            self._take_usage(event.usage)
        elif kind == "message_stop":
            self.finished = True
            record = None if self.paused else self.web.record()
            return [WebSearched(record)] if record is not None else []
        return []

    def _start(self, index: int, block: Any) -> None:
        provider_id, model_id = self.owner
        if self.web.start(index, block):
            return
        if block.type == "tool_use":
            self.tools[index] = (block.id, block.name, [])
        elif block.type == "thinking":
            self.thoughts[index] = ReasoningBlock(ReasoningKind.THINKING, getattr(block, "thinking", "") or "",
                                                  getattr(block, "signature", None) or None,
                                                  provider_id=provider_id, model_id=model_id)
        elif block.type == "redacted_thinking":
            self.thoughts[index] = ReasoningBlock(ReasoningKind.REDACTED, data=block.data, provider_id=provider_id,
                                                  model_id=model_id)

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        self.input = getattr(usage, "input_tokens", None) or self.input
        self.output = getattr(usage, "output_tokens", None) or self.output
        self.cache_read = getattr(usage, "cache_read_input_tokens", None) or self.cache_read
        self.cache_write = getattr(usage, "cache_creation_input_tokens", None) or self.cache_write
        details = getattr(usage, "output_tokens_details", None)
        self.reasoning = getattr(details, "thinking_tokens", None) or self.reasoning
        server = getattr(usage, "server_tool_use", None)
        self.searches = getattr(server, "web_search_requests", None) or self.searches

    def usage(self) -> Usage:
        """The turn's usage: every response of it (a paused one and its continuations) added up."""
        e = self.earlier
        return Usage(
            input_tokens=e.input_tokens + self.input + self.cache_read + self.cache_write,
            output_tokens=e.output_tokens + self.output,
            cache_read_tokens=e.cache_read_tokens + self.cache_read,
            cache_write_tokens=e.cache_write_tokens + self.cache_write,
            reasoning_tokens=e.reasoning_tokens + self.reasoning,
            web_search_requests=e.web_search_requests + self.searches,
        )


