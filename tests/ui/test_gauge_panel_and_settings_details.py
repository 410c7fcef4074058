"""Issue 13's details: the gauge opens a context panel, Settings › Models edits only a selected model, and without a
keychain the environment variable is the main route (buttons measured on pixels)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage

from domain.events import ContextBreakdown, ContextStatus
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.theme import LIGHT
from ui.widgets.first_run import start_command

NO_KEYCHAIN = "No system keychain is available (keyring found no usable backend)."


def share_of(image: QImage, color: str) -> float:
    """The share of the image's pixels that are (nearly) `color`."""
    want = QColor(color)
    total = hits = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            total += 1
            hits += abs(c.red() - want.red()) + abs(c.green() - want.green()) + abs(c.blue() - want.blue()) < 24
    return hits / max(1, total)


def test_clicking_the_gauge_opens_a_panel_with_the_breakdown_threshold_and_warnings(
        qtbot, backend, worker, artifacts) -> None:
    backend.context = ContextStatus(
        150_400, 200_000, ContextBreakdown(900, 3_000, 140_000, 6_000, 500), window_source="user",
        threshold=170_000, warnings=("The context window of gpt-x is a guess (8,192 tokens); set the real one in "
                                     "Settings › Models or with `palimpsest models add`.",))
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    gauge = window.header.gauge
    assert gauge.panel is None or not gauge.panel.isVisible()
    qtbot.mouseClick(gauge, Qt.MouseButton.LeftButton, pos=QPoint(gauge.width() // 2, gauge.height() // 2))
    panel = gauge.panel
    assert panel is not None
    qtbot.waitUntil(panel.isVisible)
    shown = "\n".join(panel.texts())
    for part in ("System prompt", "900", "Summary", "3,000", "Messages", "140,000", "Tool results", "6,000",
                 "Tool definitions", "500", "150,400 of 200,000 tokens  (75.2%)", "Compacts at",
                 "170,000 tokens (85% of the window)", "set by you", "is a guess", "Cost: $0.2100"):
        assert part in shown, part
    assert "palimpsest models add" not in shown and "Settings › Models." in shown
    below = panel.mapToGlobal(QPoint(0, 0)).y() - gauge.mapToGlobal(QPoint(0, gauge.height())).y()
    assert 0 <= below <= 12  # opens just under the gauge
    panel.grab().save(str(artifacts / "context_panel.png"))
    qtbot.keyClick(panel, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not panel.isVisible())


def test_settings_models_shows_no_window_and_disables_editing_until_a_model_is_selected(
        qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None and not window.settings_vm.state.busy)
    dialog.tabs.setCurrentWidget(dialog.models)
    page = dialog.models
    assert page.window_box.text() == "" and not page.window_box.isEnabled() and not page.set_window.isEnabled()
    assert "Select a model" in page.set_window.toolTip()
    page.table.selectRow(0)
    assert page.window_box.isEnabled() and page.set_window.isEnabled()
    assert page.window_box.text() == "200,000"
    page.window_box.setValue(180_000)
    page.set_window.click()
    qtbot.waitUntil(lambda: any(m.context_window_size == 180_000 for m in backend.models))
    qtbot.waitUntil(lambda: not window.settings_vm.state.busy)
    page.table.clearSelection()
    assert page.window_box.text() == "" and not page.window_box.isEnabled()


def test_without_a_keychain_the_environment_variable_is_the_main_first_run_action(qtbot, worker, artifacts) -> None:
    window = themed_window(qtbot, FakeChatBackend(keychain_problem=NO_KEYCHAIN), worker)
    panel = window.first_run
    assert window.pages.currentWidget() is panel
    settle(qtbot, worker)
    key, env = panel.key_button, panel.env_button
    assert env.isVisibleTo(window) and not key.isEnabled() and key.toolTip() == NO_KEYCHAIN
    assert panel._cards.indexOf(panel.env_card) == 0  # listed first
    assert share_of(env.grab().toImage(), LIGHT.accent) > 0.4  # the filled primary button
    assert share_of(key.grab().toImage(), LIGHT.accent) < 0.05  # no longer primary
    window.grab().save(str(artifacts / "first_run_no_keychain.png"))
    env.click()
    assert QGuiApplication.clipboard().text() == start_command()


def test_with_a_keychain_adding_a_key_stays_the_main_first_run_action(qtbot, worker) -> None:
    window = themed_window(qtbot, FakeChatBackend(), worker)
    panel = window.first_run
    settle(qtbot, worker)
    assert panel.key_button.isEnabled() and not panel.env_button.isVisibleTo(window)
    assert panel._cards.indexOf(panel.keychain_card) == 0
    assert share_of(panel.key_button.grab().toImage(), LIGHT.accent) > 0.4


def test_without_a_keychain_save_to_keychain_is_disabled_with_the_reason(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keychain_problem=NO_KEYCHAIN)
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None and not window.settings_vm.state.busy)
    dialog = window.settings_dialog
    assert dialog is not None
    card = dialog.providers._cards["anthropic"]
    assert not card.save_key.isEnabled() and card.save_key.toolTip() == NO_KEYCHAIN
    assert not card.key.isEnabled() and "ANTHROPIC_API_KEY" in card.key.placeholderText()
    assert "Start Palimpsest with ANTHROPIC_API_KEY set" in card.key_label.text()
    settle(qtbot, worker)
    dialog.grab().save(str(artifacts / "settings_no_keychain.png"))
    backend.keychain_problem_text = None
    window.settings_vm.load()
    qtbot.waitUntil(lambda: window.settings_vm.state.keychain_problem is None and not window.settings_vm.state.busy)
    assert card.save_key.isEnabled() and card.key.isEnabled()
