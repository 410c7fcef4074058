"""Domain messages and tools in the Anthropic Messages API's shape, with prompt-caching breakpoints."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from data.attachments.media import MediaSource
from data.providers.anthropic_thinking import loop_reasoning, thinking_block, thinking_request
from data.providers.anthropic_web import sent_back, web_fetch_tool, web_search_tool
from data.providers.attachment_shape import anthropic_parts
from data.providers.conversation import (
    AttachmentBlock,
    CallBlock,
    ResultBlock,
    SearchedBlock,
    TextBlock,
    Turn,
    to_turns,
)
from data.providers.thinking_rules import takes_interleaved
from data.providers.turn_memo import TurnMemo
from domain.attachment import placeholder
from domain.context.shared_prefix import same_prefix
from domain.models import Message, ModelCapabilities, ReasoningBlock, ToolDefinition
from domain.web import WebSearchSettings

EPHEMERAL = {"type": "ephemeral"}
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def safe_tool_id(call_id: str) -> str:
    """Anthropic accepts tool ids of [a-zA-Z0-9_-] only; ids from other providers are made to fit."""
    return _ID_UNSAFE.sub("_", call_id) or "call"


def anthropic_messages(
    messages: Sequence[Message], *, cache: bool = True, tool_blocks: bool = True, media: MediaSource | None = None
) -> list[dict[str, Any]]:
    """User/assistant alternation with tool_result blocks in the user turn right after their tool_use turn."""
    return shape_turns(to_turns(messages, user_first=True, tool_blocks=tool_blocks), cache=cache, media=media)


class ShapeMemo:
    """What an adapter's requests shape again and again: the turns (walked again only after the prefix they share,
    see TurnMemo) and the shaped dicts of the last request's turns, by the turn object (only turns whose shape
    depends on nothing else: no files, no searched blocks, no reasoning sent back), so nothing is held beyond what
    that request held. The dicts are never changed once made (the request's cache breakpoint goes on a copy).
    The last request's leading turns that were all kept are also kept in order, so that the next request, which
    begins with the same turn objects, takes them at once (see `prefix`)."""

    def __init__(self) -> None:
        self.turns = TurnMemo()
        self._shaped: dict[int, tuple[Turn, dict[str, Any]]] = {}
        self._lead: tuple[tuple[Turn, ...], tuple[dict[str, Any], ...]] = ((), ())

    def shaped(self, turn: Turn) -> dict[str, Any] | None:
        """The turn's shape in the last request, if it was kept."""
        kept = self._shaped.get(id(turn))
        return kept[1] if kept is not None and kept[0] is turn else None

    def prefix(self, turns: Sequence[Turn]) -> tuple[dict[str, Any], ...]:
        """The shapes of the longest run of `turns`' first turns that the last request began with (the same
        objects, all kept)."""
        lead, shapes = self._lead
        return shapes[:same_prefix(lead, turns)]

    def remember(self, shaped: dict[int, tuple[Turn, dict[str, Any]]],
                 lead: tuple[tuple[Turn, ...], tuple[dict[str, Any], ...]] = ((), ())) -> None:
        """The shapes of this request's turns, instead of the last one's, and its leading turns all kept."""
        self._shaped, self._lead = shaped, lead


def _alone(turn: Turn) -> bool:
    """Whether nothing but the turn decides its shape (no file, no searched block: their shape reads more)."""
    return not any(isinstance(b, AttachmentBlock | SearchedBlock) or (isinstance(b, ResultBlock) and b.attachments)
                   for b in turn.blocks)


def shape_turns(
    turns: Sequence[Turn], *, cache: bool = True, reasoning: dict[int, list[ReasoningBlock]] | None = None,
    media: MediaSource | None = None, memo: ShapeMemo | None = None,
) -> list[dict[str, Any]]:
    """Turns in the Messages API's shape; `reasoning` (by turn index) goes first in its assistant turn, unchanged.
    With `memo`, a turn shaped before (the same object) is not shaped again."""
    shaped: list[dict[str, Any]] = []
    kept: dict[int, tuple[Turn, dict[str, Any]]] = {}
    start = 0
    if memo is not None and not reasoning:  # the last request's leading turns again: their shapes at once
        shaped = list(memo.prefix(turns))
        start = len(shaped)
        kept = dict(zip(map(id, turns[:start]), zip(turns[:start], shaped, strict=True), strict=True))
    lead = start if start == len(kept) else 0  # how many first turns are all kept
    for index in range(start, len(turns)):
        turn = turns[index]
        echoed = (reasoning or {}).get(index, ())
        known = memo.shaped(turn) if memo is not None and not echoed else None
        if known is not None:
            shaped.append(known)
            kept[id(turn)] = (turn, known)
            lead += lead == index  # still all kept from the first turn
            continue
        content: list[dict[str, Any]] = [thinking_block(b) for b in echoed]
        for block in turn.blocks:
            if isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, AttachmentBlock):
                content.extend(anthropic_parts(block.attachment, media))
            elif isinstance(block, SearchedBlock):
                content.extend(sent_back(block.record))
            elif isinstance(block, CallBlock):
                content.append(
                    {"type": "tool_use", "id": safe_tool_id(block.id), "name": block.name, "input": dict(block.input)}
                )
            elif isinstance(block, ResultBlock):
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": safe_tool_id(block.id),
                    "content": _result_content(block, media),
                }
                if block.is_error:
                    result["is_error"] = True
                content.append(result)
        shaped.append({"role": turn.role, "content": content})
        if memo is not None and not echoed and _alone(turn):
            kept[id(turn)] = (turn, shaped[-1])
            lead += lead == index  # still all kept from the first turn
    if memo is not None:
        memo.remember(kept, (tuple(turns[:lead]), tuple(shaped[:lead])))
    if cache and shaped and shaped[-1]["content"]:  # on a copy: the turn's own shape may be kept for later requests
        last = shaped[-1]
        shaped[-1] = {**last, "content": [*last["content"][:-1],
                                          {**last["content"][-1], "cache_control": dict(EPHEMERAL)}]}
    return shaped


