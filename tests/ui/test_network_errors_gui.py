"""The desktop app names why a provider could not be reached, and where, end to end (real Container, SQLite and SDK
adapters; offscreen Qt): a refused port at once and with its URL, offering the Providers page that fixes a base URL;
an unresolvable host; a reply the server cut captioned as cut off, not as stopped."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from PySide6.QtWidgets import QApplication

from app.gui.application import Running, wait_until
from tests.fakeservers.brain import ErrorReply, Reply, ScriptedBrain
from tests.ui.chat_helpers import click_action, layout_of, row_of
from tests.ui.live_window import live_window
from ui.models.chat_rows import RowKind


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def app_with_anthropic_at(url: str | None, monkeypatch: pytest.MonkeyPatch,
                          brain: ScriptedBrain) -> Iterator[tuple[QApplication, Running]]:
    env = {"ANTHROPIC_BASE_URL": url} if url else None
    with live_window(brain, monkeypatch, env=env) as (app, running, _servers):
        vm = running.window.chat_vm
        vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)
        yield app, running


def failed_row(app: QApplication, running: Running, text: str):
    vm = running.window.chat_vm
    assert vm.send(text)
    assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR,
                      timeout=30), vm.state.error
    return vm.model.rows()[-1]


def test_a_refused_port_is_shown_at_once_with_its_url_and_offers_the_providers_page(
        qapp, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    with app_with_anthropic_at(url, monkeypatch, ScriptedBrain(default=Reply.of_text("A title"))) as (app, running):
        started = time.monotonic()
        error = failed_row(app, running, "Hello?")
        elapsed = time.monotonic() - started
        # no timeout waited out (the SDK's first import and the turn's set-up take about 2 s on a busy machine; that
        # nothing is retried is checked where the retries are counted: tests/providers/test_network_causes.py)
        assert elapsed < 10.0, elapsed
        assert f"Could not connect to {url}" in error.text and "refused" in error.text
        assert "timed out" not in error.text and "palimpsest" not in error.text
        assert running.window.chat_vm.state.error == error.text  # the error state the window shows
        assert error.retryable and error.fix_page == "Providers"
        view = running.window.chat_view
        position, _row = row_of(view, RowKind.ERROR)
        click_action(qtbot, view, position, "open-settings")
        dialog = running.window.settings_dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Providers"


def test_an_unresolvable_host_is_named(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "http://palimpsest-gui-test.invalid:8080"
    with app_with_anthropic_at(url, monkeypatch, ScriptedBrain(default=Reply.of_text("A title"))) as (app, running):
        error = failed_row(app, running, "Hello?")
        assert "palimpsest-gui-test.invalid" in error.text and "does not resolve" in error.text
        assert "timed out" not in error.text and error.fix_page == "Providers"


def test_a_reply_the_server_cut_is_captioned_cut_off_not_stopped_early(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    brain = ScriptedBrain([ErrorReply("cut_off", chunks_before=("The first half of the answer, ", "then more"))],
                          default=Reply.of_text("A title"))
    with app_with_anthropic_at(None, monkeypatch, brain) as (app, running):
        vm = running.window.chat_vm
        error = failed_row(app, running, "Explain")
        assert "closed the connection" in error.text and "Could not reach" not in error.text
        assert wait_until(app, lambda: vm.model.rows()[-2].message_id is not None, timeout=30)
        view = running.window.chat_view
        position, kept = row_of(view, RowKind.ASSISTANT)
        assert kept.incomplete and kept.text.startswith("The first half")
        caption = layout_of(view, position)[0].caption
        assert "cut off (incomplete)" in caption and "stopped early" not in caption
