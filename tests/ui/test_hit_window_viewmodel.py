"""The chat view model under a window around a search hit far back: newer pages appended down to the newest, and
every verb that acts on "the newest" (send, retry, Up to edit, Ctrl+Shift+C, the header count) acting on the
conversation's newest message, not the window's last one."""

from __future__ import annotations

from domain.events import TextDelta
from domain.models import MessageType
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm
from tests.ui.test_search_hit_and_archive import opened_at
from tests.ui.window_helpers import settle
from ui.models.chat_rows import RowKind
from ui.viewmodels.chat import ChatViewModel
from ui.viewmodels.chat_paging import PAGE

LONG = 500


def voyage(backend: FakeChatBackend, hit_at: int = 20) -> tuple[str, str]:
    texts = [f"question {i}" if i % 2 == 0 else f"answer {i}" for i in range(LONG)]
    s = backend.add_session("Voyage", texts)
    return s.id, backend.messages[s.id][hit_at].id


def stored_ids(vm: ChatViewModel) -> list[str]:
    return [r.message_id for r in vm.model.rows() if r.message_id and r.kind in (RowKind.USER, RowKind.ASSISTANT)]


def test_scrolling_down_a_window_appends_newer_pages_until_the_newest(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    path = [m.id for m in backend.messages[sid]]
    assert stored_ids(vm) == path[:PAGE] and vm.state.has_newer and vm.state.message_count == LONG
    pages = 0
    while vm.state.has_newer:
        before = len(stored_ids(vm))
        vm.load_newer()
        vm.load_newer()  # asked again while the page is read: one read, not two
        qtbot.waitUntil(lambda: len(stored_ids(vm)) > before)  # noqa: B023
        pages += 1
    assert stored_ids(vm) == path and pages == -(-(LONG - PAGE) // PAGE)  # each message once, in order
    assert [c for c in backend.calls if c[0] == "load_newer"] == [
        ("load_newer", sid, backend.messages[sid][k - 1].seq) for k in range(PAGE, LONG, PAGE)]
    assert vm.state.message_count == LONG and not vm.state.has_older
    vm.load_newer()  # at the newest: nothing more to read
    settle(qtbot, worker)
    assert len([c for c in backend.calls if c[0] == "load_newer"]) == pages


def test_the_last_row_of_a_window_is_not_offered_as_unanswered(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend, hit_at=101)  # the window (41..160) ends at a user message whose answer is below it
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    last = vm.model.rows()[-1]
    assert last.kind is RowKind.USER and not last.unanswered and not last.retryable


def test_sending_from_a_window_shows_the_turn_after_the_newest_message(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    newest = backend.messages[sid][-1].id
    gate = Gate()
    backend.scripts.append([TextDelta("Land "), gate, TextDelta("ho.")])  # held mid-reply until it is looked at
    assert vm.send("any land in sight?")
    qtbot.waitUntil(lambda: vm.state.streaming)
    rows = vm.model.rows()
    at = next(i for i, r in enumerate(rows) if r.message_id == newest)
    assert rows[at + 1].kind is RowKind.USER and rows[at + 1].text == "any land in sight?"  # right after the newest
    assert hit not in {r.message_id for r in rows} and not vm.state.has_newer
    assert vm.state.message_count == LONG + 1
    gate.open()
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].text == "Land ho.")
    assert [m.content for m in backend.messages[sid][-2:]] == ["any land in sight?", "Land ho."]
    assert vm.state.message_count == LONG + 2


def test_a_message_refused_from_a_window_goes_back_to_the_composer(qtbot, backend, worker) -> None:
    """The turn's read-back tells a stored message from a refused one by the newest seq when the turn began: the
    conversation's, not the window's last (messages below the window would pass for the new one)."""
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    returned: list[str] = []
    vm.text_returned.connect(returned.append)
    opened_at(qtbot, vm, sid, hit)
    backend.fits_chars = 10
    assert vm.send("a message far too long for this model")
    qtbot.waitUntil(lambda: returned == ["a message far too long for this model"])
    assert len(backend.messages[sid]) == LONG and not vm.state.has_newer


def test_up_to_edit_and_copy_last_reply_take_the_conversations_newest_not_the_windows(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    assert vm.last_reply() == f"answer {LONG - 1}"  # not the window's last reply
    edits: list[str] = []
    vm.edit_requested.connect(edits.append)
    assert vm.edit_last()
    qtbot.waitUntil(lambda: edits == [f"question {LONG - 2}"])
    assert not vm.state.has_newer and stored_ids(vm)[-1] == backend.messages[sid][-1].id


def test_retry_from_a_window_reads_the_newest_page_first(qtbot, backend, worker) -> None:
    sid, _ = voyage(backend)
    backend._store(sid, MessageType.USER, "the question that failed")
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, backend.messages[sid][20].id)
    vm.retry()
    qtbot.waitUntil(lambda: any(c[0] == "retry" for c in backend.calls))
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].text == "Retried reply.")
    texts = [r.text for r in vm.model.rows()]
    assert texts[-2:] == ["the question that failed", "Retried reply."] and not vm.state.has_newer


