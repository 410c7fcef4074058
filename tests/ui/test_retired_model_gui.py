"""The desktop app on a model Anthropic retired, end to end (real Container, SQLite and SDK adapters; the fake
Anthropic server refusing the model as the real API does): the error row names the day and the successor and
offers "Use Claude Sonnet 4.6 and retry", which switches the conversation and answers the kept message. A model
retired with no successor named (Gemini 2.0 Flash) offers "Choose another model": the header's model picker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.gui.application import wait_until
from data.storage import Storage
from domain.models import MessageType
from tests.fakeservers.anthropic_server import RETIRED_MODELS
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.fakeservers.gemini_server import RETIRED_MODELS as GEMINI_RETIRED
from tests.ui.chat_helpers import click_action, row_of
from tests.ui.live_window import live_window
from ui.backend_types import Selection
from ui.models.chat_rows import ChatRow, RowKind
from ui.viewmodels.chat import ChatViewModel

RETIRED = Selection("anthropic", "claude-sonnet-4-20250514")  # retired on 15 June 2026


def _refused(app: QApplication, vm: ChatViewModel, model: Selection, text: str) -> ChatRow:
    """Sends `text` on `model` and returns the error row of the turn the fake server refused."""
    vm.select_model(model)
    assert vm.send(text)
    assert wait_until(app, lambda: vm.state.can_start_turn and vm.model.rows()[-1].kind is RowKind.ERROR,
                      timeout=30), vm.state.error
    return vm.model.rows()[-1]


def _answered(app: QApplication, vm: ChatViewModel) -> str:
    """The reply's text once the retried turn ended."""
    assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ASSISTANT,
                      timeout=30), vm.state.error
    return vm.model.rows()[-1].text


def test_the_error_row_switches_to_the_successor_and_answers_the_kept_message(
        qapp, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    with live_window(ScriptedBrain(default=Reply.of_text("Here I am.")), monkeypatch) as (app, running, servers):
        servers.anthropic.retired = RETIRED_MODELS  # type: ignore[attr-defined]
        vm, view = running.window.chat_vm, running.window.chat_view
        choice = next(c for c in vm.state.choices if c.selection == RETIRED)
        assert choice.retirement == "retired 15 Jun 2026" and choice.retired and choice.successor == "Claude Sonnet 4.6"
        error = _refused(app, vm, RETIRED, "Still there?")
        assert error.text.startswith("Claude Sonnet 4 was retired on 15 June 2026 and Anthropic no longer serves it.")
        assert error.switch_to == ("anthropic", "claude-sonnet-4-6") and error.switch_label == "Claude Sonnet 4.6"
        layout = click_action(qtbot, view, row_of(view, RowKind.ERROR)[0], "switch-model")
        assert "Use Claude Sonnet 4.6 and retry" in [label for _r, action, label in layout.hotspots
                                                     if action == "switch-model"]
        assert vm.state.selection == Selection("anthropic", "claude-sonnet-4-6")
        assert _answered(app, vm) == "Here I am."
        assert not any(r.kind is RowKind.ERROR for r in vm.model.rows())
        session = vm.state.session
        assert session is not None and session.current_model_id == "claude-sonnet-4-6"
    storage = Storage.open(Path(os.environ["PALIMPSEST_HOME"]))  # the app's store, read after the app closed
    try:
        stored = [(m.type, m.content) for m in storage.messages.snapshot(session.id)]
    finally:
        storage.close()
    assert stored == [(MessageType.USER, "Still there?"), (MessageType.AI_RESPONSE, "Here I am.")]


def test_a_retired_model_without_a_successor_offers_the_model_picker_then_retry_answers(
        qapp, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    with live_window(ScriptedBrain(default=Reply.of_text("Still here.")), monkeypatch) as (app, running, servers):
        servers.gemini.retired = GEMINI_RETIRED  # type: ignore[attr-defined]
        window = running.window
        vm, view = window.chat_vm, window.chat_view
        error = _refused(app, vm, Selection("gemini", "gemini-2.0-flash"), "Anyone?")
        assert error.text.startswith("Gemini 2.0 Flash was retired on 1 June 2026 and Google Gemini no longer serves")
        assert error.choose_model and error.switch_to is None
        assert not window.header.model.popup.isVisible()
        layout = click_action(qtbot, view, row_of(view, RowKind.ERROR)[0], "choose-model")
        assert [label for _r, action, label in layout.hotspots if action == "choose-model"] == ["Choose another model"]
        assert wait_until(app, window.header.model.popup.isVisible, timeout=5)
        window.header.model.popup.hide()
        vm.select_model(Selection("gemini", "gemini-3.5-flash-lite"))  # what choosing it in that list does
        click_action(qtbot, view, row_of(view, RowKind.USER)[0], "retry")  # the message's "Not answered — Retry"
        assert _answered(app, vm) == "Still here."
        assert {r.model for r in servers.gemini.requests if r.stream} == {"gemini-3.5-flash-lite"}
