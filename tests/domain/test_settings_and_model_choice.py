"""Settings with agent overrides, and the choice of the model that writes summaries."""

from __future__ import annotations

import pytest

from data.providers.rules import SUMMARY_FAMILIES as FAMILIES
from domain.context.compaction_model import choose_compaction_model
from domain.context.context_loader import effective_settings
from domain.errors import InvalidInput, NotFound
from domain.models import Agent, AiModel
from domain.settings import ContextSettings
from domain.usecases.set_session_reasoning import SetSessionReasoningUseCase
from tests.fakes import FakeClock, FakeSessionRepository, make_session


def model(model_id: str, provider: str = "p") -> AiModel:
    return AiModel(id=model_id, display_name=None, provider_id=provider)


def test_agent_overrides_apply_on_top_of_app_settings() -> None:
    agent = Agent(id="a", name="A", context_overrides={"compact_threshold_ratio": 0.5})
    settings = effective_settings(ContextSettings(soft_trim_chars=9_000), agent)
    assert settings.compact_threshold_ratio == 0.5 and settings.soft_trim_chars == 9_000


def test_an_agent_without_overrides_gets_app_settings() -> None:
    assert effective_settings(ContextSettings(), Agent(id="a", name="A")) == ContextSettings()


def test_an_unknown_override_key_is_a_clear_error() -> None:
    with pytest.raises(InvalidInput, match="nonsense"):
        effective_settings(ContextSettings(), Agent(id="a", name="A", context_overrides={"nonsense": 1}))


@pytest.mark.parametrize(
    ("session_model", "candidates", "expected"),
    [
        ("claude-sonnet-4-5", ["claude-opus-4-1", "claude-haiku-4-5", "claude-3-5-haiku-latest"], "claude-haiku-4-5"),
        ("gpt-4.1", ["gpt-4o-mini", "gpt-4.1-mini", "gpt-4o-mini-tts"], "gpt-4.1-mini"),
        ("o3", ["o3-mini", "o4-mini"], "o3-mini"),
        ("gemini-2.5-pro", ["gemini-2.5-flash", "gemini-2.5-flash-image", "gemini-2.5-flash-lite"], "gemini-2.5-flash"),
        ("claude-haiku-4-5", ["claude-3-5-haiku-latest"], "claude-haiku-4-5"),
        ("claude-sonnet-4-5", ["claude-opus-4-1"], "claude-sonnet-4-5"),
        ("llama3.1:8b", ["phi3:mini", "llama3.1:8b"], "llama3.1:8b"),
        ("gpt-6.1-terra", ["gpt-6-luna", "gpt-4.1-mini", "gpt-5-mini"], "gpt-6-luna"),  # GPT-6's cheap tier is Luna
        ("gpt-6-luna", ["gpt-6.1-terra", "gpt-5-mini"], "gpt-6-luna"),
    ],
)
def test_compaction_uses_a_cheaper_sibling_on_the_same_provider(
    session_model: str, candidates: list[str], expected: str
) -> None:
    chosen = choose_compaction_model(model(session_model), [model(c) for c in candidates], families=FAMILIES)
    assert chosen.id == expected


def test_siblings_on_other_providers_are_never_chosen() -> None:
    chosen = choose_compaction_model(model("claude-sonnet-4-5", "anthropic"), [model("claude-haiku-4-5", "other")],
                                     families=FAMILIES)
    assert chosen.id == "claude-sonnet-4-5"


def test_the_settings_override_wins() -> None:
    chosen = choose_compaction_model(model("gpt-4.1"), [model("gpt-4.1-mini")], override="gpt-4.1-nano",
                                     families=FAMILIES)
    assert chosen.id == "gpt-4.1-nano" and chosen.provider_id == "p"


def test_the_session_level_wins_over_the_agent_and_a_command_flag_wins_over_both() -> None:
    agent = Agent(id="a", name="A", context_overrides={"reasoning": "low", "idle_timeout_s": 30})
    app = ContextSettings(reasoning="off")
    assert effective_settings(app, agent).reasoning == "low"
    session = make_session("s1", reasoning="high")
    assert effective_settings(app, agent, session).reasoning == "high"
    assert effective_settings(app, agent, make_session("s2")).reasoning == "low"  # None: the agent's
    flags = {"reasoning": "max", "idle_timeout_s": 5.0}
    chosen = effective_settings(app, agent, session, flags)
    assert (chosen.reasoning, chosen.idle_timeout_s) == ("max", 5.0)


def test_a_session_reasoning_level_is_stored_validated_and_cleared() -> None:
    sessions, clock = FakeSessionRepository(), FakeClock()
    sessions.create(make_session("s1"))
    set_level = SetSessionReasoningUseCase(sessions, clock)
    assert set_level("s1", "medium").reasoning == "medium"
    assert sessions.get("s1").reasoning == "medium"
    with pytest.raises(InvalidInput, match="one of off, auto, low, medium, high, max"):
        set_level("s1", "extreme")
    assert sessions.get("s1").reasoning == "medium"
    assert set_level("s1", None).reasoning is None
    with pytest.raises(NotFound):
        set_level("nope", "low")
