"""Stop and a cut-off stream in the desktop app end to end: real Container and SQLite, real SDK adapters against the
local fake Anthropic server (a slow model), offscreen Qt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from app.gui.application import Running, wait_until
from tests.fakeservers.brain import ErrorReply, Reply, ScriptedBrain
from tests.fakeservers.trio import FakeServers
from tests.ui.live_window import live_window
from ui.models.chat_rows import ChatRow, RowKind

ESSAY = " ".join(f"Paragraph {i} of a long essay about retries." for i in range(400))


@pytest.fixture
def slow_app(qapp, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[QApplication, Running, FakeServers,
                                                                          ScriptedBrain]]:
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with live_window(brain, monkeypatch, chunk_pause=0.02) as (app, running, servers):  # about 400 characters/s
        yield app, running, servers, brain


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_stop_keeps_the_streamed_text_on_screen_and_it_is_stored_marked_incomplete(slow_app, provider: str) -> None:
    app, running, _servers, brain = slow_app
    vm = running.window.chat_vm
    vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == provider).selection)
    brain.push(Reply.of_text(ESSAY))
    assert vm.send("Write a long essay")
    assert wait_until(app, lambda: any(r.streaming and len(r.text) > 120 for r in vm.model.rows()), timeout=30)
    vm.stop()
    seen: list[tuple[ChatRow, ...]] = []

    def settled() -> bool:
        seen.append(vm.model.rows())
        reply = vm.model.rows()[-1]
        return not vm.state.streaming and reply.message_id is not None and reply.kind is RowKind.ASSISTANT

    assert wait_until(app, settled, timeout=30), vm.state.error
    assert all(any(r.kind is RowKind.ASSISTANT and r.text.startswith("Paragraph 0") for r in rows) for rows in seen)
    reply = vm.model.rows()[-1]
    assert reply.incomplete and ESSAY.startswith(reply.text) and 120 < len(reply.text) < len(ESSAY)


def test_a_stream_cut_off_after_text_keeps_the_text_and_says_it_was_cut_off(slow_app) -> None:
    app, running, _servers, brain = slow_app
    vm = running.window.chat_vm
    vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)
    brain.push(ErrorReply("cut_off", chunks_before=("The first half of the answer, ", "then more")))
    assert vm.send("Explain")
    assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR
                      and vm.model.rows()[-2].message_id is not None, timeout=30), vm.state.error
    kept, error = vm.model.rows()[-2:]
    assert kept.kind is RowKind.ASSISTANT and kept.incomplete and kept.text.startswith("The first half")
    assert "cut off" in error.text and "kept" in error.text and "Could not reach" not in error.text
