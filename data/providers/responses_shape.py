"""Domain messages and tools as OpenAI Responses API input items: user messages, the model's own reasoning items
of every earlier turn (each right before the item it produced, so the request's prefix stays the same from turn to
turn and the prompt cache reads it), assistant text, function_call and function_call_output items; and the
request's reasoning knobs. Content parts are built in one place (`user_content`) so that images and files can be
added as input_image / input_file parts beside input_text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from data.attachments.media import MediaSource
from data.providers.attachment_shape import responses_parts
from data.providers.conversation import AttachmentBlock, CallBlock, ResultBlock, TextBlock, Turn, to_turns
from data.providers.openai_shape import safe_call_id
from data.providers.responses_web import responses_web_params
from domain.context.reasoning_echo import echoed_reasoning
from domain.models import (
    Message,
    MessageType,
    ModelCapabilities,
    ReasoningBlock,
    ReasoningKind,
    ThinkingForm,
    ToolDefinition,
)
from domain.web import WebSearchSettings

ENCRYPTED_REASONING = "reasoning.encrypted_content"
EFFORT_ORDER = ("none", "minimal", "low", "medium", "high", "xhigh", "max")  # reasoning.effort values, in order


def user_content(text: str) -> list[dict[str, Any]]:
    """The content parts of a user message (text now; attachments become input_image / input_file parts here)."""
    return [{"type": "input_text", "text": text}]


def reasoning_item(block: ReasoningBlock) -> dict[str, Any]:
    """A stored reasoning item exactly as the model produced it (id, summary, encrypted content)."""
    summary = [{"type": "summary_text", "text": block.text}] if block.text else []
    return {"type": "reasoning", "id": block.item_id, "summary": summary, "encrypted_content": block.data}


def echoable(block: ReasoningBlock, owner: tuple[str, str]) -> bool:
    """Whether a stored block can go back: a Responses reasoning item of this provider and model, with its content."""
    return (block.kind is ReasoningKind.ENCRYPTED and block.belongs_to(*owner) and bool(block.item_id)
            and bool(block.data))


def echoed_items(messages: Sequence[Message], owner: tuple[str, str] | None) -> frozenset[str]:
    """The ids of the reasoning items a request sends back: this model's of every turn (what the estimator counts,
    domain.context.reasoning_echo with every_turn, as data.providers.thinking_rules says of this API)."""
    if owner is None:
        return frozenset()
    return frozenset(b.item_id for b in echoed_reasoning(messages, *owner, every_turn=True)
                     if echoable(b, owner) and b.item_id)


def _own(blocks: Sequence[ReasoningBlock], echoed: frozenset[str]) -> list[dict[str, Any]]:
    return [reasoning_item(b) for b in blocks if b.item_id in echoed]


def _assistant_items(
    turn: Turn, echoed: frozenset[str], call_reasoning: Mapping[str, Sequence[ReasoningBlock]]
) -> list[dict[str, Any]]:
    """The reply's reasoning, its text, then each call preceded by the reasoning that produced it: the order the
    model wrote them in, so a reasoning item is never sent without the item it produced after it."""
    texts = [b.text for b in turn.blocks if isinstance(b, TextBlock)]
    calls = [b for b in turn.blocks if isinstance(b, CallBlock)]
    items: list[dict[str, Any]] = []
    if texts:
        items += [*_own(turn.reasoning, echoed), {"role": "assistant", "content": "\n\n".join(texts)}]
    for index, call in enumerate(calls):
        before = list(call_reasoning.get(call.id, ()))
        if index == 0 and not texts:
            before = list(turn.reasoning) + before
        items += _own(before, echoed)
        items.append({"type": "function_call", "call_id": safe_call_id(call.id), "name": call.name,
                      "arguments": json.dumps(dict(call.input))})
    return items


def responses_input(
    messages: Sequence[Message], *, tool_blocks: bool = True, owner: tuple[str, str] | None = None,
    media: MediaSource | None = None,
) -> list[dict[str, Any]]:
    """The input items of a conversation: every call followed by its output; `owner` (provider id, model id): whose
    reasoning items are echoed (only that model's own, never another's; of every turn, each in its place)."""
    items: list[dict[str, Any]] = []
    call_reasoning = {m.tool_call_id or f"call_{m.id}": m.reasoning for m in messages
                      if m.type is MessageType.TOOL_CALL and m.reasoning}
    echoed = echoed_items(messages, owner)
    for turn in to_turns(messages, user_first=True, tool_blocks=tool_blocks):
        if turn.role == "assistant":
            items += _assistant_items(turn, echoed, call_reasoning)
            continue
        for block in turn.blocks:
            if isinstance(block, ResultBlock):
                items.append({"type": "function_call_output", "call_id": safe_call_id(block.id),
                              "output": _output(block, media)})
        texts = [b.text for b in turn.blocks if isinstance(b, TextBlock)]
        files = [part for b in turn.blocks if isinstance(b, AttachmentBlock) for part in responses_parts(b.attachment,
                                                                                                          media)]
        if texts or files:
            items.append({"role": "user", "content": files + (user_content("\n\n".join(texts)) if texts else [])})
    return items


def _output(block: ResultBlock, media: MediaSource | None) -> str | list[dict[str, Any]]:
    """A function_call_output's output: its text, or with images the API's list of input_text and input_image."""
    if not block.attachments:
        return block.marked_output
    parts = [{"type": "input_text", "text": block.marked_output}]
    return parts + [part for file in block.attachments for part in responses_parts(file, media)]


def responses_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Function tools in the Responses shape (name at the top level, not strict)."""
    return [{"type": "function", "name": t.name, "description": t.description, "parameters": dict(t.parameters),
             "strict": False} for t in tools]


