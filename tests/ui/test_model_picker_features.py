"""The model picker names what each model takes besides text (reasoning, images, PDFs) when that is known."""

from __future__ import annotations

from domain.models import AiModel, ModelCapabilities, Provider, ProviderType, ThinkingForm
from ui.backend import ProviderInfo
from ui.viewmodels.app import build_choices
from ui.widgets.header import FEATURE_MARKS, model_items

PROVIDER = ProviderInfo(Provider("anthropic", "Anthropic", ProviderType.ANTHROPIC), "keychain")


def test_known_capabilities_show_as_marks_and_are_named_in_the_tooltip() -> None:
    caps = ModelCapabilities(thinking=ThinkingForm.ADAPTIVE, vision=True, pdf_input=True)
    models = [
        AiModel("claude-x", "Claude X", "anthropic", context_window_size=200_000, capabilities=caps),
        AiModel("claude-plain", "Claude Plain", "anthropic", context_window_size=200_000,
                capabilities=ModelCapabilities(vision=False)),
        AiModel("claude-unknown", "Claude Unknown", "anthropic", context_window_size=200_000),
    ]
    choices = build_choices([PROVIDER], models)
    by_id = {c.selection.model_id: c for c in choices}
    assert by_id["claude-x"].features == ("reasoning", "images", "PDFs")
    assert by_id["claude-plain"].features == () and by_id["claude-unknown"].features == ()
    items = {i.data.model_id: i for i in model_items(choices) if not i.header}  # type: ignore[union-attr]
    x = items["claude-x"]
    assert x.detail == f"{FEATURE_MARKS['reasoning']}{FEATURE_MARKS['images']}{FEATURE_MARKS['PDFs']}  200K"
    assert x.tooltip.endswith("takes reasoning, images, PDFs") and "images" in x.keywords
    assert items["claude-unknown"].detail == "200K"
