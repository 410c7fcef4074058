"""Opening a session whose first page brings the chat's scroll bar in lays each row out once: rows are laid out for
the viewport's width with its scroll bar, so the bar appearing does not lay the whole page out again."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.window_helpers import open_session, themed_window
from ui.widgets import row_layout


def test_a_page_that_brings_the_scroll_bar_in_is_laid_out_once_at_one_width(qtbot, backend, worker,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    s = backend.add_session("Long", [f"message number {i}: " + "a few words to wrap " * 30 for i in range(60)])
    window = themed_window(qtbot, backend, worker)
    laid: list[tuple[str, int]] = []
    compute = row_layout.compute_layout

    def counted(row: Any, width: float, *args: Any, **kwargs: Any) -> row_layout.RowLayout:
        laid.append((row.key, round(width)))
        return compute(row, width, *args, **kwargs)

    monkeypatch.setattr(row_layout, "compute_layout", counted)
    open_session(qtbot, window, s.id)
    view = window.chat_view
    assert view.verticalScrollBar().isVisibleTo(view)  # the page is taller than the view
    assert len(laid) == len({key for key, _ in laid}) == window.chat_vm.model.rowCount()
    assert {width for _, width in laid} == {view.viewport().width()}
