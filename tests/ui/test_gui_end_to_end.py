"""The desktop app end to end: real Container, real SDK adapters, the local fake provider servers, offscreen Qt."""

from __future__ import annotations

import pytest

from app.gui.application import wait_until
from tests.fakeservers.brain import NormalizedRequest, Reply
from tests.ui.live_window import live_window
from ui.models.chat_rows import RowKind


class Echo:
    """Answers every chat request with the user's last text; titles and summaries get a short text."""

    def respond(self, request: NormalizedRequest) -> Reply:
        if "summarizer" in request.system:
            return Reply.of_text("## Goal\nTest the echo.\n\n## Critical Context\n- the first fact is 4711")
        if "title" in request.last_user_text.lower():
            return Reply.of_text("Echo chat")
        return Reply.of_text("You said: " + request.last_user_text[:200])


def test_one_conversation_switches_between_all_three_providers(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    with live_window(Echo(), monkeypatch) as (app, running, _servers):
        window, vm = running.window, running.window.chat_vm
        assert not window.app_vm.state.first_run  # keys come from the environment
        for provider in ("anthropic", "openai", "gemini"):
            choice = next(c for c in vm.state.choices if c.selection.provider_id == provider)
            vm.select_model(choice.selection)
            assert vm.send(f"hello {provider}")
            assert wait_until(app, lambda: not vm.state.streaming and vm.model.rowCount() > 0, timeout=30)
            assert wait_until(app, lambda p=provider: vm.last_reply() == f"You said: hello {p}", timeout=30), (
                vm.state.error)
        rows = vm.model.rows()
        assert [r.text for r in rows if r.kind is RowKind.USER] == [
            "hello anthropic", "hello openai", "hello gemini"]
        assert not any(r.kind is RowKind.ERROR for r in rows)
        assert wait_until(app, lambda: window.sessions_vm.state.sessions[0].title == "Echo chat")


def test_a_long_conversation_compacts_and_the_divider_summary_and_originals_work(
    qapp, monkeypatch: pytest.MonkeyPatch
) -> None:
    with live_window(Echo(), monkeypatch) as (app, running, _servers):
        window, vm = running.window, running.window.chat_vm
        choice = next(c for c in vm.state.choices if c.selection.provider_id == "openai")
        window.settings_vm.set_window(choice.selection.provider_id, choice.selection.model_id, 4096, 512)
        assert wait_until(app, lambda: window.settings_vm.state.message is not None)
        vm.select_model(choice.selection)
        for turn in range(10):
            assert vm.send(f"fact {turn}: " + "the quick brown fox jumps over the lazy dog " * 40)
            assert wait_until(app, lambda: not vm.state.streaming and vm.state.session is not None
                              and vm.model.rows()[-1].message_id is not None, timeout=30), vm.state.error
            if vm.state.summarized_count:
                break
        assert vm.state.summarized_count > 0, "no compaction happened"
        assert "## Goal" in (vm.state.summary or "")
        assert vm.model.rows()[0].kind is RowKind.DIVIDER
        assert not any(r.kind is RowKind.ERROR for r in vm.model.rows())
        vm.set_show_originals(True)
        texts = [r.text for r in vm.model.rows() if r.dimmed]
        assert texts and texts[0].startswith("fact 0")
        vm.edit_summary("## Goal\nMy edited summary")
        assert wait_until(app, lambda: vm.state.summary == "## Goal\nMy edited summary")
        vm.reset_context()
        assert wait_until(app, lambda: vm.state.summarized_count == 0 and vm.state.summary is None)
