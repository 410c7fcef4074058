"""The rules the OpenAI Responses API enforces on a request, with its real 400 bodies' messages, and the reading of
its input items into the provider-neutral request."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tests.fakeservers.brain import NormalizedMessage, NormalizedRequest, Part, TextPart, ToolCallPart, ToolResultPart
from tests.fakeservers.media_rules import MediaPart
from tests.fakeservers.openai_media import OpenAIMediaRefused
from tests.fakeservers.responses_media import MEDIA_TYPES, media_part

REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "gpt-6", "gpt-oss")  # take `reasoning` and encrypted content
EFFORTS = ("minimal", "low", "medium", "high")
# the GPT-6 models' pages: gpt-6-luna and gpt-6.1-terra take none, low, medium (their default), high, xhigh and max;
# the Sol models reject none (gpt-6.2-sol's page: "The API rejects requests that set reasoning effort to none")
GPT6_EFFORTS = ("none", "low", "medium", "high", "xhigh", "max")
SOL_EFFORTS = GPT6_EFFORTS[1:]
# GPT-5.1 brought none (its default) in place of minimal, GPT-5.2 added xhigh (OpenAI's reasoning guide)
GPT51_EFFORTS = ("none", "low", "medium", "high")
GPT52_EFFORTS = (*GPT51_EFFORTS, "xhigh")
_GPT5_MINOR = re.compile(r"^gpt-5\.(\d+)(?:[.-]|$)")
MIN_OUTPUT_TOKENS = 16


class Refusal(Exception):
    """A request the API refuses: (message, param, code) of its 400 body."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param, self.code = message, param, code


def reasons(model: str) -> bool:
    """Whether the model is a reasoning model (takes reasoning.effort and returns reasoning items)."""
    return model.lower().startswith(REASONING_PREFIXES)


def efforts_of(model: str) -> tuple[str, ...]:
    """The reasoning.effort values a model takes."""
    name = model.lower()
    if name.startswith("gpt-6"):
        return SOL_EFFORTS if name.endswith("-sol") else GPT6_EFFORTS
    minor = _GPT5_MINOR.match(name)
    if minor is not None:
        return GPT51_EFFORTS if minor.group(1) == "1" else GPT52_EFFORTS
    return EFFORTS


def check(body: Mapping[str, Any], issued: Mapping[str, str], issued_to: Mapping[str, str] | None = None,
          searched_after: Mapping[str, str] | None = None) -> None:
    """Raises Refusal for what the real API refuses; `issued`: the encrypted content of every reasoning item this
    server produced, by id (a stateless request can only send back those, unaltered); `issued_to`: the model each
    was produced by, by id (another model cannot read it); `searched_after`: reasoning item id -> the id of the
    web_search_call it produced (the pair goes back together or not at all)."""
    model = str(body.get("model") or "")
    reasoning = body.get("reasoning") or {}
    if reasoning and not reasons(model):
        raise Refusal("Unsupported parameter: 'reasoning.effort' is not supported with this model.",
                      "reasoning.effort", "unsupported_parameter")
    effort, efforts = reasoning.get("effort"), efforts_of(model)
    if effort is not None and effort not in efforts:
        listed = ", ".join(f"'{e}'" for e in efforts[:-1]) + f", and '{efforts[-1]}'"
        raise Refusal(f"Invalid value: '{effort}'. Supported values are: {listed}.", "reasoning.effort",
                      "unsupported_value")
    if "reasoning.encrypted_content" in (body.get("include") or []) and not reasons(model):
        raise Refusal("Encrypted content is not supported with this model.", "include", "unsupported_parameter")
    limit = body.get("max_output_tokens")
    if isinstance(limit, int) and limit < MIN_OUTPUT_TOKENS:
        raise Refusal(f"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= "
                      f"{MIN_OUTPUT_TOKENS}, but got {limit} instead.", "max_output_tokens", "integer_below_min_value")
    _check_items(input_items(body), issued, issued_to or {}, model, stored=body.get("store", True) is not False)
    _check_search_pairs(input_items(body), searched_after or {})


def input_items(body: Mapping[str, Any]) -> list[Any]:
    """The input as a list of items (a plain string is one user message)."""
    raw = body.get("input") or []
    return [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw)


def _check_items(items: list[Any], issued: Mapping[str, str], issued_to: Mapping[str, str], model: str, *,
                 stored: bool) -> None:
    calls: set[str] = set()
    for index, item in enumerate(items):
        kind = item.get("type") or ("message" if "role" in item else "")
        if kind == "reasoning":
            item_id = str(item.get("id") or "")
            content = item.get("encrypted_content")
            if not content and not stored:
                raise Refusal(f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to "
                              "false. Try again with `store` set to true, or remove this item from your input.",
                              "input")
            if content and (issued.get(item_id) != content or issued_to.get(item_id, model) != model):
                raise Refusal(f"The encrypted content {_abridged(str(content))} could not be verified.", None,
                              "invalid_encrypted_content")
            following = items[index + 1] if index + 1 < len(items) else None
            if following is None or not _produced(following):
                raise Refusal(f"Item '{item_id}' of type 'reasoning' was provided without its required following "
                              "item.", "input")
        elif kind == "function_call":
            calls.add(str(item.get("call_id")))
        elif kind == "function_call_output" and str(item.get("call_id")) not in calls:
            raise Refusal(f"No tool call found for function call output with call_id {item.get('call_id')}.", "input")


