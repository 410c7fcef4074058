"""Copying from a reply: Markdown keeps each paragraph on one line; a table copies as tab-separated rows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from tests.ui.chat_helpers import layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.doc_painter import TextRange

LONG = ("This paragraph is long enough that Qt's Markdown writer would break it at eighty columns, which turns one "
        "sentence into several lines when pasted into an editor or an issue tracker that keeps line breaks.")
ITEM = "- a list item that is also quite long, long enough to pass the eighty column mark of the writer"
REPLY = f"{LONG}\n\n{ITEM}\n\n" \
        "| Region | p50 | p99 |\n|---|---|---|\n| eu-west | 12 ms | 80 ms |\n| us-east | 15 ms | 95 ms |\n\nAfter."


def _view(qtbot, worker):
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Copy", ["Show me", REPLY], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view
    position, row = row_of(view, RowKind.ASSISTANT)
    layout, _ = layout_of(view, position)
    return view, row, layout.doc


def _select(view, key: str, doc, first: str, last: str) -> None:
    view.selector.set_selection(TextRange(key, doc.find(first).selectionStart(), doc.find(last).selectionEnd()))


def test_copy_as_markdown_does_not_hard_wrap_a_selection(qtbot, worker) -> None:
    view, row, doc = _view(qtbot, worker)
    _select(view, row.key, doc, "paragraph is", "the writer")
    copied = view.selector.text(markdown=True)
    lines = copied.split("\n")
    assert lines[0] == LONG[5:]  # the whole paragraph on one line
    assert ITEM in lines
    assert max(len(line) for line in lines) > 80


def test_ctrl_c_on_a_table_copies_tab_separated_cells_one_row_per_line(qtbot, worker) -> None:
    view, row, doc = _view(qtbot, worker)
    _select(view, row.key, doc, "Region", "95 ms")
    QGuiApplication.clipboard().clear()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "Region\tp50\tp99\neu-west\t12 ms\t80 ms\nus-east\t15 ms\t95 ms"


def test_a_selection_from_prose_into_a_table_keeps_the_prose_lines(qtbot, worker) -> None:
    view, row, doc = _view(qtbot, worker)
    _select(view, row.key, doc, "the writer", "p99")
    assert view.selector.text() == "the writer\nRegion\tp50\tp99"

