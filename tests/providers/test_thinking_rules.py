"""The one table of reasoning rules (data/providers/thinking_rules.py): the thinking room each family's adapter
really adds above the reply, and which provider's API takes every turn's reasoning back."""

from __future__ import annotations

from data.providers.anthropic_thinking import thinking_request
from data.providers.gemini_reasoning import gemini_thinking
from data.providers.thinking_rules import ANTHROPIC_ROOM, ProviderThinkingRules
from domain.models import AiModel, ModelCapabilities, Provider, ProviderApi, ProviderType, ThinkingForm

RULES = ProviderThinkingRules(env={})
ANTHROPIC = Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC)
GEMINI = Provider("gemini", "Gemini", ProviderType.GEMINI)
OPENAI = Provider("openai", "OpenAI", ProviderType.OPENAI)


def _model(model_id: str, provider: str, caps: ModelCapabilities | None) -> AiModel:
    return AiModel(model_id, None, provider, context_window_size=200_000, max_output_tokens=64_000, capabilities=caps)


def test_anthropic_room_is_what_the_adapter_adds_above_the_reply() -> None:
    budget = _model("claude-haiku-4-5", "anthropic", ModelCapabilities(ThinkingForm.BUDGET))
    for level in ("low", "medium", "high", "max"):
        room = RULES.thinking_room(ANTHROPIC, budget, level)
        request = thinking_request(budget.capabilities, level, 4_000, model_max_output=64_000)
        assert room == ANTHROPIC_ROOM[level] == request.max_tokens - 4_000
    assert RULES.thinking_room(ANTHROPIC, budget, "off") == 0 == RULES.thinking_room(ANTHROPIC, budget, "auto")
    always = _model("claude-x", "anthropic", ModelCapabilities(ThinkingForm.ALWAYS_ON))
    assert RULES.thinking_room(ANTHROPIC, always, "off") == ANTHROPIC_ROOM["low"]  # it cannot stop: its lowest
    eager = _model("claude-y", "anthropic", ModelCapabilities(ThinkingForm.ADAPTIVE, thinks_by_default=True))
    assert RULES.thinking_room(ANTHROPIC, eager, "auto") == ANTHROPIC_ROOM["auto"]
    assert RULES.thinking_room(ANTHROPIC, _model("claude-z", "anthropic", ModelCapabilities()), "max") == 0


def test_gemini_room_is_the_2_5_budget_the_adapter_adds_and_none_for_gemini_3() -> None:
    for model_id in ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"):
        model = _model(model_id, "gemini", ModelCapabilities(ThinkingForm.BUDGET))
        for level in ("off", "low", "medium", "high", "max"):
            added = gemini_thinking(model_id, level, 4_000, model.capabilities).max_output_tokens - 4_000
            assert RULES.thinking_room(GEMINI, model, level) == added, (model_id, level)
    pro3 = _model("gemini-3-pro-preview", "gemini", ModelCapabilities(ThinkingForm.ALWAYS_ON))
    assert RULES.thinking_room(GEMINI, pro3, "high") == 0
    assert gemini_thinking(pro3.id, "high", 4_000).max_output_tokens == 4_000


def test_openai_reasoning_happens_inside_max_output_tokens() -> None:
    gpt = _model("gpt-5", "openai", ModelCapabilities(ThinkingForm.ALWAYS_ON, efforts=("low", "medium", "high")))
    assert RULES.thinking_room(OPENAI, gpt, "high") == 0


def test_only_a_provider_speaking_the_responses_api_takes_every_turns_reasoning_back() -> None:
    assert RULES.echoes_every_turn(OPENAI)  # auto on OpenAI's own endpoint: Responses
    assert not RULES.echoes_every_turn(Provider("o", "O", ProviderType.OPENAI, api=ProviderApi.CHAT_COMPLETIONS))
    local = Provider("lm", "LM", ProviderType.OPENAI_COMPATIBLE, base_url="http://localhost:1234/v1")
    assert not RULES.echoes_every_turn(local)
    assert RULES.echoes_every_turn(Provider("x", "xAI", ProviderType.OPENAI_COMPATIBLE, base_url="https://api.x.ai/v1",
                                            api=ProviderApi.RESPONSES))
    assert not RULES.echoes_every_turn(ANTHROPIC) and not RULES.echoes_every_turn(GEMINI)
    assert not RULES.echoes_every_turn(None)
    proxied = ProviderThinkingRules(env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert not proxied.echoes_every_turn(OPENAI)  # auto on another endpoint: Chat Completions, as the factory picks
