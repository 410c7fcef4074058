"""The thinking-level and thought-signature rules the fake Gemini server enforces, with the real 400 messages: a
thinking level a model does not take is refused; Gemini 3 refuses a step of the current turn whose first function call
has no signature, and every signature sent back must be one this server issued for that model and part (or the
documented placeholder)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

SIGNING_KEY = b"fake-gemini-signing-key"  # a server may rotate its own (then old signatures are corrupted)
_MAGIC = b"FGSIG1"
PLACEHOLDERS = ("skip_thought_signature_validator", "context_engineering_is_the_way_to_go")  # documented dummies
DOCS = "https://ai.google.dev/gemini-api/docs/thought-signatures"
CORRUPTED = "Corrupted thought signature."
_FAMILY = re.compile(r"gemini-(\d+)(?:\.(\d+))?-", re.I)


def _family(model: str) -> tuple[int, int] | None:
    match = _FAMILY.search(model)
    return (int(match.group(1)), int(match.group(2) or 0)) if match else None


def enforces_signatures(model: str) -> bool:
    """Gemini 3 and later validate the function calls of the current turn (2.5 does not)."""
    family = _family(model)
    return family is not None and family >= (3, 0)


def thinks(model: str, body: Mapping[str, Any]) -> bool:
    """Whether the request runs with thinking (and so gets signatures): always on Gemini 3, on 2.5 unless its budget
    is 0, never on the fake's own test models."""
    family = _family(model)
    if family is None:
        return False
    if family >= (3, 0):
        return True
    return family == (2, 5) and thinking_config(body).get("thinkingBudget") != 0


def thinking_config(body: Mapping[str, Any]) -> dict[str, Any]:
    """generationConfig.thinkingConfig with camelCase keys (the API takes proto field names in either case; the
    SDK sends this object's keys in snake_case)."""
    config = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
    return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key): value for key, value in config.items()}


def _content_of(part: Mapping[str, Any]) -> str:
    call = part.get("functionCall")
    if call is not None:  # a function call's signature is bound to the call itself
        return "call\0" + call.get("name", "") + "\0" + json.dumps(call.get("args") or {}, sort_keys=True)
    return "text"  # a text part's is bound only to the model (the client may rejoin streamed text)


def _mac(key: bytes, model: str, nonce: bytes, part: Mapping[str, Any]) -> bytes:
    message = model.encode() + b"\0" + nonce + b"\0" + _content_of(part).encode()
    return hmac.new(key, message, hashlib.sha256).digest()[:16]


def sign(model: str, part: Mapping[str, Any], key: bytes = SIGNING_KEY) -> str:
    """A thought signature for a part this server streams: opaque bytes bound to the model (and a call's content)."""
    nonce = os.urandom(8)
    return base64.b64encode(_MAGIC + nonce + _mac(key, model, nonce, part)).decode()


def _verifies(key: bytes, model: str, signature: Any, part: Mapping[str, Any]) -> bool:
    if signature in PLACEHOLDERS:
        return True
    text = str(signature)
    try:  # the wire accepts standard and URL-safe base64 alike, as protobuf's JSON mapping does
        raw = base64.b64decode((text + "=" * (-len(text) % 4)).replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(raw) != len(_MAGIC) + 8 + 16 or not raw.startswith(_MAGIC):
        return False
    nonce, mac = raw[len(_MAGIC):len(_MAGIC) + 8], raw[len(_MAGIC) + 8:]
    return hmac.compare_digest(mac, _mac(key, model, nonce, part))


def signed_parts(model: str, parts: list[dict[str, Any]], key: bytes = SIGNING_KEY) -> list[dict[str, Any]]:
    """The last chunk's parts with Gemini's signatures: on the first function call (parallel calls carry only one),
    else on the last part of a reply without calls."""
    calls = [part for part in parts if "functionCall" in part]
    target = calls[0] if calls else (parts[-1] if parts else None)
    return [{**part, "thoughtSignature": sign(model, part, key)} if part is target else part for part in parts]


def _current_turn_start(contents: Sequence[Mapping[str, Any]]) -> int:
    """The index of the user content that opened the current turn (one with text, not only function responses)."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if content.get("role", "user") == "user" and any("text" in p for p in content.get("parts") or []):
            return index
    return 0


# the Gemini API's 400 messages for a thinking level a model does not take (quoted in earendil-works/pi#9455 and
# theJayTea/WritingTools#282 for gemini-3.8-flash and 3.7-flash; in RooCodeInc/Roo-Code#10700 for gemini-2.5-flash)
NO_MINIMAL = "Thinking level MINIMAL is not supported for this model. Please retry with other thinking level."
NO_MEDIUM = "Thinking level MEDIUM is not supported for this model. Please retry with other thinking level."
NO_LEVEL = "Thinking level is not supported for this model."
_TIER = re.compile(r"gemini-(\d+)(?:\.(\d+))?-(pro|flash)(-lite)?", re.I)


def level_refusal(model: str, body: Mapping[str, Any]) -> str | None:
    """The 400 message for a thinkingLevel the model does not take: none before Gemini 3; MINIMAL only on Flash-Lite
    and on Flash before 3.7 (Google's thinking-level table), never on Pro; MEDIUM not on Gemini 3 Pro (3.1 Pro added
    it; the refusal quoted in chatwise-releases#1206)."""
    level = str(thinking_config(body).get("thinkingLevel") or "").upper()
    match = _TIER.search(model)
    if not level or match is None:
        return None
    major, minor, tier, lite = int(match.group(1)), int(match.group(2) or 0), match.group(3).lower(), match.group(4)
    if major < 3:
        return NO_LEVEL
    if level == "MINIMAL" and not (tier == "flash" and (lite or (major, minor) < (3, 7))):
        return NO_MINIMAL
    if level == "MEDIUM" and tier == "pro" and (major, match.group(2)) == (3, None):
        return NO_MEDIUM
    return None


def refusal(model: str, body: Mapping[str, Any], key: bytes = SIGNING_KEY) -> str | None:
    """The 400 message the real API answers a request whose thinking level or signatures it refuses, or None."""
    refused = level_refusal(model, body)
    if refused is not None:
        return refused
    contents = body.get("contents") or []
    for content in contents:
        if content.get("role") != "model":
            continue
        for part in content.get("parts") or []:
            if "thoughtSignature" in part and not _verifies(key, model, part["thoughtSignature"], part):
                return CORRUPTED
    if not enforces_signatures(model):
        return None
    start = _current_turn_start(contents)
    for index in range(start, len(contents)):
        content = contents[index]
        calls = [p for p in content.get("parts") or [] if "functionCall" in p]
        if content.get("role") == "model" and calls and "thoughtSignature" not in calls[0]:
            name = calls[0]["functionCall"].get("name", "")
            return ("Function call is missing a thought_signature in functionCall parts. This is required for tools "
                    "to work correctly, and missing thought_signature may lead to degraded model performance. "
                    f"Additional data, function call `default_api:{name}` , position {index + 1}. Please refer to "
                    f"{DOCS} for more details.")
    return None
