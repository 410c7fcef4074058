"""ModelCapabilities: the reasoning levels a model's thinking form offers, and where each value came from."""

from __future__ import annotations

from domain.models import REASONING_EFFORTS, CapabilitySource, ModelCapabilities, ThinkingForm
from domain.settings import REASONING_LEVELS


def test_the_effort_levels_are_the_reasoning_settings_after_off_and_auto():
    assert ("off", "auto", *REASONING_EFFORTS) == REASONING_LEVELS


def test_a_model_without_thinking_offers_only_off():
    assert ModelCapabilities(thinking=ThinkingForm.NONE).reasoning_levels() == ("off",)


def test_a_budget_model_offers_every_level():
    assert ModelCapabilities(thinking=ThinkingForm.BUDGET).reasoning_levels() == REASONING_LEVELS


def test_an_adaptive_model_offers_only_the_efforts_it_accepts():
    caps = ModelCapabilities(thinking=ThinkingForm.ADAPTIVE, efforts=("low", "medium", "high", "xhigh"))
    assert caps.reasoning_levels() == ("off", "auto", "low", "medium", "high")


def test_an_always_on_model_cannot_be_turned_off():
    caps = ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON, efforts=("low", "medium", "high", "xhigh", "max"))
    assert caps.reasoning_levels() == ("auto", "low", "medium", "high", "max")


def test_an_always_on_model_that_takes_an_effort_of_none_can_be_turned_off():
    caps = ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON, efforts=("none", "low", "medium", "high", "xhigh", "max"))
    assert caps.reasoning_levels() == ("off", "auto", "low", "medium", "high", "max")
    minimal = ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON, efforts=("minimal", "low", "medium", "high"))
    assert minimal.reasoning_levels() == ("auto", "low", "medium", "high")  # minimal still reasons


def test_each_value_names_its_source():
    caps = ModelCapabilities(
        sources=(("thinking", CapabilitySource.PROVIDER_API), ("tool_use", CapabilitySource.FAMILY)))
    assert caps.source("thinking") is CapabilitySource.PROVIDER_API
    assert caps.source("tool_use") is CapabilitySource.FAMILY
    assert caps.source("vision") is None


def test_a_model_thinks_unasked_when_always_on_or_marked_so() -> None:
    assert ModelCapabilities(thinking=ThinkingForm.ALWAYS_ON).thinks_unasked
    assert ModelCapabilities(thinking=ThinkingForm.ADAPTIVE, thinks_by_default=True).thinks_unasked
    assert not ModelCapabilities(thinking=ThinkingForm.ADAPTIVE).thinks_unasked
    assert not ModelCapabilities(thinking=ThinkingForm.NONE, thinks_by_default=True).thinks_unasked
