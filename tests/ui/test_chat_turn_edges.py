"""ChatViewModel at the edges of a turn: Stop, refused and oversized messages, failures, the queue (issue 13)."""

from __future__ import annotations

from PySide6.QtCore import QTimer

from domain.errors import AuthenticationFailed, NetworkError
from domain.events import ChatError, ContextStatus, ContextStatusChanged, ResponseComplete, TextDelta
from domain.models import MessageType, Usage
from tests.ui.fake_backend import FakeChatBackend, Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from tests.ui.window_helpers import settle
from ui.models.chat_rows import ChatRow, RowKind
from ui.state.chat_state import ChatState
from ui.viewmodels.chat import ChatViewModel


def texts(vm: ChatViewModel) -> list[str]:
    return [r.text for r in vm.model.rows()]


def watch_rows(qtbot, vm: ChatViewModel) -> list[tuple[ChatRow, ...]]:
    """The rows the chat shows at every pass of the event loop (whenever a paint could happen), in order."""
    seen: list[tuple[ChatRow, ...]] = []
    timer = QTimer(vm)
    timer.setInterval(0)
    timer.timeout.connect(lambda: seen.append(vm.model.rows()))
    timer.start()
    return seen


def returned(vm: ChatViewModel) -> list[str]:
    got: list[str] = []
    vm.text_returned.connect(got.append)
    return got


