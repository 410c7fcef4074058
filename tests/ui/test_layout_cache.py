"""The chat's row layout cache: keyed by the row's value, the width and the font (a font change lays rows out anew)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QFont

from ui.models.chat_rows import ChatRow, RowKind
from ui.theme import LIGHT
from ui.widgets.row_layout import LayoutCache

TEXT = "A reply long enough to wrap over a few lines at this width. " * 6


def test_a_larger_font_gets_a_new_taller_layout_and_the_old_one_is_kept_for_the_old_font(qtbot) -> None:
    cache = LayoutCache()
    row = ChatRow(RowKind.ASSISTANT, "m1", text=TEXT, message_id="m1")
    small = QFont("Sans", 10)
    large = QFont("Sans", 20)
    first = cache.get(row, 600, False, LIGHT, small)
    bigger = cache.get(row, 600, False, LIGHT, large)
    assert bigger is not first and bigger.height > first.height
    assert cache.get(row, 600, False, LIGHT, QFont("Sans", 10)) is first  # an equal font finds the same layout
    assert cache.peek(row, 600, False, LIGHT, large) is bigger


def test_rows_key_the_cache_by_value_so_an_equal_row_finds_its_layout_and_a_changed_one_does_not(qtbot) -> None:
    cache = LayoutCache()
    font = QFont("Sans", 10)
    row = ChatRow(RowKind.ASSISTANT, "m1", text=TEXT, message_id="m1")
    layout = cache.get(row, 600, False, LIGHT, font)
    same = ChatRow(RowKind.ASSISTANT, "m1", text=TEXT, message_id="m1")
    assert same == row and hash(same) == hash(row)
    assert cache.peek(same, 600, False, LIGHT, font) is layout
    pinned = replace(row, pinned=True)
    assert cache.peek(pinned, 600, False, LIGHT, font) is None
    longer = replace(row, text=TEXT * 2)
    assert cache.get(longer, 600, False, LIGHT, font).height > layout.height
