"""Copy code buttons belong to code boxes only: a Markdown table beside one gets none and shifts nothing."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QGuiApplication, QTextTable

from tests.ui.chat_helpers import click, layout_of, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.models.chat_rows import ChatRow, RowKind
from ui.theme import LIGHT
from ui.widgets.row_layout import compute_layout

REPLY = """Timings:

| attempt | wait (s) |
|---|---|
| 1 | 0.5 |

```python
print("first")
```

| a | b |
|---|---|
| x | y |

```bash
echo second
```"""


def _tables(layout) -> list:
    doc = layout.doc
    return [f for f in doc.rootFrame().childFrames() if isinstance(f, QTextTable)]


def _code_boxes(layout) -> list[QRectF]:
    """Where the code boxes are drawn with their caption strips (every frame that is not a table), row-local."""
    doc_layout = layout.doc.documentLayout()
    frames = [f for f in layout.doc.rootFrame().childFrames() if not isinstance(f, QTextTable)]
    return [doc_layout.frameBoundingRect(f).translated(layout.doc_pos) for f in frames]


def test_a_table_gets_no_copy_code_button_and_each_code_box_gets_its_own(qapp) -> None:
    layout = compute_layout(ChatRow(RowKind.ASSISTANT, "k", text=REPLY, message_id="m"), 1000.0, False, LIGHT, QFont())
    assert len(_tables(layout)) == 2
    assert layout.codes == ['print("first")', "echo second"]
    assert len(layout.code_rects) == 2
    doc_layout = layout.doc.documentLayout()
    table_rects = [doc_layout.frameBoundingRect(t).translated(layout.doc_pos) for t in _tables(layout)]
    buttons = [rect for rect, action, _ in layout.hotspots if action.startswith("copy-code")]
    assert len(buttons) == 2
    for button in buttons:
        assert not any(button.intersects(table) for table in table_rects)
    for button, code in zip(buttons, layout.code_rects, strict=True):  # in the caption strip just above its box
        assert code.left() <= button.left() and button.right() <= code.right()
        assert 0 <= code.top() - button.bottom() <= 8


def test_clicking_copy_code_below_a_table_copies_that_code_block(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tables", ["Show timings", REPLY], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view
    QGuiApplication.clipboard().clear()
    for i, expected in enumerate(['print("first")', "echo second"]):
        position, _ = row_of(view, RowKind.ASSISTANT)
        layout_of(view, position)
        settle(qtbot, worker)
        layout, rect = layout_of(view, position)
        box = _code_boxes(layout)[i]
        button = next(r for r, action, _ in layout.hotspots if action.startswith("copy-code") and box.contains(r))
        click(qtbot, view, button.center() + rect.topLeft())
        qtbot.waitUntil(lambda expected=expected: QGuiApplication.clipboard().text() == expected)
        assert window.snackbar.text() == "Code copied."