def test_stop_keeps_the_partial_reply_on_screen_until_the_stored_one_replaces_it(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.cancel_gate = wound_down = Gate()  # the backend is still closing the provider's stream after Stop
    backend.scripts.append([TextDelta("First paragraph.\n\nSecond"), Gate(), TextDelta(" never")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    seen = watch_rows(qtbot, vm)
    vm.send("Write a long essay")
    qtbot.waitUntil(lambda: any("Second" in r.text for r in vm.model.rows()))
    vm.stop()
    qtbot.waitUntil(lambda: not vm.state.streaming)
    wound_down.open()
    qtbot.waitUntil(lambda: any(r.incomplete and r.message_id for r in vm.model.rows()), timeout=5000)
    first = next(i for i, rows in enumerate(seen) if any("Second" in r.text for r in rows))
    gaps = [rows for rows in seen[first:] if not any("Second" in r.text for r in rows)]
    assert gaps == []  # the partial reply never leaves the screen
    stopped = [r for rows in seen[first:] for r in rows if "Second" in r.text and not r.streaming]
    assert stopped and all(r.incomplete for r in stopped)  # marked "stopped early" from the moment Stop is pressed
    assert vm.model.rows()[-1].text == "First paragraph.\n\nSecond" and vm.model.rows()[-1].message_id


def test_a_message_the_backend_refuses_goes_back_to_the_composer_and_leaves_no_user_row(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend.fits_chars = 1_000
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    back = returned(vm)
    paste = "data " * 2_000
    assert vm.send(paste)
    qtbot.waitUntil(lambda: back != [] and not vm.state.streaming)
    assert back == [paste.strip()]
    rows = vm.model.rows()
    assert [r.kind for r in rows] == [RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR]
    assert "too long" in rows[-1].text and "9,999 characters" in rows[-1].text and not rows[-1].retryable
    assert vm.state.error is not None and "too long" in vm.state.error
    assert [m.content for m in backend.messages[s.id]] == ["Hi", "Hello!"]


def test_a_composer_text_over_a_million_characters_is_refused_before_the_backend_is_called(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    notices: list[str] = []
    vm.notice.connect(notices.append)
    assert not vm.send("x" * 2_000_000)  # False: the composer keeps the text
    assert not [c for c in backend.calls if c[0] == "send"]
    error = vm.model.rows()[-1]
    assert error.kind is RowKind.ERROR and "2,000,000 characters" in error.text and "1,000,000" in error.text
    assert notices and notices[-1] == error.text and not vm.state.streaming


def test_a_failed_first_message_shows_the_message_and_the_error_with_retry_also_after_reopening(
        qtbot, backend, worker) -> None:
    other = backend.add_session("Other", ["Hi", "Hello!"])
    backend.scripts.append([ChatError("network", "Could not reach the provider (connection refused). Check the "
                                                 "connection and the base URL.", retryable=True)])
    vm = make_vm(backend, worker)
    assert vm.send("Plan a trip")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[0].message_id is not None)
    user, error = vm.model.rows()
    assert user.text == "Plan a trip" and user.unanswered and not user.retryable  # the error row offers Retry
    assert error.kind is RowKind.ERROR and error.retryable and "connection refused" in error.text
    session = vm.state.session
    assert session is not None
    opened(qtbot, vm, other.id)
    opened(qtbot, vm, session.id)
    (reopened,) = vm.model.rows()
    assert reopened.text == "Plan a trip" and reopened.unanswered and reopened.retryable
    vm.retry()
    qtbot.waitUntil(lambda: not vm.state.streaming and texts(vm) == ["Plan a trip", "Retried reply."]
                    and all(r.message_id for r in vm.model.rows()))
    assert not vm.model.rows()[0].unanswered


def test_a_message_sent_after_an_unanswered_one_leaves_it_marked_not_answered(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend._store(s.id, MessageType.USER, "Lost question")
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert vm.model.rows()[-1].unanswered and vm.model.rows()[-1].retryable
    vm.send("Another question")
    qtbot.waitUntil(lambda: not vm.state.streaming and len(vm.model.rows()) == 5
                    and all(r.message_id for r in vm.model.rows()))
    lost = vm.model.rows()[2]
    assert lost.text == "Lost question" and lost.unanswered and not lost.retryable  # Retry would answer the newest
    assert not any(r.unanswered for r in vm.model.rows()[3:])


def test_a_stream_cut_off_after_text_arrived_says_the_reply_was_cut_off_and_kept(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    url = "http://127.0.0.1:9/v1/messages"
    backend.scripts.append([TextDelta("The first half of"), 0.05, NetworkError(reason="cut", url=url)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Explain")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    qtbot.waitUntil(lambda: any(r.incomplete and r.message_id for r in vm.model.rows()))
    error = vm.model.rows()[-1].text
    assert "cut off" in error and url in error and "closed the connection" in error and "kept" in error
    assert "Could not reach" not in error
    kept = vm.model.rows()[-2]
    assert kept.incomplete and kept.message_id and kept.ended == "cut"  # its caption: cut off, not stopped early


def test_a_cut_off_chat_error_after_text_is_worded_as_cut_off_but_one_before_text_is_not(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    reach = "Could not reach the provider (timed out). Check the connection and the base URL."
    backend.scripts.append([TextDelta("Half"), ChatError("network", reach, retryable=True)])
    backend.scripts.append([ChatError("network", reach, retryable=True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("One")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    assert vm.model.rows()[-1].text.startswith("The reply was cut off") and "(timed out)" in vm.model.rows()[-1].text
    vm.send("Two")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR
                    and vm.model.rows()[-2].text == "Two")
    assert vm.model.rows()[-1].text == reach


def test_errors_tell_the_user_where_in_the_app_to_fix_them_not_a_cli_command(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    missing = AuthenticationFailed("Anthropic", missing=True)
    backend.scripts.append([ChatError("authentication", missing.message, error=missing)])
    backend.scripts.append([AuthenticationFailed("Anthropic")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("One")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    first = vm.model.rows()[-1].text
    assert "Add a key in Settings › Providers" in first and "palimpsest" not in first
    qtbot.waitUntil(lambda: vm.state.can_send)  # as the Send button shows (the read-back may still run: it waits)
    assert vm.send("Two")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR
                    and vm.model.rows()[-2].text == "Two")
    second = vm.model.rows()[-1].text
    assert "Settings › Providers" in second and "palimpsest" not in second
    assert vm.state.error is not None and "palimpsest" not in vm.state.error


def test_a_message_sent_after_the_error_was_shown_is_sent_once_the_failed_turn_is_read_back(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([ChatError("rate_limited", "The provider is rate limiting requests.", retryable=True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    backend.load_gate = read_back = Gate()  # the failed turn's messages are still being read back when the user sends
    vm.send("One")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    back = returned(vm)
    assert vm.state.can_send and vm.send("Two")  # the error is on screen: this message is meant to go after it
    assert vm.state.queued == "Two"
    read_back.open()
    qtbot.waitUntil(lambda: [c[2] for c in backend.calls if c[0] == "send"] == ["One", "Two"])
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.state.queued is None and texts(vm)[-1] == "You said: Two")
    assert back == [] and vm.state.error is None


def test_enter_while_a_reply_streams_queues_the_message_and_it_is_sent_when_the_turn_ends(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    gate = Gate()
    backend.scripts.append([TextDelta("Working on it"), gate, TextDelta(".")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("First")
    qtbot.waitUntil(lambda: any(r.streaming and r.text for r in vm.model.rows()))
    assert vm.send("Second")  # taken: the composer clears
    assert vm.send("and third")
    assert vm.state.queued == "Second\n\nand third"
    assert [c[2] for c in backend.calls if c[0] == "send"] == ["First"]
    gate.open()
    qtbot.waitUntil(lambda: [c[2] for c in backend.calls if c[0] == "send"] == ["First", "Second\n\nand third"])
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.state.queued is None and len(vm.model.rows()) == 4)
    assert texts(vm) == ["First", "Working on it.", "Second\n\nand third", "You said: Second\n\nand third"]


def test_a_queued_message_can_be_withdrawn_back_into_the_composer(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    gate = Gate()
    backend.scripts.append([TextDelta("Working"), gate])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    back = returned(vm)
    vm.send("First")
    qtbot.waitUntil(lambda: vm.state.streaming)
    vm.send("Second")
    vm.cancel_queued()
    assert vm.state.queued is None and back == ["Second"]
    gate.open()
    qtbot.waitUntil(lambda: not vm.state.streaming and len(vm.model.rows()) == 2)
    settle(qtbot, worker)
    assert [c[2] for c in backend.calls if c[0] == "send"] == ["First"]


def test_a_queued_message_is_not_sent_behind_a_failed_turn_but_returned_to_the_composer(
        qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([0.2, ChatError("rate_limited", "The provider is rate limiting requests.", retryable=True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    back = returned(vm)
    vm.send("First")
    vm.send("Second")
    qtbot.waitUntil(lambda: back == ["Second"] and not vm.state.streaming)
    settle(qtbot, worker)
    assert [c[2] for c in backend.calls if c[0] == "send"] == ["First"] and vm.state.queued is None


def test_the_first_reply_of_a_new_chat_shows_the_live_message_count_and_the_context(qtbot, backend, worker) -> None:
    gate = Gate()
    backend.scripts.append([TextDelta("Hel"), gate, TextDelta("lo")])
    vm = make_vm(backend, worker)
    vm.send("Hi")
    qtbot.waitUntil(lambda: any(r.streaming and r.text == "Hel" for r in vm.model.rows()))
    qtbot.waitUntil(lambda: vm.state.context is not None)
    assert vm.state.streaming and vm.state.message_count == 2  # the user's message and the reply coming in
    gate.open()
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.state.session is not None
                    and vm.state.session.message_count == 2)
    assert vm.state.live_messages == 0 and vm.state.message_count == 2


def test_a_normal_turn_never_shows_compacting(qtbot, backend, worker) -> None:
    backend.scripts.append([
        ContextStatusChanged(ContextStatus(0, 200_000)), TextDelta("Sure, "), 0.05, TextDelta("here it is."),
        ResponseComplete("r1", Usage(10, 5)), ContextStatusChanged(ContextStatus(1_200, 200_000)),
    ])
    vm = make_vm(backend, worker)
    states: list[ChatState] = []
    vm.state_changed.connect(states.append)
    vm.send("Hello")
    qtbot.waitUntil(lambda: vm.state.session is not None and not vm.state.streaming
                    and vm.state.session.message_count == 2)
    assert len(states) > 5 and not any(s.compacting for s in states)


def test_sending_while_a_turn_streams_never_duplicates_the_user_row(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "k"})
    backend.scripts.append([TextDelta("One"), 0.2])
    vm = make_vm(backend, worker)
    vm.send("A")
    vm.send("B")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.state.queued is None and len(vm.model.rows()) == 4)
    assert [r.text for r in vm.model.rows() if r.kind is RowKind.USER] == ["A", "B"]


def test_after_an_error_retry_cannot_fix_yet_the_unanswered_message_still_offers_retry(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["Hi", "Hello!"])
    backend.scripts.append([ChatError("authentication", AuthenticationFailed("Anthropic", missing=True).message)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Are you there?")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-2].message_id is not None)
    user, error = vm.model.rows()[-2:]
    assert not error.retryable  # a missing key: retrying now would fail the same way
    assert user.unanswered and user.retryable  # once a key is added, Retry under the message answers it


def test_a_message_sent_while_a_stopped_turn_is_read_back_waits_and_is_sent_after_it(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.cancel_gate = wound_down = Gate()  # the stopped turn is still being stored until this opens
    backend.scripts.append([TextDelta("Partial"), Gate()])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("First")
    qtbot.waitUntil(lambda: any(r.streaming and r.text == "Partial" for r in vm.model.rows()))
    vm.stop()
    qtbot.waitUntil(lambda: not vm.state.streaming)
    assert vm.send("Next")  # the stopped turn is still being stored: this one waits its turn
    assert vm.state.queued == "Next"
    wound_down.open()
    qtbot.waitUntil(lambda: sent(backend) == ["First", "Next"], timeout=5000)
    qtbot.waitUntil(lambda: not vm.state.streaming and len(vm.model.rows()) == 4
                    and all(r.message_id for r in vm.model.rows()))
    assert texts(vm) == ["First", "Partial", "Next", "You said: Next"] and vm.model.rows()[1].incomplete


def sent(backend: FakeChatBackend) -> list[str]:
    return [c[2] for c in backend.calls if c[0] == "send"]
