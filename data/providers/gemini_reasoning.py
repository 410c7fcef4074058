"""The reasoning setting in Gemini's shape: thinking_level on Gemini 3, thinking_budget on 2.5, thought summaries."""

from __future__ import annotations

from dataclasses import dataclass

from google.genai import types

from data.providers.thinking_rules import GEMINI_2_5_MAX_OUTPUT as MAX_OUTPUT_2_5
from data.providers.thinking_rules import GEMINI_FAMILY as _FAMILY
from data.providers.thinking_rules import gemini_budget
from domain.models import CapabilitySource, ModelCapabilities, ThinkingForm

LEVELS = ("minimal", "low", "medium", "high")  # Gemini 3 thinking levels, in order


@dataclass(frozen=True)
class GeminiThinking:
    """What a request carries for the reasoning level: the thinking config (None: nothing sent) and the output limit,
    raised by a fixed thinking budget so the answer still fits after the thinking."""

    config: types.ThinkingConfig | None
    max_output_tokens: int


def gemini_thinking(model_id: str, level: str, max_output_tokens: int,
                    capabilities: ModelCapabilities | None = None) -> GeminiThinking:
    """The thinking config for `level` (domain.settings.REASONING_LEVELS) on this model. Gemini 3 and later take a
    thinking_level (the level asked for, else the nearest lower one the model takes; "off" is its lowest, as Pro
    cannot stop thinking), 2.5 a thinking_budget (Pro's smallest is 128, Flash and Flash-Lite turn off with 0);
    "auto" leaves the model's default and only asks for thought summaries. Models of other families, and models
    whose known capabilities say they do not think, get nothing: no field they may refuse. The levels a Gemini 3
    model takes come from its capabilities' efforts when known, else from its family."""
    match = _FAMILY.search(model_id)
    known_not_to_think = (capabilities is not None and capabilities.thinking is ThinkingForm.NONE
                          and capabilities.source("thinking") is not None)
    if match is None or known_not_to_think:
        return GeminiThinking(None, max_output_tokens)
    major, minor, tier, lite = int(match.group(1)), match.group(2), match.group(3).lower(), bool(match.group(4))
    if level == "auto":
        return GeminiThinking(types.ThinkingConfig(include_thoughts=True), max_output_tokens)
    if major >= 3:
        family = _family_levels(major, minor, tier, lite)
        offered = tuple(e for e in LEVELS if capabilities is not None and e in capabilities.efforts)
        if "minimal" in family and offered and "minimal" not in offered and "low" in offered:
            offered = ("minimal", *offered)  # the domain's efforts have no MINIMAL: such a Flash's "off" is MINIMAL
        return GeminiThinking(_level_config(level, offered or family), max_output_tokens)
    if (major, int(minor or 0)) == (2, 5):
        budget = gemini_budget(level, tier, lite)
        raised = min(MAX_OUTPUT_2_5, max_output_tokens + budget) if budget > 0 else max_output_tokens
        return GeminiThinking(types.ThinkingConfig(thinking_budget=budget, include_thoughts=level != "off"), raised)
    return GeminiThinking(None, max_output_tokens)


def _level_config(level: str, offered: tuple[str, ...]) -> types.ThinkingConfig:
    if level == "off":
        chosen = offered[0]
    elif level == "max":
        chosen = offered[-1]
    else:
        rank = LEVELS.index(level) if level in LEVELS else len(LEVELS) - 1
        below = [name for name in offered if LEVELS.index(name) <= rank]
        chosen = below[-1] if below else offered[0]
    return types.ThinkingConfig(thinking_level=types.ThinkingLevel(chosen.upper()), include_thoughts=level != "off")


def listed_capabilities(model_id: str, thinking: bool | None) -> ModelCapabilities | None:
    """What Gemini's model list says of a model's thinking (its `thinking` flag), with the form and levels its family
    takes (2.5: a budget; 3 and later: always on, at a level); None when the list does not say."""
    if thinking is None:
        return None
    if not thinking:
        return ModelCapabilities(ThinkingForm.NONE, sources=(("thinking", CapabilitySource.PROVIDER_API),))
    match = _FAMILY.search(model_id)
    if match is None or int(match.group(1)) < 3:
        return ModelCapabilities(ThinkingForm.BUDGET, sources=(("thinking", CapabilitySource.PROVIDER_API),))
    major, minor, tier, lite = int(match.group(1)), match.group(2), match.group(3).lower(), bool(match.group(4))
    levels = _family_levels(major, minor, tier, lite)
    sources = (("thinking", CapabilitySource.PROVIDER_API), ("efforts", CapabilitySource.FAMILY))
    return ModelCapabilities(ThinkingForm.ALWAYS_ON, efforts=tuple(e for e in levels if e != "minimal"),
                             sources=sources)


def _family_levels(major: int, minor: str | None, tier: str, lite: bool) -> tuple[str, ...]:
    """The thinking levels of a Gemini 3+ family: 3 Pro takes LOW and HIGH, later Pros add MEDIUM; Flash and
    Flash-Lite add MINIMAL, but Flash (not Lite) from 3.7 on refuses it (Google's 3.8 Flash page: "Explicitly setting
    thinking_level to MINIMAL will return an API validation error")."""
    if tier == "flash" and (lite or (major, int(minor or 0)) < (3, 7)):
        return LEVELS
    return ("low", "high") if (major, minor) == (3, None) and tier == "pro" else LEVELS[1:]
