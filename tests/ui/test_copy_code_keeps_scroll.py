"""Copy code in a reply taller than the view copies without scrolling: the button stays under the pointer."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from tests.ui.chat_helpers import click, hotspot, row_of
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.row_sizer import layout_width

TALL = "\n\n".join(f"Paragraph {i}: some explanation that takes a line or two of the reply." for i in range(60))
REPLY = f"{TALL}\n\n```python\nprint('the code in the middle')\n```\n\n{TALL}"


def test_copy_code_in_the_middle_of_a_tall_reply_does_not_scroll_the_view(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Tall", ["Explain at length", REPLY], minutes_ago=1)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view = window.chat_view
    position, row = row_of(view, RowKind.ASSISTANT)
    index = view.model().index(position)
    qtbot.waitUntil(lambda: view.visualRect(index).height() > 1.5 * view.viewport().height())
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() and bar.maximum() > 0)
    layout = view.delegate.layout_for(row, layout_width(view), False, view.font())
    code_top = view.visualRect(index).top() + hotspot(layout, "copy-code:0").top()
    bar.setValue(bar.value() + round(code_top) - view.viewport().height() // 2)  # the code box mid-view, by the user
    rect = view.visualRect(index)
    assert rect.top() < 0 and rect.bottom() > view.viewport().height()  # the reply runs past both ends of the view
    button = hotspot(layout, "copy-code:0").translated(rect.topLeft().toPointF())
    assert view.viewport().rect().contains(button.center().toPoint())
    before = bar.value()
    QGuiApplication.clipboard().clear()
    # Qt scrolls a pressed item into view a double-click interval after the press (to tell a double click apart):
    # nothing may move in that time
    with qtbot.assertNotEmitted(bar.valueChanged, wait=QApplication.doubleClickInterval() + 400):
        click(qtbot, view, button.center())
    assert QGuiApplication.clipboard().text() == "print('the code in the middle')"
    assert window.snackbar.text() == "Code copied."
    assert bar.value() == before
    assert view.visualRect(index).top() == rect.top()  # the button is still under the pointer
