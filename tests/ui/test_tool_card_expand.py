"""Expanding a tool card far up an imported chat gives its row the expanded height: it never draws over the rest."""

from __future__ import annotations

import math

from domain.models import MessageType
from tests.ui.chat_helpers import click, hotspot
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import open_session, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.row_sizer import layout_width

RESULT = '{"incidents": [{"id": "inc_82", "status": "resolved", "name": "Elevated latency"}], "page": 1}\n' * 60


def test_expanding_an_older_tool_card_pushes_the_next_rows_down(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    session = backend.add_session("Imported from ChatGPT", ["Check the status page", "Calling the API."],
                                  minutes_ago=60)
    backend.add_tool_round(session.id, "http_request", '{"url": "https://status.example/api"}', RESULT, 131_072)
    for i in range(12):  # the conversation goes on: the tool card is well above the newest rows
        backend._store(session.id, MessageType.AI_RESPONSE if i % 2 else MessageType.USER,
                       f"Message {i} after the tool call, long enough to wrap once or twice in the chat view. " * 2)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    view, model = window.chat_view, window.chat_vm.model
    position = next(i for i, r in enumerate(model.rows()) if r.kind is RowKind.TOOL)
    assert position < model.rowCount() - 8  # sized by an estimate first, like a long imported chat's older rows
    index = model.index(position)
    view.scrollTo(index)
    row = model.row_at(position)
    width = layout_width(view)
    header = hotspot(view.delegate.layout_for(row, width, False, view.font()), "toggle")
    qtbot.waitUntil(lambda: view.viewport().rect().contains(view.visualRect(index).topLeft()))
    click(qtbot, view, header.center() + view.visualRect(index).topLeft().toPointF())
    assert model.is_expanded(row.key)
    # what a real window may do before the idle refinement runs: lay the rows out (the opened card is estimated,
    # as a row far from the newest is) and paint them (which lays the card out exactly)
    view.doItemsLayout()
    view.viewport().repaint()
    expanded = math.ceil(view.delegate.layout_for(row, width, True, view.font()).height)
    assert expanded > 300  # the result's first 1,500 characters
    # the row takes the expanded height and the next message starts below it (not under the card's drawing)
    qtbot.waitUntil(lambda: view.visualRect(index).height() == expanded
                    and view.visualRect(model.index(position + 1)).top() == view.visualRect(index).bottom() + 1)
    view.doItemsLayout()  # and it stays so once every row is laid out again
    assert view.visualRect(model.index(position + 1)).top() == view.visualRect(index).bottom() + 1
