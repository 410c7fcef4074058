"""The desktop app on a model Anthropic retired, end to end (real Container, SQLite and SDK adapters; the fake
Anthropic server refusing the model as the real API does): the error row names the day and the successor and
offers "Use Claude Sonnet 4.6 and retry", which switches the conversation and answers the kept message. A model
retired with no successor named (Gemini 2.0 Flash) offers "Choose another model": the header's model picker."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF

from app.gui.application import wait_until
from data.storage import Storage
from domain.models import MessageType
from tests.fakeservers.anthropic_server import RETIRED_MODELS
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.fakeservers.gemini_server import RETIRED_MODELS as GEMINI_RETIRED
from tests.ui.chat_helpers import click, hotspot, layout_of, row_of
from tests.ui.live_window import live_window
from ui.backend_types import Selection
from ui.models.chat_rows import RowKind

RETIRED = Selection("anthropic", "claude-sonnet-4-20250514")  # retired on 15 June 2026


def test_the_error_row_switches_to_the_successor_and_answers_the_kept_message(
        qapp, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    with live_window(ScriptedBrain(default=Reply.of_text("Here I am.")), monkeypatch) as (app, running, servers):
        servers.anthropic.retired = RETIRED_MODELS  # type: ignore[attr-defined]
        vm, view = running.window.chat_vm, running.window.chat_view
        choice = next(c for c in vm.state.choices if c.selection == RETIRED)
        assert choice.retirement == "retired 15 Jun 2026" and choice.retired and choice.successor == "Claude Sonnet 4.6"
        vm.select_model(RETIRED)
        assert vm.send("Still there?")
        assert wait_until(app, lambda: vm.state.can_start_turn and vm.model.rows()[-1].kind is RowKind.ERROR,
                          timeout=30), vm.state.error
        error = vm.model.rows()[-1]
        assert error.text.startswith("Claude Sonnet 4 was retired on 15 June 2026 and Anthropic no longer serves it.")
        assert error.switch_to == ("anthropic", "claude-sonnet-4-6") and error.switch_label == "Claude Sonnet 4.6"
        position, _row = row_of(view, RowKind.ERROR)
        layout, rect = layout_of(view, position)
        spot = hotspot(layout, "switch-model")
        assert "Use Claude Sonnet 4.6 and retry" in [label for _r, action, label in layout.hotspots
                                                     if action == "switch-model"]
        click(qtbot, view, QPointF(rect.left() + spot.center().x(), rect.top() + spot.center().y()))
        assert vm.state.selection == Selection("anthropic", "claude-sonnet-4-6")
        assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ASSISTANT,
                          timeout=30), vm.state.error
        assert vm.model.rows()[-1].text == "Here I am."
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
    gone, live = Selection("gemini", "gemini-2.0-flash"), Selection("gemini", "gemini-3.5-flash-lite")
    with live_window(ScriptedBrain(default=Reply.of_text("Still here.")), monkeypatch) as (app, running, servers):
        servers.gemini.retired = GEMINI_RETIRED  # type: ignore[attr-defined]
        window = running.window
        vm, view = window.chat_vm, window.chat_view
        vm.select_model(gone)
        assert vm.send("Anyone?")
        assert wait_until(app, lambda: vm.state.can_start_turn and vm.model.rows()[-1].kind is RowKind.ERROR,
                          timeout=30), vm.state.error
        error = vm.model.rows()[-1]
        assert error.text.startswith("Gemini 2.0 Flash was retired on 1 June 2026 and Google Gemini no longer serves")
        assert error.choose_model and error.switch_to is None
        position, _row = row_of(view, RowKind.ERROR)
        layout, rect = layout_of(view, position)
        assert [label for _r, action, label in layout.hotspots if action == "choose-model"] == ["Choose another model"]
        assert not window.header.model.popup.isVisible()
        spot = hotspot(layout, "choose-model")
        click(qtbot, view, QPointF(rect.left() + spot.center().x(), rect.top() + spot.center().y()))
        assert wait_until(app, window.header.model.popup.isVisible, timeout=5)
        window.header.model.popup.hide()
        vm.select_model(live)  # what choosing it in that list does (the header's model_chosen)
        asked = max(i for i, r in enumerate(vm.model.rows()) if r.kind is RowKind.USER)  # "Not answered — Retry"
        user_layout, user_rect = layout_of(view, asked)
        spot = hotspot(user_layout, "retry")
        click(qtbot, view, QPointF(user_rect.left() + spot.center().x(), user_rect.top() + spot.center().y()))
        assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ASSISTANT,
                          timeout=30), vm.state.error
        assert vm.model.rows()[-1].text == "Still here."
        assert {r.model for r in servers.gemini.requests if r.stream} == {"gemini-3.5-flash-lite"}