def effort_for(caps: ModelCapabilities, level: str) -> str | None:
    """The model's reasoning.effort for a level: the level itself when the model takes it, else the nearest it
    takes (off: its lowest; max: its highest); auto: none (the model's default)."""
    efforts = [e for e in EFFORT_ORDER if e in caps.efforts] or ["low", "medium", "high"]
    if level == "auto":
        return None
    if level == "off":
        return efforts[0]
    if level == "max":
        return efforts[-1]
    if level in efforts:
        return level
    rank = EFFORT_ORDER.index(level) if level in EFFORT_ORDER else EFFORT_ORDER.index("medium")
    below = [e for e in efforts if EFFORT_ORDER.index(e) <= rank]
    return below[-1] if below else efforts[0]


def reasoning_params(caps: ModelCapabilities | None, level: str) -> dict[str, Any]:
    """reasoning (effort, summary "auto" so the summary streams as thinking) and include (the encrypted content,
    which a stateless request needs to send reasoning back) — only for a model that reasons; nothing otherwise
    (non-reasoning models refuse both)."""
    if caps is None or caps.thinking is ThinkingForm.NONE:
        return {}
    reasoning: dict[str, Any] = {"summary": "auto"}
    effort = effort_for(caps, level)
    if effort is not None:
        reasoning["effort"] = effort
    return {"reasoning": reasoning, "include": [ENCRYPTED_REASONING]}


def responses_request(
    *,
    model_id: str,
    system_prompt: str | None,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    max_output_tokens: int,
    owner: tuple[str, str],
    capabilities: ModelCapabilities | None,
    reasoning: str,
    cache_key: str | None,
    media: MediaSource | None = None,
    web_search: WebSearchSettings | None = None,
) -> dict[str, Any]:
    """Keyword arguments for responses.create (without stream): stateless (store false), instructions in the
    system prompt's place, a prompt_cache_key per conversation; the web_search tool when `web_search` is on."""
    params: dict[str, Any] = {
        "model": model_id,
        "input": responses_input(messages, tool_blocks=bool(tools), owner=owner, media=media),
        "max_output_tokens": max_output_tokens,
        "store": False,
        **reasoning_params(capabilities, reasoning),
    }
    if system_prompt and system_prompt.strip():
        params["instructions"] = system_prompt
    if tools:
        params["tools"] = responses_tools(tools)
    if cache_key:
        params["prompt_cache_key"] = cache_key[:64]
    return responses_web_params(web_search, params)