def _check_search_pairs(items: list[Any], searched_after: Mapping[str, str]) -> None:
    """A reasoning item that produced a web_search_call must be followed by that very item, and the call must come
    with its reasoning item (both bodies as quoted from the real API: continuedev/continue#8933, LionSR/TeXRA#1775)."""
    reasoning_of = {call: rs for rs, call in searched_after.items()}
    seen: set[str] = set()
    for index, item in enumerate(items):
        item_id = str(item.get("id") or "")
        kind = item.get("type") or ""
        if kind == "reasoning" and item_id in searched_after:
            following = items[index + 1] if index + 1 < len(items) else {}
            if str(following.get("id") or "") != searched_after[item_id]:
                raise Refusal(f"Item '{item_id}' of type 'reasoning' was provided without its required following "
                              "item.", "input")
        elif kind == "web_search_call" and item_id in reasoning_of and reasoning_of[item_id] not in seen:
            raise Refusal(f"Item '{item_id}' of type 'web_search_call' was provided without its required "
                          f"'reasoning' item: '{reasoning_of[item_id]}'.", "input")
        seen.add(item_id)


def _abridged(content: str) -> str:
    """Encrypted content as the API's message quotes it: its first and last four characters."""
    return f"{content[:4]}...{content[-4:]}"


def _produced(item: Mapping[str, Any]) -> bool:
    """An item a reasoning item can precede: more reasoning, an assistant message, a function or web search call."""
    kind = item.get("type") or "message"
    return (kind in ("reasoning", "function_call", "web_search_call")
            or (kind == "message" and item.get("role") == "assistant"))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in content or [] if isinstance(p, dict))


OUTPUT_TYPES = ("input_text", "input_image", "input_file")


def output_media(output: Any, where: str) -> tuple[MediaPart, ...]:
    """The images and files of a function_call_output's list output (input_text, input_image, input_file: the
    API's ResponseFunctionCallOutputItemList), checked as in a user message; another part type is refused."""
    if not isinstance(output, list):
        return ()
    media: list[MediaPart] = []
    for j, part in enumerate(output):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in OUTPUT_TYPES:
            raise OpenAIMediaRefused(f"Invalid value: '{kind}'. Supported values are: 'input_text', 'input_image', "
                                     "and 'input_file'.", "invalid_value", f"{where}[{j}].type")
        if kind in MEDIA_TYPES:
            media.append(media_part(part, "tool", f"{where}[{j}]"))
    return tuple(media)


# The Responses API takes no audio input: an input_audio part (which the SDK's types define but no message content
# union includes) is refused with this message (a 400 invalid_value on input[i].content[j].type, as reported at
# community.openai.com/t/audio-input-not-working-when-migrating-from-completions-to-responses/1364108).
AUDIO_REFUSED = ("Invalid value: 'input_audio'. Supported values are: 'input_text', 'input_image', 'output_text', "
                 "'refusal', 'input_file', 'computer_screenshot', and 'summary_text'.")


def no_audio(content: Any, index: int) -> None:
    """Refuses a message's input_audio part as the API does."""
    for j, part in enumerate(content if isinstance(content, list) else []):
        if isinstance(part, dict) and part.get("type") == "input_audio":
            raise OpenAIMediaRefused(AUDIO_REFUSED, "invalid_value", f"input[{index}].content[{j}].type")


def normalize(body: Mapping[str, Any], headers: Mapping[str, str]) -> NormalizedRequest:
    """The request as provider-neutral messages; reasoning items become messages of role 'reasoning' (their
    encrypted content counts for the prompt's size and its cached prefix, as on the real API); input_image and
    input_file parts are checked and priced (responses_media: OpenAIMediaRefused for what the API refuses)."""
    names: dict[str, str] = {}
    messages: list[NormalizedMessage] = []
    system = [str(body.get("instructions") or "")]
    for i, item in enumerate(input_items(body)):
        kind = item.get("type") or "message"
        parts: list[Part] = []
        if kind == "message" and item.get("role") in ("system", "developer"):
            system.append(_text(item.get("content")))
            continue
        if kind == "message":
            content = item.get("content")
            no_audio(content, i)
            media = [media_part(p, str(item.get("role")), f"input[{i}].content[{j}]")
                     for j, p in enumerate(content if isinstance(content, list) else [])
                     if isinstance(p, dict) and p.get("type") in MEDIA_TYPES]
            messages.append(NormalizedMessage(str(item.get("role")), (TextPart(_text(content)), *media)))
        elif kind == "reasoning":
            summary = " ".join(str(s.get("text", "")) for s in item.get("summary") or [])
            parts.append(TextPart(f"{item.get('id')} {summary} {item.get('encrypted_content') or ''}"))
            messages.append(NormalizedMessage("reasoning", tuple(parts)))
        elif kind == "function_call":
            names[str(item["call_id"])] = str(item["name"])
            arguments = json.loads(item.get("arguments") or "{}")
            messages.append(NormalizedMessage("assistant", (ToolCallPart(item["call_id"], item["name"], arguments),)))
        elif kind == "function_call_output":
            call_id = str(item["call_id"])
            returned = output_media(item.get("output"), f"input[{i}].output")
            messages.append(NormalizedMessage("tool", (ToolResultPart(call_id, names.get(call_id, ""),
                                                                      _text(item.get("output")), media=returned),)))
    if body.get("tools"):  # the definitions are part of the prompt (counted and cached), as on the real API
        system.append("[tools] " + json.dumps(body["tools"], sort_keys=True))
    return NormalizedRequest(
        flavour="openai", model=str(body.get("model") or ""), system="\n".join(s for s in system if s),
        messages=tuple(messages), tool_names=tuple(str(t.get("name")) for t in body.get("tools") or []),
        max_tokens=body.get("max_output_tokens"), stream=bool(body.get("stream")), raw=body, headers=dict(headers),
    )
