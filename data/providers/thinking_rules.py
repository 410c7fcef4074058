"""The one table of reasoning rules per provider family and level: thinking budgets and the output room the adapters
add above the reply (Anthropic, Gemini 2.5), which Anthropic models think between tool calls when asked, and which
API takes back every turn's reasoning (OpenAI's Responses API). The adapters read it; the domain asks it through
domain.thinking_rules_port.ThinkingRules (ProviderThinkingRules, wired in app/)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from data.providers.factory import BASE_URL_VARIABLES, uses_responses
from domain.models import AiModel, ModelCapabilities, Provider, ProviderType, ThinkingForm

# Anthropic: thinking tokens per level: a budget model's budget_tokens, an adaptive model's room above the reply
ANTHROPIC_ROOM = {"low": 2_048, "medium": 8_192, "high": 16_384, "max": 32_000, "auto": 16_384}
ANTHROPIC_MIN_BUDGET = 1_024  # the API's smallest budget_tokens
# the beta that lets a budget model think after each tool result (adaptive models do it without it); with it,
# budget_tokens is the whole assistant turn's and may pass max_tokens
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
_THINKS_ONCE_PER_TURN = re.compile(r"claude-3", re.I)  # Claude 3.7 Sonnet: no interleaved thinking

# Gemini 2.5: thinking_budget per level (Pro's smallest is 128 and it cannot turn thinking off; Flash and Flash-Lite
# turn off with 0; Flash-Lite's smallest budget is 512), and its output limit (thinking included)
GEMINI_BUDGETS = {"low": 1_024, "medium": 8_192, "high": 16_384}
GEMINI_MAX_BUDGET = {"pro": 32_768, "flash": 24_576}
GEMINI_OFF_BUDGET = {"pro": 128, "flash": 0}
GEMINI_LITE_MIN_BUDGET = 512
GEMINI_2_5_MAX_OUTPUT = 65_536
GEMINI_FAMILY = re.compile(r"(?:^|/)gemini-(\d+)(?:\.(\d+))?-(pro|flash)(-lite)?", re.I)

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"


def anthropic_room(caps: ModelCapabilities | None, level: str) -> int:
    """Thinking tokens the Anthropic adapter asks for above the reply at `level` for a model of these capabilities:
    none for a model that does not think, for off (an always-on model: its lowest effort's) and for auto on a model
    that does not think unasked."""
    if caps is None or caps.thinking is ThinkingForm.NONE:
        return 0
    if level == "off":
        return ANTHROPIC_ROOM["low"] if caps.thinking is ThinkingForm.ALWAYS_ON else 0
    if level == "auto" and not caps.thinks_unasked:
        return 0
    return ANTHROPIC_ROOM.get(level, ANTHROPIC_ROOM["auto"])


def takes_interleaved(model_id: str, caps: ModelCapabilities | None) -> bool:
    """Whether a budget model thinks between tool calls when the request carries the interleaved-thinking beta
    (Claude 4 and later; adaptive models do it unasked, Claude 3.7 Sonnet never)."""
    return caps is not None and caps.thinking is ThinkingForm.BUDGET and not _THINKS_ONCE_PER_TURN.search(model_id)


def gemini_budget(level: str, tier: str, lite: bool) -> int:
    """A Gemini 2.5 model's thinking_budget at `level` (tier: pro / flash)."""
    if level == "off":
        return GEMINI_OFF_BUDGET[tier]
    if level == "max":
        return GEMINI_MAX_BUDGET[tier]
    budget = GEMINI_BUDGETS.get(level, GEMINI_BUDGETS["high"])
    return max(budget, GEMINI_LITE_MIN_BUDGET) if lite else budget


def gemini_room(model_id: str, caps: ModelCapabilities | None, level: str) -> int:
    """Thinking tokens the Gemini adapter adds above the reply's max_output_tokens: a 2.5 model's budget (auto
    leaves the model's default and adds nothing); Gemini 3 and later think at a level inside the reply's limit."""
    match = GEMINI_FAMILY.search(model_id)
    if match is None or level == "auto" or (caps is not None and caps.thinking is ThinkingForm.NONE
                                            and caps.source("thinking") is not None):
        return 0
    if (int(match.group(1)), int(match.group(2) or 0)) != (2, 5):
        return 0
    return gemini_budget(level, match.group(3).lower(), bool(match.group(4)))


class ProviderThinkingRules:
    """Implements domain.thinking_rules_port.ThinkingRules from this module's table; `env`: where a provider's base
    URL variable is read when its row sets none (the process environment by default)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def thinking_room(self, provider: Provider | None, model: AiModel | None, level: str) -> int:
        """Anthropic's room or Gemini 2.5's budget; OpenAI and compatible servers add none (a reasoning model's
        max_output_tokens covers its reasoning)."""
        if provider is None or model is None:
            return 0
        if provider.type is ProviderType.ANTHROPIC:
            return anthropic_room(model.capabilities, level)
        if provider.type is ProviderType.GEMINI:
            return gemini_room(model.id, model.capabilities, level)
        return 0

    def echoes_every_turn(self, provider: Provider | None) -> bool:
        """True for a provider that speaks the Responses API (data.providers.factory.uses_responses): its reasoning
        items go back from every turn, each before the item it produced."""
        if provider is None or provider.type not in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
            return False
        base_url = (provider.base_url or "").strip()
        variable = BASE_URL_VARIABLES.get(provider.type)  # as the factory reads it: the row, then the variable
        if not base_url and variable:
            env = self._env if self._env is not None else os.environ
            base_url = env.get(variable, "").strip()
        if not base_url and provider.type is ProviderType.OPENAI:
            base_url = OPENAI_DEFAULT_BASE_URL
        return bool(base_url) and uses_responses(provider.api, base_url)
