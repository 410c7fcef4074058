"""An attached document large enough to go as a card is indexed for search_documents when it is attached, in the
background: the composer says so while it runs, and a small file is not indexed at all."""

from __future__ import annotations

import threading
from pathlib import Path

from domain.documents import CARD_MIN_CHARS
from tests.ui.window_helpers import demo_sessions, open_session, themed_window


def test_a_large_attached_document_is_indexed_in_the_background_with_a_status(
    qtbot, backend, worker, tmp_path: Path
) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    big, small = tmp_path / "logbook.txt", tmp_path / "note.txt"
    big.write_text("Watch kept, course held, all well.\n" * (CARD_MIN_CHARS // 30), encoding="utf-8")
    small.write_text("A short note.\n", encoding="utf-8")
    backend.index_gate = threading.Event()
    vm, strip = window.chat_vm, window.composer.strip
    vm.attach_paths([str(big), str(small)])
    qtbot.waitUntil(lambda: len(vm.state.pending) == 2 and vm.state.indexing == ("logbook.txt",))
    assert strip._busy.isVisible() and strip._busy.text() == "Indexing logbook.txt for search…"
    assert backend.indexed == []  # still running: the composer is usable meanwhile
    backend.index_gate.set()
    qtbot.waitUntil(lambda: vm.state.indexing == ())
    assert backend.indexed == ["logbook.txt"]  # the small note goes whole: nothing to index
    assert not strip._busy.isVisible()


def test_opening_a_conversation_checks_its_agents_knowledge_for_changed_files(qtbot, backend, worker) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    notices: list[str] = []
    window.chat_vm.notice.connect(notices.append)
    backend.refresh_lines = ["/kb: 0 added, 1 updated, 9 unchanged, 0 removed"]
    open_session(qtbot, window, sid)
    qtbot.waitUntil(lambda: bool(notices))
    assert backend.refreshed == [sid]
    assert notices == ["Knowledge indexed again: /kb: 0 added, 1 updated, 9 unchanged, 0 removed"]
