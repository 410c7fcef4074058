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


def test_the_open_model_list_explains_its_marks_below_the_rows(qtbot, worker) -> None:
    from tests.ui.fake_backend import FakeChatBackend
    from tests.ui.window_helpers import demo_sessions, open_session, themed_window

    backend = FakeChatBackend(keys={"anthropic": "sk-test", "openai": "sk-test"})
    backend.models.append(AiModel("o3", "o3", "openai", context_window_size=200_000, capabilities=ModelCapabilities(
        thinking=ThinkingForm.ALWAYS_ON, vision=True, pdf_input=True)))
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    picker = window.header.model
    picker.open_popup()
    popup = picker.popup
    qtbot.waitUntil(popup.isVisible)
    legend = popup.legend
    assert legend.isVisible()
    assert legend.text() == f"{FEATURE_MARKS['reasoning']} reasoning   {FEATURE_MARKS['images']} images   " \
                            f"{FEATURE_MARKS['PDFs']} PDFs"
    rows = popup.list.geometry()
    assert legend.geometry().top() >= rows.bottom() and legend.geometry().bottom() <= popup.rect().bottom()
    assert legend.height() >= legend.fontMetrics().height()  # not squeezed away
    popup.hide()


def test_a_model_its_vendor_retires_says_so_after_the_live_ones_and_a_retired_one_comes_last() -> None:
    from datetime import date

    from domain.models import Retirement

    models = [
        AiModel("claude-old", "Claude Old", "anthropic", context_window_size=200_000,
                retirement=Retirement(date(2026, 6, 15), "claude-new", "Claude New")),
        AiModel("claude-soon", "Claude Soon", "anthropic", context_window_size=200_000,
                retirement=Retirement(date(2026, 11, 30))),
        AiModel("claude-new", "Claude New", "anthropic", context_window_size=1_000_000),
        AiModel("claude-alpha", "Claude Alpha", "anthropic", context_window_size=200_000,
                retirement=Retirement(date(2027, 1, 22))),
        AiModel("claude-zeta", "Claude Zeta", "anthropic", context_window_size=1_000_000),
    ]
    choices = build_choices([PROVIDER], models, today=date(2026, 11, 28))
    # live models by name, then those retiring, then those retired
    assert [c.selection.model_id for c in choices] == [
        "claude-new", "claude-zeta", "claude-alpha", "claude-soon", "claude-old"]
    items = {i.data.model_id: i for i in model_items(choices) if not i.header}  # type: ignore[union-attr]
    assert (items["claude-old"].text, items["claude-old"].detail) == ("Claude Old (retired)", "200K")
    assert items["claude-old"].tooltip.endswith(" · retired 15 Jun 2026 · Anthropic names Claude New instead")
    assert items["claude-soon"].text == "Claude Soon (retiring)"
    assert items["claude-soon"].tooltip.endswith(" · retires 30 Nov 2026")  # no successor named
    assert items["claude-new"].text == "Claude New" and "retire" not in items["claude-new"].tooltip
