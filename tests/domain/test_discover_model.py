"""A model only guesses describe is looked up in its provider's model list on first use (once), and its real window
and capabilities apply from its first request; a model the registry or the user describes is never looked up."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import NetworkError
from domain.events import ContextStatusChanged, ResponseComplete
from domain.models import AiModel, CapabilitySource, ModelCapabilities, ThinkingForm, WindowSource
from domain.usecases.discover_model import undescribed
from tests.fakes_turn import make_world, reply

LISTED = AiModel("claude-next", "Claude Next", "anthropic", context_window_size=500_000, max_output_tokens=64_000,
                 capabilities=ModelCapabilities(ThinkingForm.ADAPTIVE, efforts=("low", "high"),
                                                sources=(("thinking", CapabilitySource.PROVIDER_API),)))


def test_only_a_model_described_by_guesses_is_undescribed() -> None:
    guess = AiModel("x", None, "p", context_window_size=128_000, window_is_guess=True)
    assert undescribed(guess)
    family = replace(guess, window_is_guess=False, capabilities=ModelCapabilities(
        ThinkingForm.BUDGET, sources=(("thinking", CapabilitySource.FAMILY),)))
    assert undescribed(family)
    assert not undescribed(replace(family, window_source=WindowSource.USER))
    assert not undescribed(replace(family, capabilities=ModelCapabilities(
        ThinkingForm.BUDGET, sources=(("thinking", CapabilitySource.REGISTRY),))))


async def test_first_use_of_an_unknown_model_learns_its_window_and_capabilities_once() -> None:
    world = make_world()
    adapter = world.adapter()
    adapter.models = [LISTED, AiModel("claude-other", None, "anthropic", context_window_size=9)]
    discover = world.send._discover
    adapter.scripts.extend([reply("Hello."), reply("Again.")])
    events = await world.turn("hi", model_id="claude-next")
    status = [e.status for e in events if isinstance(e, ContextStatusChanged)][-1]
    assert status.window == 500_000 and status.window_source == "provider_api"
    stored = world.models.get("anthropic", "claude-next")
    assert stored is not None and stored.capabilities is not None
    assert stored.capabilities.thinking is ThinkingForm.ADAPTIVE
    assert world.models.get("anthropic", "claude-other") is None  # only the model in use is stored
    assert adapter.list_calls == 1
    await world.turn("more", model_id="claude-next")
    assert adapter.list_calls == 1 and await discover(world.providers.get("anthropic"), LISTED) is None


async def test_a_provider_that_cannot_list_leaves_the_guesses_and_the_turn_goes_on() -> None:
    world = make_world()
    adapter = world.adapter()
    adapter.list_error = NetworkError("offline")
    adapter.scripts.append(reply("Still here."))
    events = await world.turn("hi", model_id="claude-unlisted")
    assert any(isinstance(e, ResponseComplete) for e in events)
    assert adapter.list_calls == 1
