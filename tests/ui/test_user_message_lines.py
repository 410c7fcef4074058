"""User messages are shown as typed: Shift+Enter lines and pasted logs keep their line breaks and spacing."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF

from ui.models.chat_rows import ChatRow, RowKind
from ui.theme import LIGHT
from ui.widgets.row_layout import compute_layout

LOG = "first line\nsecond line\n2024-05-01 12:00:01 ERROR   worker 3 died\n# not a heading\n* not a list"


def _layout(text: str, kind: RowKind = RowKind.USER):
    return compute_layout(ChatRow(kind, "k", text=text, message_id="m"), 1000.0, False, LIGHT, QFont())


def _lines(layout) -> int:
    doc = layout.doc
    block, total = doc.begin(), 0
    while block.isValid():
        total += block.layout().lineCount()
        block = block.next()
    return total


def test_each_typed_line_of_a_user_message_is_its_own_line(qapp) -> None:
    layout = _layout(LOG)
    assert layout.doc.toPlainText() == LOG
    assert _lines(layout) == 5
    line = QFontMetricsF(QFont()).lineSpacing()
    assert layout.doc.size().height() >= 5 * line


def test_a_pasted_log_keeps_its_runs_of_spaces_and_markdown_characters(qapp) -> None:
    text = _layout("a    b\n**not bold** `tick`").doc.toPlainText()
    assert text == "a    b\n**not bold** `tick`"


def test_a_fenced_block_in_a_user_message_is_still_a_code_box(qapp) -> None:
    layout = _layout("look:\nhere\n```python\nx = 1\n```\nthen\nthis")
    assert layout.codes == ["x = 1"]
    assert len(layout.code_rects) == 1
    assert layout.doc.toPlainText().splitlines()[-2:] == ["then", "this"]


def test_assistant_replies_are_still_markdown(qapp) -> None:
    assert _layout("**bold**\n# Title", RowKind.ASSISTANT).doc.toPlainText() == "bold\nTitle"