def test_regenerating_a_reply_in_the_window_streams_after_its_question(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    reply = backend.messages[sid][25]
    backend.scripts.append([TextDelta("A new "), 0.3, TextDelta("answer.")])
    vm.regenerate(reply.id)
    rows = vm.model.rows()
    asked = next(i for i, r in enumerate(rows) if r.message_id == backend.messages[sid][24].id)
    assert not vm.state.has_newer  # the new branch ends at the new reply: what was below the window is not on it
    assert all(r.message_id is None or r.message_id not in {reply.id} for r in rows[asked + 1:])
    assert vm.state.message_count == 25  # the header counts the new path while it streams: up to the question
    qtbot.waitUntil(lambda: vm.state.message_count == 26 and not vm.state.streaming)  # read back: the new path
    assert [r.text for r in vm.model.rows()[-2:]] == ["question 24", "A new answer."]


def test_opening_the_session_again_from_a_window_shows_its_newest_page(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    vm.open(sid)  # its entry in the sidebar clicked
    qtbot.waitUntil(lambda: not vm.state.has_newer and not vm.state.loading)
    assert stored_ids(vm)[-1] == backend.messages[sid][-1].id
    opened_at(qtbot, vm, sid, hit)  # the same hit again: the window again
    assert vm.state.has_newer and hit in stored_ids(vm)


def test_a_newer_page_read_for_a_session_left_meanwhile_is_dropped(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    other = backend.add_session("Other", ["hello", "hi there"])
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    backend.newer_gate = newer = Gate()
    vm.load_newer()
    vm.open(other.id)
    qtbot.waitUntil(lambda: not vm.state.loading and vm.state.session is not None and vm.state.session.id == other.id)
    newer.open()  # the newer page of the session left arrives now
    settle(qtbot, worker)
    assert [r.text for r in vm.model.rows()] == ["hello", "hi there"] and not vm.state.has_newer


def test_a_window_behind_the_boundary_draws_no_boundary_below_it_and_hiding_originals_goes_to_the_newest(
        qtbot, backend, worker) -> None:
    sid, hit = voyage(backend)
    backend.compact(sid, keep_last=4, summary="A long voyage.")
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    assert vm.state.show_originals and vm.state.has_newer
    assert RowKind.DIVIDER not in {r.kind for r in vm.model.rows()}  # the boundary is far below the window
    vm.set_show_originals(False)
    qtbot.waitUntil(lambda: not vm.state.has_newer and not vm.state.loading)
    kinds = [r.kind for r in vm.model.rows()]
    assert RowKind.DIVIDER in kinds and stored_ids(vm)[-1] == backend.messages[sid][-1].id


def test_a_hit_in_the_newest_page_opens_it_as_before(qtbot, backend, worker) -> None:
    sid, _ = voyage(backend)
    vm = make_vm(backend, worker)
    hit = backend.messages[sid][LONG - 30].id
    opened_at(qtbot, vm, sid, hit)
    assert not vm.state.has_newer and stored_ids(vm) == [m.id for m in backend.messages[sid][-PAGE:]]
    assert vm.last_reply() == f"answer {LONG - 1}"


def test_paging_older_above_a_window_stops_at_the_first_message(qtbot, backend, worker) -> None:
    sid, hit = voyage(backend, hit_at=150)  # the window: messages 90..209
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, sid, hit)
    assert vm.state.has_older and vm.state.has_newer
    vm.load_older()
    qtbot.waitUntil(lambda: len(stored_ids(vm)) == 210)
    assert stored_ids(vm) == [m.id for m in backend.messages[sid][:210]]
    assert not vm.state.has_older  # the first message is shown: no "Load earlier messages" left above it
    assert RowKind.LOAD_OLDER not in {r.kind for r in vm.model.rows()} and vm.state.has_newer
