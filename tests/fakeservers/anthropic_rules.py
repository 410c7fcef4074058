"""The Messages API's request rules the fake Anthropic server enforces, with the real 400 messages: thinking forms
per model, budgets, signed thinking blocks bound to the model that made them, the thinking tool loop."""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from tests.fakeservers.web_search import blocks_refusal, tool_refusal, web_tool

_SIGNING_KEY = b"fake-anthropic-signing-key"
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"


def sign(model: str, text: str) -> str:
    """The signature of a thinking block: bound to the model that produced it and to its text."""
    digest = hmac.new(_SIGNING_KEY, f"{model}\0{text}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def redacted_data(model: str) -> str:
    """The opaque data of a redacted_thinking block (a nonce signed for the model)."""
    nonce = uuid.uuid4().hex
    return f"{nonce}.{sign(model, 'redacted:' + nonce)}"


def _redacted_valid(model: str, data: Any) -> bool:
    nonce, _, mac = str(data).partition(".")
    return bool(nonce) and hmac.compare_digest(mac, sign(model, "redacted:" + nonce))


def model_info(model_id: str, *, thinking: str = "budget", efforts: Iterable[str] = (), max_input: int = 200_000,
               max_tokens: int = 64_000, display_name: str | None = None, web_search: bool = True) -> dict[str, Any]:
    """A /v1/models entry with the capabilities object of the real API; thinking: none | budget | adaptive (also
    takes a budget, can be disabled) | adaptive_only (no budget) | always_on (adaptive only, cannot be disabled);
    web_search: whether the model takes the web search server tool (Claude 3 Haiku, Sonnet, Opus do not)."""
    yes, no = {"supported": True}, {"supported": False}
    levels = tuple(efforts)
    types = {
        "adaptive": yes if thinking in ("adaptive", "adaptive_only", "always_on") else no,
        "enabled": yes if thinking in ("budget", "adaptive") else no,
        "disabled": no if thinking == "always_on" else yes,
        "between_tools": no,
    }
    effort = {"supported": bool(levels), **{level: yes if level in levels else no for level in EFFORT_LEVELS}}
    capabilities = {
        "batch": yes, "citations": yes, "code_execution": no, "context_management": {"supported": False},
        "effort": effort, "image_input": yes, "pdf_input": yes,
        "server_tools": {"supported": web_search, "code_execution": no, "web_search": yes if web_search else no},
        "structured_outputs": yes,
        "thinking": {"supported": thinking != "none", "types": types},
    }
    return {"id": model_id, "display_name": display_name or model_id, "max_input_tokens": max_input,
            "max_tokens": max_tokens, "capabilities": capabilities}


def _accepts(model: Mapping[str, Any] | None, kind: str) -> bool:
    if model is None or "capabilities" not in model:
        return True  # a model the fake was not told about takes every thinking form
    return bool(model["capabilities"]["thinking"]["types"][kind]["supported"])


def _thinking_refusal(body: Mapping[str, Any], model: Mapping[str, Any] | None,
                      headers: Mapping[str, str]) -> str | None:
    thinking = body.get("thinking") or {}
    kind = thinking.get("type")
    if kind in ("enabled", "adaptive", "disabled") and not _accepts(model, kind):
        return (f'"thinking.type.{kind}" is not supported for this model. Use "thinking.type.adaptive" and '
                '"output_config.effort" to control thinking behavior.')
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= int(body.get("max_tokens") or 0) and not interleaved(headers):  # then: the turn's whole budget
            return ("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
                    f"{DOCS}#max-tokens-and-context-window-size")
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and model is not None and "capabilities" in model:
        efforts = model["capabilities"]["effort"]
        if not efforts["supported"] or not efforts.get(effort, {}).get("supported"):
            return f'output_config.effort: "{effort}" is not supported for this model.'
    if kind in ("enabled", "adaptive") and body.get("temperature", 1) != 1:
        return "`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode."
    return None


def _signature_refusal(body: Mapping[str, Any]) -> str | None:
    model = str(body.get("model", ""))
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if message.get("role") != "assistant" or isinstance(content, str):
            continue
        for j, block in enumerate(content or []):
            if block.get("type") == "thinking":
                expected = sign(model, str(block.get("thinking", "")))
                if not hmac.compare_digest(str(block.get("signature", "")), expected):
                    return f"messages.{i}.content.{j}: Invalid signature in thinking block"
            elif block.get("type") == "redacted_thinking" and not _redacted_valid(model, block.get("data")):
                return f"messages.{i}.content.{j}: Invalid signature in thinking block"
    return None


def _tool_loop_refusal(body: Mapping[str, Any], model: Mapping[str, Any] | None) -> str | None:
    kind = (body.get("thinking") or {}).get("type")
    if kind not in ("enabled", "adaptive") or not _accepts(model, "disabled"):
        return None  # thinking off, or an always-on model (it drops what it cannot read, without an error)
    messages = body.get("messages") or []
    if len(messages) < 2 or messages[-1].get("role") != "user" or messages[-2].get("role") != "assistant":
        return None
    last = messages[-1].get("content")
    if isinstance(last, str) or not any(b.get("type") == "tool_result" for b in last or []):
        return None
    content = messages[-2].get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    first = blocks[0].get("type") if blocks else "nothing"
    if first in ("thinking", "redacted_thinking"):
        return None
    return (f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{first}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block "
            "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking "
            "blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our "
            f"documentation at {DOCS}")


def _final_assistant_refusal(body: Mapping[str, Any]) -> str | None:
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "assistant":
        return None
    content = messages[-1].get("content")
    if isinstance(content, str):
        last = content
    else:
        thinking_on = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
        for j, block in enumerate(content or []):
            if block.get("type") in ("thinking", "redacted_thinking") and not thinking_on:
                return (f"messages.{len(messages) - 1}.content.{j}: When thinking is disabled, an `assistant` message "
                        "in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in "
                        "your request.")
        last = next((b.get("text", "") for b in reversed(content or []) if b.get("type") == "text"), "")
    if last != last.rstrip():
        return "messages: final assistant content cannot end with trailing whitespace"
    return None


def refusal(body: Mapping[str, Any], models: Iterable[Mapping[str, Any]] = (),
            headers: Mapping[str, str] | None = None) -> str | None:
    """The 400 message the real Messages API answers a request it refuses, or None (the rules the app can break).
    `models` are the server's /v1/models entries: a model listed with capabilities is held to its thinking forms;
    `headers`: the request's (the interleaved-thinking beta lets budget_tokens pass max_tokens)."""
    model = next((m for m in models if m.get("id") == body.get("model")), None)
    return (_thinking_refusal(body, model, headers or {}) or _signature_refusal(body)
            or _tool_loop_refusal(body, model) or _final_assistant_refusal(body)
            or _server_tool_refusal(body, model) or tool_refusal(web_tool(body)) or blocks_refusal(body))


def _server_tool_refusal(body: Mapping[str, Any], model: Mapping[str, Any] | None) -> str | None:
    """The 400 for a web search tool offered to a model listed without it (the API's wording, as a real body quoted
    in UKGovernmentBEIS/inspect_ai#3179 has it; that body goes on to suggest the tool types the model takes, "Did
    you mean one of ...?": which ones a model without web search is offered is not known, so none are named)."""
    tool = web_tool(body)
    if tool is None or model is None or "capabilities" not in model:
        return None
    if model["capabilities"]["server_tools"]["web_search"]["supported"]:
        return None
    return f"'{body.get('model')}' does not support tool types: {tool.get('type')}."


def interleaved(headers: Mapping[str, str]) -> bool:
    """Whether the request carries the interleaved-thinking beta (anthropic-beta: a comma-separated list)."""
    betas = next((v for k, v in headers.items() if k.lower() == "anthropic-beta"), "")
    return INTERLEAVED_BETA in (b.strip() for b in betas.split(","))


def continues_tool_loop(body: Mapping[str, Any]) -> bool:
    """Whether the request's last message is a user turn of tool results (the same assistant turn goes on)."""
    messages = body.get("messages") or []
    last = messages[-1].get("content") if messages and messages[-1].get("role") == "user" else None
    return isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)


def thinks_between_tools(body: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    """Whether a reply to a request with thinking on may write a new thinking block, as the API behaves: at the start
    of an assistant turn always; after tool results (the same turn going on) an adaptive model does (interleaved
    thinking is built in), a budget model only with the interleaved-thinking beta (without it, it thinks once per
    assistant turn, before its first tool call)."""
    kind = (body.get("thinking") or {}).get("type")
    return kind != "enabled" or not continues_tool_loop(body) or interleaved(headers)
