"""Capabilities in the registry: per preset, per family for unknown ids, merged under what the provider reports."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from data.registry import load_registry
from data.registry.capabilities import anthropic_capabilities, filled
from domain.errors import StorageError
from domain.models import CapabilitySource, ModelCapabilities, ThinkingForm


@pytest.mark.parametrize(("model_id", "form"), [
    ("claude-opus-5-5", ThinkingForm.ALWAYS_ON), ("claude-fable-5-1", ThinkingForm.ALWAYS_ON),
    ("claude-sonnet-5-5", ThinkingForm.ADAPTIVE), ("claude-opus-4-7", ThinkingForm.ADAPTIVE),
    ("claude-sonnet-4-6", ThinkingForm.ADAPTIVE), ("claude-haiku-4-5-20251001", ThinkingForm.BUDGET),
    ("claude-3-5-haiku-20241022", ThinkingForm.NONE), ("gpt-4o", ThinkingForm.NONE),
    ("gemini-2.5-flash", ThinkingForm.BUDGET),
])
def test_each_preset_names_its_thinking_form_from_the_registry(model_id: str, form: ThinkingForm) -> None:
    caps = load_registry().capabilities(model_id)
    assert caps is not None and caps.thinking is form
    assert caps.source("thinking") is CapabilitySource.REGISTRY


def test_every_anthropic_preset_has_capabilities_a_window_and_a_max_output() -> None:
    for model in load_registry().for_provider("anthropic"):
        caps = model.capabilities
        assert caps is not None and caps.vision and caps.pdf_input and caps.tool_use, model.id
        assert model.max_output_tokens and model.context_window > model.max_output_tokens
        assert caps.default_effort is None or caps.default_effort in caps.efforts


def test_the_current_claude_models_are_in_the_file_with_prices() -> None:
    registry = load_registry()
    for model_id in ("claude-fable-5-2", "claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
                     "claude-opus-5", "claude-sonnet-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6"):
        assert registry.price(model_id) is not None, model_id
    price = registry.price("claude-opus-5-5")
    assert price is not None and (price.input, price.output, price.cache_read) == (4.0, 20.0, 0.2)


@pytest.mark.parametrize(("model_id", "form", "window"), [
    ("claude-opus-5-5-20261001", ThinkingForm.ALWAYS_ON, 1_000_000),
    ("claude-mythos-preview", ThinkingForm.ALWAYS_ON, 1_000_000),
    ("claude-opus-4-7-20260416", ThinkingForm.ADAPTIVE, 1_000_000),
    ("claude-haiku-4-5", ThinkingForm.BUDGET, 200_000),
    ("claude-3-opus-20240229", ThinkingForm.NONE, 200_000),
    ("claude-9-unknown", ThinkingForm.ADAPTIVE, 200_000),
])
def test_an_unknown_id_gets_its_familys_capabilities_marked_as_a_guess(
    model_id: str, form: ThinkingForm, window: int
) -> None:
    registry = load_registry()
    caps = registry.capabilities(model_id)
    assert caps is not None and caps.thinking is form and caps.source("thinking") is CapabilitySource.FAMILY
    assert registry.guess_window(model_id) == window


def test_an_id_no_family_knows_has_no_capabilities() -> None:
    assert load_registry().capabilities("qwen2.5:7b") is None


@pytest.mark.parametrize("extra", ['"thinking": "sometimes"', '"efforts": "high"', '"vision": "yes"',
                                   '"efforts": ["low"], "default_effort": "max"'])
def test_malformed_capabilities_are_a_clear_storage_error(tmp_path: Path, extra: str) -> None:
    path = tmp_path / "models.json"
    path.write_text('{"models": [{"id": "x", "provider": "p", "context_window": 1000, ' + extra + '}], '
                    '"families": [], "unknown_window": 8192}')
    with pytest.raises(StorageError, match="malformed"):
        load_registry(path)


def _info(*, adaptive: bool, disabled: bool, enabled: bool, efforts: tuple[str, ...], images: bool = True) -> object:
    yes, no = SimpleNamespace(supported=True), SimpleNamespace(supported=False)
    types = SimpleNamespace(adaptive=yes if adaptive else no, disabled=yes if disabled else no,
                            enabled=yes if enabled else no, between_tools=no)
    effort = SimpleNamespace(supported=bool(efforts), **{k: yes if k in efforts else no
                                                         for k in ("low", "medium", "high", "xhigh", "max")})
    caps = SimpleNamespace(thinking=SimpleNamespace(supported=adaptive or enabled, types=types), effort=effort,
                           image_input=yes if images else no, pdf_input=yes)
    return SimpleNamespace(id="m", capabilities=caps)


@pytest.mark.parametrize(("info", "form"), [
    (_info(adaptive=True, disabled=False, enabled=False, efforts=("low", "high")), ThinkingForm.ALWAYS_ON),
    (_info(adaptive=True, disabled=True, enabled=True, efforts=("low", "high")), ThinkingForm.ADAPTIVE),
    (_info(adaptive=False, disabled=True, enabled=True, efforts=()), ThinkingForm.BUDGET),
    (_info(adaptive=False, disabled=True, enabled=False, efforts=()), ThinkingForm.NONE),
])
def test_the_thinking_form_is_read_from_the_models_api_types(info: object, form: ThinkingForm) -> None:
    caps = anthropic_capabilities(info)
    assert caps is not None and caps.thinking is form and caps.source("thinking") is CapabilitySource.PROVIDER_API


def test_what_the_api_reports_wins_and_the_registry_fills_the_rest() -> None:
    reported = anthropic_capabilities(_info(adaptive=True, disabled=True, enabled=False,
                                            efforts=("low", "medium", "high", "xhigh"), images=False))
    merged = filled(reported, load_registry().capabilities("claude-opus-4-7"))
    assert merged is not None
    assert merged.efforts == ("low", "medium", "high", "xhigh") and merged.vision is False
    assert merged.source("vision") is CapabilitySource.PROVIDER_API
    assert merged.hides_thinking is True and merged.source("hides_thinking") is CapabilitySource.REGISTRY
    assert merged.tool_use is True and merged.source("tool_use") is CapabilitySource.REGISTRY


def test_an_api_without_capabilities_reports_none() -> None:
    assert anthropic_capabilities(SimpleNamespace(id="m", capabilities=None)) is None
    assert filled(None, ModelCapabilities()) == ModelCapabilities()


@pytest.mark.parametrize(("model_id", "takes_audio"), [
    ("gemini-2.5-flash", True), ("gemini-3-pro-preview", True), ("gemini-2.7-flash-new", True),
    ("gpt-4o-audio-preview", True), ("gpt-audio-mini", True), ("gpt-4o", None), ("claude-sonnet-4-6", None),
])
def test_audio_input_is_a_registry_capability(model_id: str, takes_audio: bool | None) -> None:
    caps = load_registry().capabilities(model_id)
    assert caps is not None and caps.audio_input is takes_audio
    if takes_audio:
        assert caps.source("audio_input") in (CapabilitySource.REGISTRY, CapabilitySource.FAMILY)


def test_audio_input_survives_the_stored_json() -> None:
    from data.db.capabilities_json import capabilities_from_json, capabilities_to_json

    caps = load_registry().capabilities("gemini-2.5-flash")
    back = capabilities_from_json(capabilities_to_json(caps))
    assert back is not None and back.audio_input is True and back.source("audio_input") is CapabilitySource.REGISTRY
