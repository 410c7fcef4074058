"""Search hits open their conversation at the match (paged in, on its branch, among the originals); archiving."""

from __future__ import annotations

from dataclasses import replace

from domain.ports import SessionSearchHit
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.test_chat_viewmodel import make_vm
from ui.models.chat_rows import RowKind
from ui.viewmodels.chat import ChatViewModel
from ui.viewmodels.chat_paging import PAGE
from ui.viewmodels.sessions import SessionsViewModel

LONG = 400  # messages: the hit near the start is three pages back


def long_session(backend: FakeChatBackend) -> tuple[str, str]:
    texts = [f"message number {i}" for i in range(LONG)]
    texts[5] = "the albatross was sighted at dawn"
    s = backend.add_session("Voyage", texts)
    return s.id, backend.messages[s.id][5].id


def opened_at(qtbot, vm: ChatViewModel, session_id: str, message_id: str) -> list[str]:
    focused: list[str] = []
    vm.focus.connect(focused.append)
    vm.open_at(session_id, message_id)
    qtbot.waitUntil(lambda: bool(focused))
    return focused


def test_a_hit_far_back_opens_a_window_around_it_and_is_focused(qtbot, backend, worker) -> None:
    sid, hit = long_session(backend)
    vm = make_vm(backend, worker)
    assert opened_at(qtbot, vm, sid, hit) == [hit]
    shown = {r.message_id for r in vm.model.rows()}
    assert hit in shown and backend.messages[sid][-1].id not in shown  # a window, not everything down to the newest
    assert LONG - 5 > PAGE and len(shown) <= PAGE and vm.state.has_newer and not vm.state.has_older
    assert vm.state.session is not None and vm.state.session.id == sid and vm.state.message_count == LONG


def test_a_hit_on_another_branch_checks_it_out_and_says_so(qtbot, backend, worker) -> None:
    s = backend.add_session("Fork", ["Pick a colour", "Blue"])
    other = replace(backend.messages[s.id][1], id="m-other", content="Crimson, on reflection")
    backend.off_path["m-other"] = [backend.messages[s.id][0], other]
    vm = make_vm(backend, worker)
    notices: list[str] = []
    vm.notice.connect(notices.append)
    opened_at(qtbot, vm, s.id, "m-other")
    assert [r.text for r in vm.model.rows() if r.kind is RowKind.ASSISTANT] == ["Crimson, on reflection"]
    assert any("Switched to the branch" in n for n in notices)


def test_a_hit_behind_the_compaction_boundary_shows_the_originals(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", ["the walrus question", "answer", "more", "reply", "latest", "ok"])
    backend.compact(s.id, keep_last=2, summary="Talked about a walrus.")
    hit = backend.messages[s.id][0].id
    vm = make_vm(backend, worker)
    opened_at(qtbot, vm, s.id, hit)
    assert vm.state.show_originals
    row = next(r for r in vm.model.rows() if r.message_id == hit)
    assert row.dimmed and row.text == "the walrus question"


def test_choosing_a_hit_opens_at_its_message_and_a_title_hit_opens_normally(qtbot, backend, worker) -> None:
    sid, hit = long_session(backend)
    vm = SessionsViewModel(backend, worker)
    at: list[tuple[str, str]] = []
    plain: list[object] = []
    vm.opened_at.connect(lambda s, m: at.append((s, m)))
    vm.opened.connect(plain.append)
    vm.search("albatross")
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    found = (vm.state.hits or ())[0]
    assert found.message_id == hit
    vm.open_hit(found)
    assert at == [(sid, hit)] and vm.state.selected_id == sid and plain == []
    vm.open_hit(SessionSearchHit(sid, "Voyage", "Voyage"))
    assert plain == [sid]


def test_archiving_moves_a_session_to_the_archived_list_and_back(qtbot, backend, worker) -> None:
    kept = backend.add_session("Kept", ["hello", "hi"])
    gone = backend.add_session("Old trip", ["Lisbon hotels", "Done"])
    vm = SessionsViewModel(backend, worker)
    vm.refresh()
    qtbot.waitUntil(lambda: len(vm.state.sessions) == 2)
    vm.archive(gone.id)
    qtbot.waitUntil(lambda: [s.id for s in vm.state.sessions] == [kept.id])
    assert not backend.sessions[gone.id].is_active
    vm.search("lisbon")  # archived sessions stay searchable
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    assert [h.session_id for h in vm.state.hits or ()] == [gone.id]
    vm.search("")
    vm.set_show_archived(True)
    qtbot.waitUntil(lambda: [s.id for s in vm.state.sessions] == [gone.id])
    vm.archive(gone.id, archived=False)
    qtbot.waitUntil(lambda: vm.state.sessions == ())
    vm.set_show_archived(False)
    qtbot.waitUntil(lambda: {s.id for s in vm.state.sessions} == {kept.id, gone.id})
    assert backend.sessions[gone.id].is_active


def test_a_message_in_an_open_archived_session_does_not_put_it_back_on_the_list(qtbot, backend, worker) -> None:
    kept = backend.add_session("Kept", ["hello", "hi"])
    gone = backend.add_session("Old trip", ["Lisbon hotels", "Done"])
    vm = SessionsViewModel(backend, worker)
    vm.refresh()
    qtbot.waitUntil(lambda: len(vm.state.sessions) == 2)
    vm.select(gone.id)
    vm.archive(gone.id)
    qtbot.waitUntil(lambda: [s.id for s in vm.state.sessions] == [kept.id])
    vm.upsert(replace(backend.sessions[gone.id], title="Old trip, continued"))  # a turn in the open session
    assert [s.id for s in vm.state.sessions] == [kept.id] and vm.state.selected_id == gone.id
    vm.upsert(replace(backend.sessions[kept.id], title="Kept, renamed"))
    assert [s.title for s in vm.state.sessions] == ["Kept, renamed"]


def test_a_hit_says_its_session_is_archived_and_unarchiving_it_puts_it_back_on_the_list(
        qtbot, backend, worker) -> None:
    gone = backend.add_session("Old trip", ["Lisbon hotels", "Done"])
    vm = SessionsViewModel(backend, worker)
    vm.refresh()
    qtbot.waitUntil(lambda: len(vm.state.sessions) == 1)
    vm.archive(gone.id)
    qtbot.waitUntil(lambda: vm.state.sessions == ())
    vm.search("lisbon")
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    assert [(h.session_id, h.archived) for h in vm.state.hits or ()] == [(gone.id, True)]
    vm.archive(gone.id, archived=False)
    qtbot.waitUntil(lambda: [s.id for s in vm.state.sessions] == [gone.id])
    assert [h.archived for h in vm.state.hits or ()] == [False]
