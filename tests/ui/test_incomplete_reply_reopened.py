"""A reply kept incomplete says who ended it after the conversation is read back from storage (issue 26): "cut off"
when the server cut the stream, "stopped early" when the user stopped it, not a bare "incomplete". Real Container
and SQLite, real SDK adapters against the local fake servers; the session is left and opened again, so its rows come
from the database alone, as after a restart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from app.gui.application import Running, wait_until
from tests.fakeservers.brain import ErrorReply, Reply, ScriptedBrain
from tests.fakeservers.trio import FakeServers
from tests.ui.live_window import live_window
from ui.models.chat_rows import ChatRow, RowKind
from ui.viewmodels.chat import ChatViewModel
from ui.widgets.row_layout import incomplete_caption

ESSAY = " ".join(f"Paragraph {i} of a long essay about retries." for i in range(400))


@pytest.fixture
def slow_app(qapp, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[QApplication, Running, FakeServers,
                                                                          ScriptedBrain]]:
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with live_window(brain, monkeypatch, chunk_pause=0.02) as (app, running, servers):
        yield app, running, servers, brain


def reopened_reply(app: QApplication, vm: ChatViewModel) -> ChatRow:
    """The session left for a new chat and opened again: its kept reply, as read from storage."""
    session = vm.state.session
    assert session is not None
    vm.clear()
    assert wait_until(app, lambda: vm.state.session is None and vm.model.rowCount() == 0)
    vm.open(session.id)
    assert wait_until(app, lambda: vm.state.session is not None and not vm.state.loading
                      and vm.model.rowCount() > 0), vm.state.error
    return next(r for r in reversed(vm.model.rows()) if r.kind is RowKind.ASSISTANT)


def test_a_reply_cut_by_the_server_still_says_cut_off_when_read_back_from_storage(slow_app) -> None:
    app, running, _servers, brain = slow_app
    vm = running.window.chat_vm
    vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)
    brain.push(ErrorReply("cut_off", chunks_before=("The first half of the answer, ", "then more")))
    assert vm.send("Explain")
    assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR
                      and vm.model.rows()[-2].message_id is not None, timeout=30), vm.state.error
    reply = reopened_reply(app, vm)
    assert reply.incomplete and reply.text.startswith("The first half") and vm.model.rows()[-1] == reply
    assert incomplete_caption(reply) == "cut off (incomplete)"


def test_a_reply_the_user_stopped_still_says_stopped_early_when_read_back_from_storage(slow_app) -> None:
    app, running, _servers, brain = slow_app
    vm = running.window.chat_vm
    vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "openai").selection)
    brain.push(Reply.of_text(ESSAY))
    assert vm.send("Write a long essay")
    assert wait_until(app, lambda: any(r.streaming and len(r.text) > 120 for r in vm.model.rows()), timeout=30)
    vm.stop()
    assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].message_id is not None
                      and vm.model.rows()[-1].kind is RowKind.ASSISTANT, timeout=30), vm.state.error
    reply = reopened_reply(app, vm)
    assert reply.incomplete and incomplete_caption(reply) == "stopped early (incomplete)"
