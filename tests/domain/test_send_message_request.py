"""The turn's request planning and target choice: output sizing, budgets, previews, provider/model defaults."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.chat.request import MIN_OUTPUT_TOKENS, RequestPlanner, fit_budget, output_budget
from domain.context.builder import CompactAwareMessageBuilder
from domain.context.target import resolve_target
from domain.errors import InvalidInput, NotFound
from domain.models import Agent, AiModel, Message, MessageType, Provider, ProviderType, ToolStatus
from domain.settings import ContextSettings
from tests.fake_thinking_rules import FakeThinkingRules
from tests.fakes import FakeAgentRepository, FakeModelRepository, FakeProviderRepository, make_session
from tests.fakes_turn import make_world

MODEL = AiModel("m", None, "p", context_window_size=10_000, max_output_tokens=2_000)


def test_output_budget_is_capped_by_the_model_and_the_room_left() -> None:
    settings = ContextSettings(max_output_tokens=4_096)
    assert output_budget(MODEL, settings, 1_000) == 2_000
    assert output_budget(MODEL, settings, 9_000) == 1_000
    assert output_budget(MODEL, settings, 9_990) == MIN_OUTPUT_TOKENS
    assert output_budget(replace(MODEL, context_window_size=None, max_output_tokens=None), settings, 10**6) == 4_096


def test_fit_budget_keeps_a_share_of_the_window_for_the_answer() -> None:
    settings = ContextSettings(max_output_tokens=4_096)
    assert fit_budget(8_000, settings) == 6_000
    assert fit_budget(200_000, settings) == 200_000 - 4_096


def _seeded_planner():  # type: ignore[no-untyped-def]
    world = make_world()
    add = world.messages.add
    add(Message("u1", "s1", MessageType.USER, "old question " * 300))
    add(Message("a1", "s1", MessageType.AI_RESPONSE, "old answer " * 300))
    add(Message("u2", "s1", MessageType.USER, "fetch it"))
    add(Message("c2", "s1", MessageType.TOOL_CALL, tool_call_id="k", tool_name="http_request", tool_input="{}"))
    add(Message("r2", "s1", MessageType.TOOL_RESULT, tool_call_id="k", tool_name="http_request",
                tool_output="page text " * 2_500, tool_status=ToolStatus.SUCCESS))
    add(Message("a2", "s1", MessageType.AI_RESPONSE, "read it"))
    planner = RequestPlanner(CompactAwareMessageBuilder(), world.pruner, world.estimator,
                             thinking=FakeThinkingRules())
    return world, planner


def test_preview_with_a_reserve_keeps_only_what_leaves_that_room_free() -> None:
    world, planner = _seeded_planner()
    ctx = replace(world.context("s1"), system_prompt="sys", tools=(), model=MODEL)
    full = planner.preview(ctx)
    cut = planner.preview(ctx, reserve_tokens=8_000)
    assert len(full.messages) == 6
    assert world.estimator.estimate_request(full.system_prompt, full.messages) > 2_000
    assert world.estimator.estimate_request(cut.system_prompt, cut.messages) <= 2_000
    assert cut.messages[0].content == "fetch it"
    assert world.stored()[0].content.startswith("old question")  # stored messages untouched


def test_plan_reports_raw_and_calibrated_estimates_and_the_output_to_ask_for() -> None:
    world, planner = _seeded_planner()
    world.calibration.put("p/m", 1.5)
    model = replace(MODEL, context_window_size=14_000)
    planned = planner.plan(replace(world.context("s1"), system_prompt="sys", tools=(), model=model))
    assert planned.estimate == pytest.approx(planned.raw_estimate * 1.5, abs=1)
    assert planned.max_output_tokens == min(2_000, 14_000 - planned.estimate)
    assert planned.max_output_tokens < 2_000


PROVIDERS = [
    Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC),
    Provider("openai", "OpenAI", ProviderType.OPENAI),
]
MODELS = [
    AiModel("claude", None, "anthropic", is_default=True),
    AiModel("gpt", None, "openai"),
    AiModel("gpt-default", None, "openai", is_default=True),
]


def target(session=None, agents=(Agent("default", "Default"),), providers=PROVIDERS, **choice):  # type: ignore[no-untyped-def]
    return resolve_target(
        session or make_session(), agents=FakeAgentRepository(list(agents)),
        providers=FakeProviderRepository(providers), models=FakeModelRepository(MODELS), **choice,
    )


def test_without_any_choice_the_first_provider_and_its_default_model_are_used() -> None:
    chosen = target()
    assert (chosen.provider.id, chosen.model.id, chosen.agent.id) == ("anthropic", "claude", "default")


def test_the_agents_preferred_provider_and_model_come_before_defaults() -> None:
    agent = Agent("coder", "Coder", preferred_provider_id="openai", preferred_model_id="gpt")
    chosen = target(agents=[agent])
    assert (chosen.provider.id, chosen.model.id) == ("openai", "gpt")


def test_the_sessions_current_model_comes_before_the_agents_preference() -> None:
    agent = Agent("coder", "Coder", preferred_provider_id="openai", preferred_model_id="gpt")
    session = make_session(current_provider_id="anthropic", current_model_id="claude-custom")
    chosen = target(session, agents=[agent])
    assert (chosen.provider.id, chosen.model.id) == ("anthropic", "claude-custom")


def test_choosing_another_provider_uses_its_default_model_not_the_sessions() -> None:
    session = make_session(current_provider_id="anthropic", current_model_id="claude")
    chosen = target(session, provider_id="openai")
    assert (chosen.provider.id, chosen.model.id) == ("openai", "gpt-default")


def test_no_provider_configured_is_a_clear_error() -> None:
    with pytest.raises(InvalidInput, match="No provider is configured"):
        target(providers=[])


def test_a_provider_without_known_models_asks_for_a_model() -> None:
    extra = Provider("local", "Local", ProviderType.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:1234/v1")
    with pytest.raises(InvalidInput, match="No model is known for Local"):
        target(providers=[*PROVIDERS, extra], provider_id="local")


def test_unknown_agent_is_not_found() -> None:
    with pytest.raises(NotFound):
        target(agent_id="ghost")