def _result_content(block: ResultBlock, media: MediaSource | None) -> str | list[dict[str, Any]]:
    """A tool_result's content: its text, then its images as image blocks (an error's content must be text only,
    so an error's images go as their one-line descriptions)."""
    if not block.attachments:
        return block.output
    if block.is_error:
        lines = [placeholder(replace(a, omitted=True, note="not sent with an error result"))
                 for a in block.attachments]
        return "\n".join([block.output, *lines])
    parts: list[dict[str, Any]] = [{"type": "text", "text": block.output}]
    for attachment in block.attachments:
        parts.extend(anthropic_parts(attachment, media))
    return parts


def anthropic_system(system_prompt: str | None, *, cache: bool = True) -> list[dict[str, Any]] | None:
    """The system prompt as one text block, cached unless told otherwise (None when there is none)."""
    if not system_prompt or not system_prompt.strip():
        return None
    block: dict[str, Any] = {"type": "text", "text": system_prompt}
    if cache:
        block["cache_control"] = dict(EPHEMERAL)
    return [block]


def anthropic_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions with input_schema."""
    return [
        {"name": tool.name, "description": tool.description, "input_schema": dict(tool.parameters)} for tool in tools
    ]


def anthropic_request(
    *,
    model_id: str,
    system_prompt: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    max_output_tokens: int,
    cache: bool = True,
    provider_id: str = "",
    reasoning: str = "off",
    capabilities: ModelCapabilities | None = None,
    model_max_output: int | None = None,
    media: MediaSource | None = None,
    web_search: WebSearchSettings | None = None,
    memo: ShapeMemo | None = None,
) -> dict[str, Any]:
    """Keyword arguments for messages.create (without stream); cache=False for one-off prompts (a cache write
    costs more than plain input and would never be read). Thinking follows the model's form at the `reasoning`
    level (anthropic_thinking.thinking_request), decided at a tool loop's start and kept for its every step (a
    budget model that takes it thinks between tool calls under the interleaved-thinking beta); while it is on, the
    current tool loop's own reasoning blocks of this provider and model go back first in their turns, as they
    came. The beta header, when sent, is in `extra_headers`. With `web_search` on, the web_search server tool is
    offered (and web_fetch where the model takes it), and earlier searched replies of this provider go back as
    their blocks came (pruned ones as text). `memo`: an adapter's own, which spares shaping again what its earlier
    requests shaped (the request is the same)."""
    walk = to_turns if memo is None else memo.turns.turns
    turns = walk(messages, user_first=True, tool_blocks=bool(tools),
                 web_provider=provider_id if web_search is not None else None)
    echoed = loop_reasoning(turns, provider_id, model_id)
    steps = sorted(echoed)
    thinking = thinking_request(
        capabilities, reasoning, max_output_tokens, model_max_output=model_max_output,
        loop_lacks_thinking=bool(steps) and not (echoed[steps[0]] and echoed[steps[-1]]),
        interleaved=takes_interleaved(model_id, capabilities),
    )
    params: dict[str, Any] = {
        "model": model_id,
        "max_tokens": thinking.max_tokens,
        "messages": shape_turns(turns, cache=cache, reasoning=echoed if thinking.active else None, media=media,
                                memo=memo),
        **thinking.params,
    }
    system = anthropic_system(system_prompt, cache=cache)
    if system:
        params["system"] = system
    if tools or web_search is not None:
        fetches = web_search is not None and (capabilities is None or capabilities.web_fetch is not False)
        params["tools"] = [*anthropic_tools(tools), *([web_fetch_tool(web_search)] if web_search and fetches else []),
                           *([web_search_tool(web_search)] if web_search else [])]
    if thinking.headers:
        params["extra_headers"] = dict(thinking.headers)
    return params
