"""An edit and the queue in the window (issue 26): a message queued while a turn ran is sent as a new message when
the turn ends even if an edit began meanwhile, and an edit sent while the turn is read back is sent as that edit."""

from __future__ import annotations

from PySide6.QtCore import Qt

from domain.errors import InvalidInput
from domain.events import TextDelta
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from tests.ui.window_helpers import open_session, settle, themed_window
from ui.state.chat_state import Idle, ReadingBack, Ready
from ui.viewmodels.chat_queue import QUEUE_FULL
from ui.widgets.main_window import MainWindow
from ui.worker import AsyncWorker

QUESTION = "Plan four days in Lisbon"


def turns(backend: FakeChatBackend) -> list[tuple[str, ...]]:
    """The turns the backend was asked for: ("send", text) or ("edit", message id, text)."""
    return [(c[0], c[2]) if c[0] == "send" else (c[0], c[2], c[3]) for c in backend.calls if c[0] in ("send", "edit")]


def reading_back_window(qtbot, backend: FakeChatBackend, worker: AsyncWorker, *, queue: str | None) -> MainWindow:
    """A window whose turn "First" is being read back (slowly), `queue` typed while its reply streamed."""
    session = backend.add_session("Trip", [QUESTION, "Day 1: Alfama and the castle…"])
    streaming = Gate()
    backend.scripts.append([TextDelta("Working on it"), streaming, TextDelta(".")])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    composer, vm = window.composer, window.chat_vm
    composer.edit.setFocus()
    qtbot.keyClicks(composer.edit, "First")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: vm.state.streaming)
    if queue is not None:
        qtbot.keyClicks(composer.edit, queue)
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
        assert vm.state.queued == queue and composer.edit.toPlainText() == ""
    backend.load_gate = Gate()  # the finished turn's messages are read back once the test opens it
    streaming.open()
    qtbot.waitUntil(lambda: isinstance(vm.state, Ready) and isinstance(vm.state.turn, ReadingBack), timeout=3000)
    qtbot.keyClick(composer.edit, Qt.Key.Key_Up)  # edit the newest stored question, during the read-back
    assert vm.state.editing is not None and composer.edit.toPlainText() == QUESTION
    return window


def test_an_edit_begun_during_the_read_back_does_not_take_the_queued_message(qtbot, backend, worker) -> None:
    window = reading_back_window(qtbot, backend, worker, queue="And a museum?")
    vm, target = window.chat_vm, window.chat_vm.state.editing
    read_back(backend)  # the turn's messages arrive, with the edit open: the queued message goes as a new one
    qtbot.waitUntil(lambda: len(turns(backend)) == 2, timeout=5000)
    assert turns(backend) == [("send", "First"), ("send", "And a museum?")]  # a new message, not a new version
    qtbot.waitUntil(lambda: isinstance(vm.state, Ready) and isinstance(vm.state.turn, Idle) and vm.state.queued is None,
                    timeout=5000)
    settle(qtbot, worker)
    assert vm.state.editing == target and window.composer.edit_bar.isVisible()  # the edit is still open
    assert window.composer.edit.toPlainText() == QUESTION  # with its own text
    assert [r.text for r in vm.model.rows()][-2:] == ["And a museum?", "You said: And a museum?"]


def test_an_edit_sent_during_the_read_back_is_sent_as_that_edit_when_the_turn_ends(qtbot, backend, worker) -> None:
    window = reading_back_window(qtbot, backend, worker, queue=None)
    vm, target, composer = window.chat_vm, window.chat_vm.state.editing, window.composer
    composer.edit.clear()
    qtbot.keyClicks(composer.edit, "Plan five days in Lisbon")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert vm.state.queued == "Plan five days in Lisbon" and not composer.edit_bar.isVisible()
    assert composer.queued_label.text().startswith("Queued edit — sent when the reply ends")
    read_back(backend)
    qtbot.waitUntil(lambda: len(turns(backend)) == 2, timeout=5000)
    assert turns(backend) == [("send", "First"), ("edit", target, "Plan five days in Lisbon")]
    qtbot.waitUntil(lambda: isinstance(vm.state, Ready) and isinstance(vm.state.turn, Idle) and vm.state.queued is None,
                    timeout=5000)
    assert [r.text for r in vm.model.rows()] == ["Plan five days in Lisbon", "You said: Plan five days in Lisbon"]


def read_back(backend: FakeChatBackend) -> None:
    """Lets the read-back that `reading_back_window` held go on."""
    assert backend.load_gate is not None
    backend.load_gate.open()


class RefusingEdits(FakeChatBackend):
    """Refuses every edit before storing anything (the store could not write it)."""

    async def edit(self, session_id: str, message_id: str, text: str, selection):  # type: ignore[override]
        self.calls.append(("edit", session_id, message_id, text))
        raise InvalidInput("The message could not be stored.")
        yield  # an async generator, like the real one


def test_an_edit_whose_new_version_was_not_stored_comes_back_to_the_composer_as_that_edit(qtbot, worker) -> None:
    backend = RefusingEdits(keys={"anthropic": "sk-test"})
    session = backend.add_session("Trip", [QUESTION, "Day 1: Alfama and the castle…"])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    target = vm.rows.messages[0].id
    vm.set_draft("half a thought")
    vm.start_edit(target, QUESTION)
    assert vm.submit("Plan five days in Lisbon")
    assert vm.state.editing is None and vm.state.draft == "half a thought"
    qtbot.waitUntil(lambda: isinstance(vm.state, Ready) and not vm.state.streaming and not vm.state.reading_back
                    and vm.state.editing is not None, timeout=5000)
    assert vm.state.editing == target and vm.state.draft == "Plan five days in Lisbon"  # Send makes it an edit again
    vm.cancel_edit()
    assert vm.state.draft == "half a thought\n\nPlan five days in Lisbon"  # nothing typed is lost


def test_a_message_sent_while_an_edit_waits_is_not_joined_to_it_and_a_notice_says_why(qtbot, backend, worker) -> None:
    session = backend.add_session("Trip", [QUESTION, "Day 1: Alfama and the castle…"])
    backend.scripts.append([TextDelta("Regenerating"), 5.0])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    notices: list[str] = []
    vm.notice.connect(notices.append)
    target = vm.rows.messages[0].id
    vm.start_edit(target, QUESTION)
    vm.regenerate(vm.rows.messages[1].id)  # a turn runs while the edit is open
    qtbot.waitUntil(lambda: any(r.streaming and r.text == "Regenerating" for r in vm.model.rows()))
    assert vm.submit("Plan five days in Lisbon")  # the edit waits as that edit
    assert not vm.submit("And a museum?")  # not joined to the edit: it stays in the composer
    assert notices == [QUEUE_FULL] and vm.state.queued == "Plan five days in Lisbon"
    queued = vm.state.composer.queued
    assert queued is not None and queued.edit is not None and queued.edit.message_id == target
    vm.stop()
    qtbot.waitUntil(lambda: [c[0] for c in backend.calls if c[0] in ("regenerate", "edit")] == ["regenerate", "edit"],
                    timeout=5000)
    assert next(c for c in backend.calls if c[0] == "edit")[2:] == (target, "Plan five days in Lisbon")
