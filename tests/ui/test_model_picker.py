"""The model picker: shows the current model, groups by provider, shows window sizes, filters as you type."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt

from domain.models import AiModel
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.pixels import text_contrast
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.backend import Selection
from ui.models.picker_items import PickerItem, filtered, window_label


def _window(qtbot, worker, *, dark: bool = False):
    backend = FakeChatBackend(keys={"anthropic": "sk-test", "openai": "sk-test", "gemini": "g"})
    backend.models.append(AiModel("o3", "o3", "openai", context_window_size=200_000))
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker, dark=dark)
    open_session(qtbot, window, sid)
    return window, backend


def test_window_sizes_are_short_and_say_when_they_are_guessed() -> None:
    assert [window_label(n) for n in (200_000, 128_000, 131_072, 1_048_576, 2_000_000, 8_192)] == \
        ["200K", "128K", "128K", "1M", "2M", "8K"]
    assert [window_label(n) for n in (1_050_000, 1_047_576, 1_500_000, 2_500)] == ["1.05M", "1.05M", "1.5M", "2.5K"]
    assert window_label(32_000, guess=True) == "32K?" and window_label(None) == "—"


def test_filtering_keeps_a_provider_header_only_above_its_matching_models() -> None:
    items = [PickerItem("Anthropic", header=True), PickerItem("Claude", 1, keywords="Anthropic claude-x"),
             PickerItem("OpenAI", header=True), PickerItem("GPT-4o", 2, keywords="OpenAI gpt-4o"),
             PickerItem("GPT-4o mini", 3, keywords="OpenAI gpt-4o-mini")]
    assert [i.text for i in filtered(items, "mini")] == ["OpenAI", "GPT-4o mini"]
    assert [i.text for i in filtered(items, "openai")] == ["OpenAI", "GPT-4o", "GPT-4o mini"]
    assert filtered(items, "nothing like it") == []


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_button_names_the_current_model_and_has_a_visible_drop_down_arrow(qtbot, worker, dark: bool) -> None:
    window, _ = _window(qtbot, worker, dark=dark)
    for button in (window.header.model, window.header.agent):
        image = button.grab().toImage()
        arrow = QRect(button.width() - 28, 4, 22, button.height() - 8)
        assert text_contrast(image, arrow) >= 3.0
    assert window.header.model.text().startswith("Claude Sonnet 4.5")
    assert window.header.agent.text() == "General assistant"


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_list_groups_models_under_unselectable_provider_headers_and_the_current_row_is_readable(
        qtbot, worker, dark: bool) -> None:
    window, _ = _window(qtbot, worker, dark=dark)
    picker = window.header.model
    picker.open_popup()
    popup = picker.popup
    qtbot.waitUntil(popup.isVisible)
    model = popup.model
    rows = [model.item(i) for i in range(model.rowCount())]
    headers = [r.text for r in rows if r.header]
    assert headers == ["Anthropic", "Google Gemini", "OpenAI"]
    for i, row in enumerate(rows):
        selectable = bool(model.flags(model.index(i)) & Qt.ItemFlag.ItemIsSelectable)
        assert selectable is not row.header
    details = {r.text: r.detail for r in rows if not r.header}
    assert details == {"Claude Sonnet 4.5": "✦◩▤  200K", "Gemini 2.5 Pro": "1M", "GPT-4o": "◩  128K",
                       "GPT-4o mini": "128K", "o3": "200K"}
    current = model.row_of(Selection("anthropic", "claude-sonnet-4-5-20250929"))
    assert popup.list.currentIndex().row() == current
    settle(qtbot, worker)
    image = popup.list.viewport().grab().toImage()
    assert text_contrast(image, popup.list.visualRect(model.index(current))) >= 4.5
    popup.hide()


def test_typing_on_the_button_opens_the_list_filtered_and_enter_switches_the_model(qtbot, worker) -> None:
    window, backend = _window(qtbot, worker)
    picker = window.header.model
    picker.setFocus()
    qtbot.keyClick(picker, "g")
    popup = picker.popup
    qtbot.waitUntil(popup.isVisible)
    assert popup.search.text() == "g"
    qtbot.keyClicks(popup.search, "pt mini")
    shown = [popup.model.item(i).text for i in range(popup.model.rowCount())]
    assert shown == ["OpenAI", "GPT-4o mini"]
    qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    assert not popup.isVisible()
    qtbot.waitUntil(lambda: window.chat_vm.state.selection == Selection("openai", "gpt-4o-mini"))
    assert window.header.model.text().startswith("GPT-4o mini")
    qtbot.waitUntil(lambda: any(c[0] == "select" and c[2] == Selection("openai", "gpt-4o-mini")
                                for c in backend.calls))


def test_arrow_keys_skip_the_provider_headers(qtbot, worker) -> None:
    window, _ = _window(qtbot, worker)
    picker = window.header.model
    picker.open_popup()
    popup = picker.popup
    qtbot.waitUntil(popup.isVisible)
    seen = []
    for _ in range(6):
        qtbot.keyClick(popup.search, Qt.Key.Key_Down)
        seen.append(popup.model.item(popup.list.currentIndex().row()))
    assert all(item is not None and not item.header for item in seen)
    assert [i.text for i in seen[:4]] == ["Gemini 2.5 Pro", "GPT-4o", "GPT-4o mini", "o3"]
    qtbot.keyClick(popup.search, Qt.Key.Key_Escape)
    assert not popup.isVisible()
