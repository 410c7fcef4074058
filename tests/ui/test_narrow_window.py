"""The window works at 720 px wide: the sidebar becomes a drawer behind a toggle, the header's pickers shrink."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.widgets.sidebar import WIDTH


def _in_window(window, widget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def _controls(window) -> list:
    h = window.header
    return [h.sidebar_button, h.title, h.agent, h.model, h.reasoning, h.gauge, h.menu_button, window.composer.edit,
            window.composer.button]


@pytest.mark.parametrize("width", [720, 800])
def test_at_a_narrow_width_every_header_control_and_the_composer_fit_inside_the_window(qtbot, backend, worker,
                                                                                       width: int) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    assert window.minimumSizeHint().width() <= 720
    window.resize(width, 600)
    qtbot.waitUntil(lambda: window.width() == width)
    settle(qtbot, worker)
    assert window.is_narrow() and not window.sidebar.isVisible()
    rects = [_in_window(window, w) for w in _controls(window)]
    for widget, rect in zip(_controls(window), rects, strict=True):
        assert widget.isVisible()
        assert window.rect().contains(rect), (widget, rect)
        assert rect.width() >= widget.minimumSizeHint().width(), widget
    header = rects[:7]
    for i, a in enumerate(header):
        for b in header[i + 1:]:
            assert not a.intersects(b), (a, b)
    assert window.header.model.width() >= 150 and window.header.agent.width() >= 90


def test_the_sidebar_toggle_opens_a_drawer_that_closes_when_a_conversation_is_chosen(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    window.resize(720, 600)
    qtbot.waitUntil(lambda: window.width() == 720)
    window.header.sidebar_button.click()
    assert window.sidebar.isVisible()
    drawer = _in_window(window, window.sidebar)
    assert window.rect().contains(drawer) and drawer.width() == WIDTH
    assert drawer.top() >= _in_window(window, window.header).bottom()  # the toggle stays reachable
    open_session(qtbot, window, sid)
    assert not window.sidebar.isVisible()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    qtbot.waitUntil(lambda: window.sidebar.isVisible())
    assert not window.is_narrow() and window.sidebar.width() == WIDTH


def test_in_a_wide_window_the_toggle_hides_and_shows_the_sidebar_in_place(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    assert window.sidebar.isVisible()
    chat_left = window.chat_stack.mapTo(window, window.chat_stack.rect().topLeft()).x()
    window.header.sidebar_button.click()
    qtbot.waitUntil(lambda: window.chat_stack.mapTo(window, window.chat_stack.rect().topLeft()).x() < chat_left)
    assert not window.sidebar.isVisible()
    window.toggle_sidebar()
    qtbot.waitUntil(lambda: window.sidebar.isVisible() and window.sidebar.width() == WIDTH)


def test_at_720_px_screenshot(qtbot, backend, worker, artifacts) -> None:
    from tests.ui.test_screenshots import distinct_colors

    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.resize(720, 600)
    qtbot.waitUntil(lambda: window.width() == 720)
    settle(qtbot, worker)
    assert window.header.reasoning.isVisible()
    image = window.grab().toImage()
    assert image.width() == 720 and image.save(str(artifacts / "narrow_720.png"))
    assert distinct_colors(image) > 5
