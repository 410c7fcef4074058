"""A model's capabilities as the JSON stored on its row, both ways, and how stored and incoming values merge."""

from __future__ import annotations

import json
from typing import Any

from data.registry.capabilities import FIELDS, filled
from domain.models import CapabilitySource, ModelCapabilities, ThinkingForm


def capabilities_to_json(caps: ModelCapabilities | None) -> str | None:
    """The stored JSON (None: not known)."""
    if caps is None:
        return None
    value: dict[str, Any] = {name: getattr(caps, name) for name in FIELDS}
    value["thinking"] = caps.thinking.value
    value["efforts"] = list(caps.efforts)
    value["sources"] = {name: source.value for name, source in caps.sources}
    return json.dumps(value, separators=(",", ":"))


def capabilities_from_json(text: str | None) -> ModelCapabilities | None:
    """The stored capabilities; None when there are none or they cannot be read (a value a newer Palimpsest
    wrote is dropped with its source, so the registry fills it again)."""
    if not text:
        return None
    try:
        raw = json.loads(text)
        sources = raw.get("sources") or {}
        known = {name: CapabilitySource(source) for name, source in sources.items()
                 if source in CapabilitySource._value2member_map_}
        thinking = raw.get("thinking")
        if thinking not in ThinkingForm._value2member_map_:
            thinking, known = ThinkingForm.NONE.value, {k: v for k, v in known.items() if k != "thinking"}
        return ModelCapabilities(
            thinking=ThinkingForm(thinking),
            efforts=tuple(str(e) for e in raw.get("efforts") or ()),
            default_effort=raw.get("default_effort"),
            hides_thinking=bool(raw.get("hides_thinking")),
            thinks_by_default=bool(raw.get("thinks_by_default")),
            vision=_flag(raw.get("vision")),
            pdf_input=_flag(raw.get("pdf_input")),
            audio_input=_flag(raw.get("audio_input")),
            tool_use=_flag(raw.get("tool_use")),
            web_search=_flag(raw.get("web_search")),
            web_fetch=_flag(raw.get("web_fetch")),
            sources=tuple(known.items()),
        )
    except (ValueError, TypeError, AttributeError):
        return None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def merged(stored: ModelCapabilities | None, incoming: ModelCapabilities | None) -> ModelCapabilities | None:
    """What a row keeps when new values arrive: the user's own values first, then the incoming ones, then whatever
    else was stored."""
    if stored is None or incoming is None:
        return incoming or stored
    users = _only(stored, CapabilitySource.USER)
    return filled(filled(users, incoming), stored) if users is not None else filled(incoming, stored)


def _only(caps: ModelCapabilities, source: CapabilitySource) -> ModelCapabilities | None:
    sources = tuple((name, s) for name, s in caps.sources if s is source)
    if not sources:
        return None
    return ModelCapabilities(**{name: getattr(caps, name) for name in FIELDS}, sources=sources)


def refreshed(stored: ModelCapabilities | None, registry: ModelCapabilities | None) -> ModelCapabilities | None:
    """A row's capabilities after a start with the shipped registry: what the provider reported and what the user
    set stay; values from the registry (or a family guess) are taken from the registry as it is now."""
    if stored is None or registry is None:
        return stored or registry
    kept = tuple((name, s) for name, s in stored.sources if s in (CapabilitySource.PROVIDER_API, CapabilitySource.USER))
    if not kept:
        return registry
    return filled(ModelCapabilities(**{name: getattr(stored, name) for name in FIELDS}, sources=kept), registry)
