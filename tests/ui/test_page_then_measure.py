"""A page of messages is shown before its context is measured (the worker's estimate of a long path must not compete
with laying it out and painting it for the GIL), pages shown in quick succession (‹ › clicked repeatedly) are measured
once, and a turn's request leaves one frame after the window shows the turn."""

from __future__ import annotations

import time

from domain.events import ContextStatus
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_chat_viewmodel import make_vm
from ui.backend import Selection, UsageSummary
from ui.viewmodels.chat import ChatViewModel
from ui.viewmodels.chat_context import MEASURE_AFTER_MS


class MeasuringBackend(FakeChatBackend):
    """Records when the context and the usage were asked for."""

    def __init__(self) -> None:
        super().__init__(keys={"anthropic": "sk-test"})
        self.measured: list[tuple[str, float]] = []

    async def context_status(self, session_id: str, selection: Selection) -> ContextStatus:
        self.measured.append(("context", time.perf_counter()))
        return await super().context_status(session_id, selection)

    async def usage_summary(self, session_id: str) -> UsageSummary:
        self.measured.append(("usage", time.perf_counter()))
        return await super().usage_summary(session_id)


def test_the_rows_of_an_opened_page_come_before_its_context_is_measured(qtbot, worker) -> None:
    backend = MeasuringBackend()
    s = backend.add_session("Long", [f"message {i}" for i in range(30)])
    vm = make_vm(backend, worker)
    shown: list[float] = []
    vm.model.rowsInserted.connect(lambda *_: shown.append(time.perf_counter()) if not shown else None)
    vm.open(s.id)
    qtbot.waitUntil(lambda: vm.state.context is not None and vm.state.usage is not None)
    assert [r.text for r in vm.model.rows()][-1] == "message 29" and vm.model.rowCount() == 30
    assert sorted(kind for kind, _t in backend.measured) == ["context", "usage"]
    first_measure = min(t for _k, t in backend.measured)
    assert shown and first_measure - shown[0] >= MEASURE_AFTER_MS / 1000 * 0.9  # timers may fire a little early


def test_pages_shown_in_quick_succession_are_measured_once(qtbot, worker) -> None:
    backend = MeasuringBackend()
    s = backend.add_session("Branched", ["Question", "Answer"])
    vm = make_vm(backend, worker)
    vm.open(s.id)
    qtbot.waitUntil(lambda: vm.state.context is not None and vm.state.usage is not None)
    backend.measured.clear()
    for _ in range(3):  # as after ‹ › clicked three times: each reload shows a page
        vm.reload()
    qtbot.waitUntil(lambda: len(backend.measured) >= 2 and not vm.context.pending
                    and worker.calls_in_flight == 0)  # every page read and shown, no measure left to come
    assert sorted(kind for kind, _t in backend.measured) == ["context", "usage"]
    assert vm.state.context is not None and vm.model.rowCount() == 2


def test_leaving_a_page_before_it_is_measured_does_not_measure_it(qtbot, worker) -> None:
    backend = MeasuringBackend()
    s = backend.add_session("First", ["Hello", "Hi"])
    vm = make_vm(backend, worker)
    vm.open(s.id)
    qtbot.waitUntil(lambda: vm.model.rowCount() == 2)
    vm.clear()  # a new chat, within the delay
    assert not vm.context.pending  # the measure of the page left is called off
    qtbot.waitUntil(lambda: worker.calls_in_flight == 0)
    assert backend.measured == [] and vm.state.session is None and vm.state.context is None


def greeted(qtbot, backend: FakeChatBackend, worker) -> ChatViewModel:
    """A two-message chat opened, its context measured (the page settled before a turn is sent)."""
    s = backend.add_session("Chat", ["Hello", "Hi"])
    vm = make_vm(backend, worker)
    vm.open(s.id)
    qtbot.waitUntil(lambda: vm.state.context is not None)
    return vm


def test_a_turn_reaches_the_backend_one_frame_after_the_window_shows_it(qtbot, worker) -> None:
    from tests.ui.fake_backend import FakeChatBackend as Base
    from ui.viewmodels.chat_turns import TURN_AFTER_FRAME_S

    class Timed(Base):
        def __init__(self) -> None:
            super().__init__(keys={"anthropic": "sk-test"})
            self.sent_at: list[float] = []

        async def send(self, session_id, text, selection, attachments=()):  # type: ignore[no-untyped-def]
            self.sent_at.append(time.perf_counter())
            async for event in super().send(session_id, text, selection, attachments):
                yield event

    backend = Timed()
    vm = greeted(qtbot, backend, worker)
    shown: list[float] = []
    vm.model.rowsInserted.connect(lambda *_: shown.append(time.perf_counter()) if not shown else None)
    assert vm.send("Next question")
    assert "Next question" in [r.text for r in vm.model.rows()]  # shown at once, before the request leaves
    qtbot.waitUntil(lambda: not vm.state.streaming and bool(backend.sent_at))
    assert shown and backend.sent_at[0] - shown[0] >= TURN_AFTER_FRAME_S * 0.9
    assert any(r.text == "Next question" for r in vm.model.rows())  # the turn ran to its end as before


def test_stopping_before_the_request_left_sends_nothing(qtbot, worker) -> None:
    backend = MeasuringBackend()
    vm = greeted(qtbot, backend, worker)
    returned: list[str] = []
    vm.text_returned.connect(returned.append)
    assert vm.send("Never mind")
    vm.stop()  # within the frame before the request
    qtbot.waitUntil(lambda: not vm.state.streaming and returned == ["Never mind"])
    assert not any(c[0] == "send" for c in backend.calls)
    assert [r.text for r in vm.model.rows()] == ["Hello", "Hi"]
