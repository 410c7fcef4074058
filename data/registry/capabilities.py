"""Model capabilities as the registry file writes them, and as Anthropic's model API reports them."""

from __future__ import annotations

from typing import Any

from domain.models import CapabilitySource, ModelCapabilities, ThinkingForm

FIELDS = ("thinking", "efforts", "default_effort", "hides_thinking", "thinks_by_default", "vision", "pdf_input",
          "tool_use", "web_search", "web_fetch", "audio_input")
ANTHROPIC_EFFORTS = ("low", "medium", "high", "xhigh", "max")  # output_config.effort values, in order


def parse_capabilities(entry: dict[str, Any], source: CapabilitySource) -> ModelCapabilities | None:
    """The capability keys of a registry entry (a model or a family), each marked with `source`; None when the
    entry has none. An unknown thinking form or a value of the wrong type is a ValueError."""
    given = [name for name in FIELDS if name in entry]
    if not given:
        return None
    efforts = entry.get("efforts", [])
    if not isinstance(efforts, list) or not all(isinstance(e, str) and e for e in efforts):
        raise ValueError(f"efforts must be a list of names, got {efforts!r}")
    default_effort = entry.get("default_effort")
    if default_effort is not None and default_effort not in efforts:
        raise ValueError(f"default_effort {default_effort!r} is not one of the efforts {efforts!r}")
    return ModelCapabilities(
        thinking=ThinkingForm(entry.get("thinking", ThinkingForm.NONE.value)),
        efforts=tuple(efforts),
        default_effort=default_effort,
        hides_thinking=_flag(entry, "hides_thinking") or False,
        thinks_by_default=_flag(entry, "thinks_by_default") or False,
        vision=_flag(entry, "vision"),
        pdf_input=_flag(entry, "pdf_input"),
        audio_input=_flag(entry, "audio_input"),
        tool_use=_flag(entry, "tool_use"),
        web_search=_flag(entry, "web_search"),
        web_fetch=_flag(entry, "web_fetch"),
        sources=tuple((name, source) for name in given),
    )


def _flag(entry: dict[str, Any], name: str) -> bool | None:
    value = entry.get(name)
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def filled(known: ModelCapabilities | None, fallback: ModelCapabilities | None) -> ModelCapabilities | None:
    """`known` with every field it has no source for taken from `fallback` (with the fallback's source)."""
    if known is None or fallback is None:
        return known or fallback
    values: dict[str, Any] = {}
    sources = list(known.sources)
    for name in FIELDS:
        if known.source(name) is None and fallback.source(name) is not None:
            values[name] = getattr(fallback, name)
            sources.append((name, fallback.source(name)))  # type: ignore[arg-type]
    for name, source in fallback.sources:
        if name not in FIELDS and known.source(name) is None:
            sources.append((name, source))
    return ModelCapabilities(**{**{n: getattr(known, n) for n in FIELDS}, **values, "sources": tuple(sources)})


def anthropic_capabilities(info: Any) -> ModelCapabilities | None:
    """What an anthropic ModelInfo's `capabilities` says (thinking form, efforts, images, PDFs), marked as from the
    provider's API; None when the API did not report capabilities (older API versions, compatible servers)."""
    caps = getattr(info, "capabilities", None)
    if caps is None:
        return None
    thinking = getattr(caps, "thinking", None)
    types = getattr(thinking, "types", None)
    effort = getattr(caps, "effort", None)
    efforts: tuple[str, ...] = ()
    if effort is not None and _supported(effort):
        efforts = tuple(level for level in ANTHROPIC_EFFORTS if _supported(getattr(effort, level, None)))
    sources = [("thinking", CapabilitySource.PROVIDER_API), ("efforts", CapabilitySource.PROVIDER_API)]
    vision, pdf = getattr(caps, "image_input", None), getattr(caps, "pdf_input", None)
    search = getattr(getattr(caps, "server_tools", None), "web_search", None)
    if search is not None:
        sources.append(("web_search", CapabilitySource.PROVIDER_API))
    if vision is not None:
        sources.append(("vision", CapabilitySource.PROVIDER_API))
    if pdf is not None:
        sources.append(("pdf_input", CapabilitySource.PROVIDER_API))
    return ModelCapabilities(
        thinking=_form(thinking, types),
        efforts=efforts,
        vision=_supported(vision) if vision is not None else None,
        pdf_input=_supported(pdf) if pdf is not None else None,
        web_search=_supported(search) if search is not None else None,
        sources=tuple(sources),
    )


def _form(thinking: Any, types: Any) -> ThinkingForm:
    if thinking is None or not _supported(thinking) or types is None:
        return ThinkingForm.NONE
    if _supported(getattr(types, "adaptive", None)):
        # `disabled` is false exactly when a request that turns thinking off gets a 400: the model always thinks
        return ThinkingForm.ADAPTIVE if _supported(getattr(types, "disabled", None)) else ThinkingForm.ALWAYS_ON
    if _supported(getattr(types, "enabled", None)):
        return ThinkingForm.BUDGET
    return ThinkingForm.NONE


def _supported(value: Any) -> bool:
    return bool(getattr(value, "supported", False))
