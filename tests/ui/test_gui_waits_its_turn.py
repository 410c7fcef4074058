"""The desktop app sending into a conversation whose turn another process is writing: it says it waits, then sends
once the other turn is done (real Container and SQLite, the fake Anthropic server, offscreen Qt)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.gui.application import wait_until
from data.storage import Storage
from domain.ports import TurnLease
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.ui.live_window import live_window
from ui.models.chat_rows import RowKind


def test_a_send_while_another_process_writes_a_turn_waits_with_a_notice_then_goes(
    qapp, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with live_window(brain, monkeypatch) as (app, running, _servers):
        vm = running.window.chat_vm
        vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)
        brain.push(Reply.of_text("First answer."))
        assert vm.send("First question")
        assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].message_id is not None,
                          timeout=30), vm.state.error
        assert vm.state.session is not None
        session_id = vm.state.session.id
        container = running.container or (running.holder or {})["container"]
        other = Storage.open(container.storage.path.parent)  # another process's connection to the same file
        try:
            now = datetime.now(UTC)
            other_turn = TurnLease(session_id, "other-turn", "process 99 on elsewhere", now,
                                   now + timedelta(seconds=60), "elsewhere", 99)
            assert other.turn_leases.take(other_turn, now) is None
            notices: list[str] = []
            vm.notice.connect(notices.append)
            brain.push(Reply.of_text("Second answer."))
            assert vm.send("Second question")
            assert wait_until(app, lambda: any(n.startswith("Waiting for another turn") for n in notices),
                              timeout=30), notices
            assert "process 99 on elsewhere" in notices[0]
            assert not [r for r in brain.seen if r.stream and r.last_user_text == "Second question"]
            other.turn_leases.release(session_id, "other-turn")
            assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].text == "Second answer.",
                              timeout=30), vm.state.error
            assert vm.model.rows()[-1].kind is RowKind.ASSISTANT
            assert any(n.startswith("The other turn is done") for n in notices)
        finally:
            other.close()
