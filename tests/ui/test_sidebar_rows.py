"""Sidebar rows: a fork's "(fork)" is a badge that eliding never cuts; a search snippet highlights its match."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage

from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import themed_window
from ui.theme import LIGHT
from ui.widgets.session_delegate import fork_depth, match_runs

LONG = "Quarterly revenue report outline for the finance team and the board"


def _row_image(window, row: int) -> QImage:
    view = window.sidebar.list
    rect = view.visualRect(window.sidebar.model.index(row))
    return view.viewport().grab(rect).toImage()


def _near(color: QColor, target: QColor, slack: int = 40) -> bool:
    return all(abs(a - b) <= slack for a, b in ((color.red(), target.red()), (color.green(), target.green()),
                                                (color.blue(), target.blue())))


def _accent_pixels(image: QImage, top: int = 0, bottom: int | None = None) -> int:
    accent = QColor(LIGHT.accent)
    bottom = image.height() if bottom is None else bottom
    return sum(1 for y in range(top, bottom) for x in range(image.width())
               if _near(image.pixelColor(x, y), accent))


def _title_row(window, title: str) -> int:
    model = window.sidebar.model
    return next(i for i in range(model.rowCount()) if model.index(i).data() == title)


def test_fork_suffixes_are_counted_off_the_title() -> None:
    assert fork_depth("Plan (fork)") == ("Plan", 1)
    assert fork_depth("Plan (fork) (fork)") == ("Plan", 2)
    assert fork_depth("Plan") == ("Plan", 0)
    assert fork_depth(" (fork)") == (" (fork)", 0)


def test_a_fork_with_a_long_title_shows_a_badge_its_original_does_not(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    backend.add_session(LONG, ["q", "a"], minutes_ago=5)
    backend.add_session(f"{LONG} (fork)", ["q", "a"], minutes_ago=5)
    window = themed_window(qtbot, backend, worker)
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 2)
    original = _row_image(window, _title_row(window, LONG))
    fork = _row_image(window, _title_row(window, f"{LONG} (fork)"))
    half = original.height() // 2  # the title line
    assert original != fork  # the two rows no longer look the same
    assert _accent_pixels(fork, 0, half) > 8  # the badge, in the accent color
    assert _accent_pixels(original, 0, half) == 0


def test_a_search_hit_highlights_its_match_and_shows_no_marks(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    backend.add_session("Trip", ["Plan four days in Lisbon [with kids]", "Day 1: Alfama"], minutes_ago=5)
    window = themed_window(qtbot, backend, worker)
    window.sessions_vm.search("lisbon")
    qtbot.waitUntil(lambda: window.sessions_vm.state.hits is not None and len(window.sessions_vm.state.hits) == 1)
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 1)
    image = _row_image(window, 0)
    half = image.height() // 2
    assert _accent_pixels(image, half) > 20  # "Lisbon" drawn in the accent color on the snippet line
    tip = window.sidebar.model.index(0).data(3)  # ToolTipRole: the snippet without its marks
    assert tip == "Plan four days in Lisbon [with kids]"


def test_a_snippet_is_cut_into_matched_and_plain_runs() -> None:
    assert match_runs("a \x02b\x03 c \x02d\x03") == [("a ", False), ("b", True), (" c ", False), ("d", True)]
    assert match_runs("literal [brackets] stay") == [("literal [brackets] stay", False)]
