"""The snackbar's notice and its action stay readable in both themes (WCAG contrast measured on pixels)."""

from __future__ import annotations

import pytest

from tests.ui.fake_backend import FakeChatBackend
from tests.ui.pixels import text_contrast
from tests.ui.window_helpers import themed_window


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_snackbar_text_and_action_have_at_least_4_5_to_1_contrast(qtbot, worker, dark: bool) -> None:
    window = themed_window(qtbot, FakeChatBackend(keys={"anthropic": "sk-test"}), worker, dark=dark)
    bar = window.snackbar
    bar.show_message("Deleted “Lisbon in May”.", action="Undo", on_action=lambda: None)
    qtbot.waitUntil(bar.isVisible)
    image = bar.grab().toImage()
    assert text_contrast(image, bar.label.geometry()) >= 4.5
    assert text_contrast(image, bar.button.geometry()) >= 4.5


def test_a_notice_without_action_shows_its_text(qtbot, worker) -> None:
    window = themed_window(qtbot, FakeChatBackend(keys={"anthropic": "sk-test"}), worker)
    bar = window.snackbar
    bar.show_message("Code copied.", ms=1800)
    image = bar.grab().toImage()
    assert not bar.button.isVisible()
    assert text_contrast(image, bar.label.geometry()) >= 4.5
