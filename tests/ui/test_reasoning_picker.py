"""The reasoning picker beside the model picker: shown only for a model that reasons, offering only its levels;
a choice is stored with the conversation (before the first message too), and an opened conversation shows its own."""

from __future__ import annotations

from dataclasses import replace

from tests.ui.window_helpers import open_session, settle, themed_window
from ui.backend import Selection
from ui.signals import emit
from ui.widgets.header import reasoning_items

SONNET = Selection("anthropic", "claude-sonnet-4-5-20250929")  # budget thinking in the fake backend
GPT = Selection("openai", "gpt-4o")  # does not reason


def _offered(window) -> list[object]:
    return [item.data for item in window.header.reasoning._items]


def test_a_level_chosen_before_the_first_message_is_stored_with_the_new_session(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    picker = window.header.reasoning
    assert window.chat_vm.state.selection == SONNET
    assert picker.isVisible() and picker.text() == "✦ default"
    assert _offered(window) == ["default", "off", "auto", "low", "medium", "high", "max"]
    emit(picker.popup.chosen, "high")
    assert window.chat_vm.state.reasoning == "high" and picker.text() == "✦ high"
    window.chat_vm.send("Think hard about this")
    qtbot.waitUntil(lambda: any(c[0] == "send" for c in backend.calls))
    names = [c[0] for c in backend.calls]
    session_id = window.chat_vm.state.session.id
    assert ("set_reasoning", session_id, "high") in backend.calls
    assert names.index("set_reasoning") < names.index("send")  # stored before the first request
    assert backend.sessions[session_id].reasoning == "high"
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)
    emit(picker.popup.chosen, "default")  # back to the agent's setting
    qtbot.waitUntil(lambda: backend.sessions[session_id].reasoning is None)
    assert picker.text() == "✦ default"


def test_hidden_for_a_model_that_does_not_reason_and_an_opened_session_shows_its_own(qtbot, backend, worker) -> None:
    thinking = backend.add_session("Proof sketch", ["Prove it", "Here is a sketch."])
    backend.sessions[thinking.id] = replace(backend.sessions[thinking.id], reasoning="low")
    window = themed_window(qtbot, backend, worker)
    emit(window.header.model_chosen, GPT)
    qtbot.waitUntil(lambda: window.chat_vm.state.selection == GPT)
    assert not window.header.reasoning.isVisible()
    open_session(qtbot, window, thinking.id)
    assert window.chat_vm.state.selection == SONNET and window.header.reasoning.isVisible()
    assert window.header.reasoning.text() == "✦ low"
    window.header.reasoning.open_popup()
    rows = [window.header.reasoning.popup.list.model().index(r, 0).data() for r in range(7)]
    assert rows[0] == "Default" and rows[-1] == "Max"
    window.header.reasoning.popup.hide()


def test_the_levels_offered_are_the_models_own() -> None:
    items = reasoning_items(("auto", "low", "high"))
    assert [i.data for i in items] == ["default", "auto", "low", "high"]
    assert items[0].tooltip == "the agent's setting" and items[-1].text == "High"


def test_a_page_read_before_the_choice_was_stored_does_not_undo_it(qtbot, backend, worker) -> None:
    import asyncio

    session = backend.add_session("Proof sketch", ["Prove it", "Here is a sketch."])
    backend.sessions[session.id] = replace(backend.sessions[session.id], reasoning="high")
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, session.id)
    stale = asyncio.run(backend.load_conversation(session.id, 50))  # read while the session said "high"
    window.chat_vm.select_reasoning(None)  # back to the agent's: sent to the worker, not stored yet
    window.chat_vm._opened(stale)  # a turn's read-back that was already under way arrives first
    assert window.chat_vm.state.reasoning is None and window.header.reasoning.text() == "✦ default"
    qtbot.waitUntil(lambda: backend.sessions[session.id].reasoning is None)
    settle(qtbot, worker)
    assert window.chat_vm.state.reasoning is None and window.header.reasoning.text() == "✦ default"
