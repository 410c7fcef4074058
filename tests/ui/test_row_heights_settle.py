"""Opening a page lays out only its newest short rows at once; the others start from an estimate and every row ends
at its exact height, the newest message in view at the bottom."""

from __future__ import annotations

from tests.ui.fake_backend import FakeChatBackend
from tests.ui.window_helpers import settle, themed_window
from ui.models.chat_rows import RowKind
from ui.widgets.row_sizer import EXACT_TAIL, layout_width


def _short_questions_and_answers(count: int) -> list[str]:
    return [f"Question {i}: is row {i} short?" if i % 2 == 0 else f"Yes, row {i} is short." for i in range(count)]


def test_a_page_of_short_rows_settles_to_exact_heights_with_the_newest_in_view(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    texts = _short_questions_and_answers(80)
    s = backend.add_session("Many short rows", texts)
    window = themed_window(qtbot, backend, worker)
    view, vm = window.chat_view, window.chat_vm
    window.sessions_vm.select(s.id)
    qtbot.waitUntil(lambda: vm.model.rowCount() == 80)
    view.doItemsLayout()  # the first layout pass, as before the first paint
    sizer, width = view.delegate.sizer, layout_width(view)
    exact = [sizer.is_exact(r, width, False, view.font()) for r in vm.model.rows()]
    assert all(exact[-EXACT_TAIL:]) and not all(exact[:-EXACT_TAIL])  # the older ones wait for idle slices
    qtbot.waitUntil(lambda: sizer.pending_count() == 0, timeout=5000)
    settle(qtbot, worker)
    assert [r.text for r in vm.model.rows()] == texts  # every row of the page, in order
    width = layout_width(view)
    for i, row in enumerate(vm.model.rows()):
        exact = view.delegate.layout_for(row, width, False, view.font()).height
        assert view.visualRect(vm.model.index(i)).height() == int(-(-exact // 1)), (i, row.text)
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()  # still at the bottom after the heights changed
    last = vm.model.rows()[-1]
    assert last.kind is RowKind.ASSISTANT and last.text == texts[-1]
    bottom = view.visualRect(vm.model.index(79))
    assert view.viewport().rect().intersects(bottom)
