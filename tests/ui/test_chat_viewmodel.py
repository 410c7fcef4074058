"""ChatViewModel against the fake backend on the real worker thread."""

from __future__ import annotations

from dataclasses import replace

from domain.errors import NetworkError
from domain.events import (
    ChatError,
    CompactCompleted,
    CompactStarted,
    ContextStatus,
    ContextStatusChanged,
    TextDelta,
    TitleGenerated,
    ToolCallStarted,
    ToolResultStored,
)
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.window_helpers import settle
from ui.backend import Selection
from ui.models.chat_rows import RowKind
from ui.state.chat_state import ModelChoice
from ui.viewmodels.chat import ChatViewModel
from ui.worker import AsyncWorker

CLAUDE = Selection("anthropic", "claude-sonnet-4-5-20250929")
MINI = Selection("openai", "gpt-4o-mini")


def make_vm(backend: FakeChatBackend, worker: AsyncWorker) -> ChatViewModel:
    vm = ChatViewModel(backend, worker)
    choices = [ModelChoice(CLAUDE, "Claude", "Anthropic", 200_000), ModelChoice(MINI, "mini", "OpenAI", 8_000)]
    vm.set_choices(choices, backend.agents, CLAUDE)
    return vm


def kinds(vm: ChatViewModel) -> list[str]:
    return [str(r.kind) for r in vm.model.rows()]


def opened(qtbot, vm: ChatViewModel, session_id: str) -> None:
    vm.open(session_id)
    qtbot.waitUntil(lambda: vm.state.session is not None and not vm.state.loading and vm.state.context is not None)


def test_opening_a_session_shows_its_messages_and_context(qtbot, backend, worker) -> None:
    s = backend.add_session("Trip", ["Plan a trip", "Sure"])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert kinds(vm) == ["user", "assistant"]
    assert vm.state.context is not None and vm.state.context.window == 200_000
    qtbot.waitUntil(lambda: vm.state.usage is not None)


def test_sending_streams_the_reply_then_shows_the_stored_messages(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    gate = Gate()
    backend.scripts.append([TextDelta("Hel"), gate, TextDelta("lo")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert vm.send("Hi there")
    assert vm.state.streaming and not vm.state.can_send
    assert vm.model.rows()[0].text == "Hi there"  # the user's text shows at once
    qtbot.waitUntil(lambda: any(r.streaming and r.text.startswith("Hel") for r in vm.model.rows()))
    gate.open()
    qtbot.waitUntil(lambda: not vm.state.streaming)
    qtbot.waitUntil(lambda: [r.message_id is not None for r in vm.model.rows()] == [True, True])
    assert [r.text for r in vm.model.rows()] == ["Hi there", "Hello"]


def test_a_blank_message_is_not_sent(qtbot, backend, worker) -> None:
    vm = make_vm(backend, worker)
    assert not vm.send("   \n ")
    assert not backend.calls


def test_the_first_message_of_a_new_chat_creates_the_session(qtbot, backend, worker) -> None:
    vm = make_vm(backend, worker)
    created = []
    vm.session_changed.connect(created.append)
    assert vm.send("Hello")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.state.session is not None)
    assert created and backend.calls[0][0] == "send" and backend.calls[0][2] == "Hello"
    assert backend.calls[0][3] == CLAUDE


def test_stop_keeps_the_partial_reply_marked_incomplete(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([TextDelta("Part of"), 5.0, TextDelta(" never")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Go")
    qtbot.waitUntil(lambda: any("Part of" in r.text for r in vm.model.rows()))
    vm.stop()
    qtbot.waitUntil(lambda: not vm.state.streaming)
    qtbot.waitUntil(lambda: any(r.incomplete and r.message_id for r in vm.model.rows()))
    reply = vm.model.rows()[-1]
    assert reply.text == "Part of" and reply.incomplete


def test_a_failed_turn_shows_the_error_inline_with_retry_and_retry_runs_it_again(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([ChatError("network", "Could not reach the provider.", retryable=True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Hello?")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    qtbot.waitUntil(lambda: vm.model.rows()[0].message_id is not None)
    error = vm.model.rows()[-1]
    assert error.retryable and "Could not reach" in error.text
    assert vm.state.error == "Could not reach the provider."
    vm.retry()
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].text == "Retried reply.")
    assert ("retry", s.id, CLAUDE) in backend.calls
    assert vm.state.error is None


def test_an_error_that_retrying_cannot_fix_has_no_retry_button(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([ChatError("auth", "The provider rejected the API key.", retryable=False)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Hello?")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    error = vm.model.rows()[-1]
    assert "rejected the API key" in error.text and not error.retryable


def test_an_exception_from_the_backend_becomes_an_inline_error_not_a_crash(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    backend.scripts.append([NetworkError("connection refused")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Hello?")
    qtbot.waitUntil(lambda: not vm.state.streaming and vm.model.rows()[-1].kind is RowKind.ERROR)
    assert "connection refused" in vm.model.rows()[-1].text


def test_tool_calls_appear_as_rows_that_fill_in_when_the_result_is_stored(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat")
    running, stored = Gate(), Gate()  # the call runs, then its result shows, until the test has seen each
    backend.scripts.append([
        ToolCallStarted("c1", "http_request", {"url": "https://example.com"}), running,
        ToolResultStored("c1", "http_request", 30_000, True, False, "r1"), stored, TextDelta("Fetched."),
    ])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Fetch example.com")
    qtbot.waitUntil(lambda: any(r.kind is RowKind.TOOL and r.tool_running for r in vm.model.rows()))
    running.open()
    qtbot.waitUntil(lambda: any(r.kind is RowKind.TOOL and r.tool_truncated for r in vm.model.rows()))
    tool = next(r for r in vm.model.rows() if r.kind is RowKind.TOOL)
    assert tool.tool_chars == 30_000 and "example.com" in (tool.tool_input or "")
    stored.open()
    qtbot.waitUntil(lambda: not vm.state.streaming)


def test_compaction_during_a_turn_shows_the_indicator_and_then_the_divider(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"message {i}" for i in range(8)])
    compacting = Gate()  # the compaction runs until the test has seen it
    backend.scripts.append([TextDelta("ok"), CompactStarted(), compacting, CompactCompleted(True, False, 9000, 2000)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    notices: list[str] = []
    vm.notice.connect(notices.append)
    original_compact_now = backend.compact_now

    vm.send("more")
    qtbot.waitUntil(lambda: vm.state.compacting)
    backend.compact(s.id, 2, "Goal: a long chat.")  # what the real use case stores before CompactCompleted
    compacting.open()
    qtbot.waitUntil(lambda: not vm.state.streaming and not vm.state.compacting)
    qtbot.waitUntil(lambda: "divider" in kinds(vm))
    assert kinds(vm)[0] == "divider" and vm.state.summarized_count == 7  # 8 + the new question, 2 kept
    assert any("9,000 → 2,000" in n for n in notices)
    assert original_compact_now is not None


def test_a_fallback_compaction_shows_a_snackbar_and_changes_nothing(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", ["a", "b"])
    backend.scripts.append([TextDelta("ok"), CompactStarted(), CompactCompleted(False, True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    notices: list[str] = []
    vm.notice.connect(notices.append)
    vm.send("more")
    qtbot.waitUntil(lambda: not vm.state.streaming)
    assert any("Couldn't summarize" in n for n in notices)
    assert "divider" not in kinds(vm)


def test_context_and_title_events_update_the_state(qtbot, backend, worker) -> None:
    s = backend.add_session("New chat")
    backend.scripts.append([TextDelta("hi"), ContextStatusChanged(ContextStatus(5000, 200_000)),
                            TitleGenerated("Greetings")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    changed = []
    vm.session_changed.connect(changed.append)
    vm.send("hello")
    qtbot.waitUntil(lambda: vm.state.session is not None and vm.state.session.title == "Greetings")
    assert any(c.title == "Greetings" for c in changed)


def test_compact_now_passes_focus_instructions_and_shows_the_divider(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(6)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.compact_now("  keep the file paths  ")
    qtbot.waitUntil(lambda: "divider" in kinds(vm))
    assert ("compact", s.id, "keep the file paths") in backend.calls
    assert vm.state.summary == "Goal: test things."


def test_show_originals_expands_the_summarized_messages_dimmed(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(6)])
    backend.compact(s.id, 2, "Summary")
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert kinds(vm) == ["divider", "user", "assistant"]
    vm.set_show_originals(True)
    assert len(vm.model.rows()) == 7 and all(r.dimmed for r in vm.model.rows()[:4])


def test_reset_context_removes_the_divider_and_keeps_every_message(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(6)])
    backend.compact(s.id, 2, "Summary")
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.reset_context()
    qtbot.waitUntil(lambda: "divider" not in kinds(vm))
    assert len(vm.model.rows()) == 6 and vm.state.summary is None


def test_editing_the_summary_stores_the_new_text(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(6)])
    backend.compact(s.id, 2, "Old summary")
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.edit_summary("New summary")
    qtbot.waitUntil(lambda: vm.state.summary == "New summary")
    assert backend.sessions[s.id].compacted_summary == "New summary"


def test_pinning_a_message_marks_its_row(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["remember: port 8443", "ok"])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    first = vm.model.rows()[0]
    vm.set_pinned(first.message_id or "", True)
    qtbot.waitUntil(lambda: vm.model.rows()[0].pinned)


def test_switching_to_a_smaller_model_refreshes_the_gauge_and_leaves_compaction_to_the_next_send(
    qtbot, backend, worker
) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(6)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    backend.context = ContextStatus(12_000, None, warnings=("The conversation is larger than gpt-4o-mini takes.",))
    backend.models = [replace(m, context_window_size=8_000) if m.id == MINI.model_id else m for m in backend.models]
    vm.select_model(MINI)  # 8,000-token window holds less than the 12,000 in use
    qtbot.waitUntil(lambda: vm.state.context is not None and vm.state.context.window == 8_000)
    assert vm.state.context.warnings
    assert ("select", s.id, MINI, "general") in backend.calls
    assert backend.sessions[s.id].current_model_id == "gpt-4o-mini"
    settle(qtbot, worker)
    assert not any(c[0] == "compact" for c in backend.calls)  # the turn loop compacts before it sends


def test_last_reply_is_the_newest_assistant_text(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["q1", "a1", "q2", "a2"])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert vm.last_reply() == "a2"


def test_opening_an_unknown_session_reports_a_clear_error(qtbot, worker) -> None:
    vm = make_vm(FakeChatBackend(), worker)
    vm.open("nope")
    qtbot.waitUntil(lambda: vm.state.error is not None)
    assert vm.state.error == "No session named 'nope'."


def test_older_messages_page_in_on_demand_without_duplicates(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(300)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    assert vm.state.has_older and vm.model.rows()[0].kind is RowKind.LOAD_OLDER
    assert len([r for r in vm.model.rows() if r.message_id]) == 120
    vm.load_older()
    vm.load_older()  # a second request while the first runs is ignored
    qtbot.waitUntil(lambda: len([r for r in vm.model.rows() if r.message_id]) == 240)
    vm.load_older()
    qtbot.waitUntil(lambda: len([r for r in vm.model.rows() if r.message_id]) == 300)
    assert not vm.state.has_older
    assert [r.text for r in vm.model.rows()[:2]] == ["m0", "m1"]


def test_a_message_on_an_older_page_shows_its_version_switcher(qtbot, backend, worker) -> None:
    s = backend.add_session("Long", [f"m{i}" for i in range(300)])
    edited = backend.messages[s.id][2]  # a question asked again long ago: its versions, as the real page lists them
    backend.versions[edited.id] = ("elsewhere", edited.id)
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.load_older()
    qtbot.waitUntil(lambda: len([r for r in vm.model.rows() if r.message_id]) == 240)
    vm.load_older()
    qtbot.waitUntil(lambda: any(r.message_id == edited.id for r in vm.model.rows()))
    row = next(r for r in vm.model.rows() if r.message_id == edited.id)
    assert row.branch == (2, 2) and row.branch_prev == "elsewhere" and row.branch_next is None
    assert all(r.branch == (0, 0) for r in vm.model.rows() if r.message_id not in (None, edited.id))


def test_calls_after_the_worker_shut_down_are_dropped_quietly(qtbot, backend) -> None:
    worker = AsyncWorker()
    vm = make_vm(backend, worker)
    worker.shutdown()
    assert vm.send("late") is True  # the window is closing: nothing runs and nothing raises
    vm.stop()
    vm.open("s1")
    settle(qtbot, worker)
    assert backend.calls == []


def test_the_full_original_of_a_truncated_tool_result_opens_in_a_reader(qtbot, backend, worker) -> None:
    s = backend.add_session("Chat", ["fetch it", "ok"])
    backend.add_tool_round(s.id, "http_request", "{}", "x" * 100, 5000)
    result_id = backend.messages[s.id][-1].id
    backend.full_outputs[result_id] = "y" * 5000
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    tool = next(r for r in vm.model.rows() if r.kind is RowKind.TOOL)
    assert tool.tool_truncated and tool.message_id == result_id
    with qtbot.waitSignal(vm.text_ready, timeout=3000) as got:
        vm.open_full_output(result_id, "http_request")
    assert got.args == ["http_request — full original (5,000 characters)", "y" * 5000]
    with qtbot.waitSignal(vm.notice, timeout=3000) as said:
        vm.open_full_output("unknown", "http_request")
    assert "was not kept" in said.args[0]


def test_while_the_model_thinks_an_open_thinking_section_streams_and_closes_when_the_reply_starts(
        qtbot, backend, worker) -> None:
    from domain.events import ThinkingDelta
    from ui.models.chat_rows import RowKind

    s = backend.add_session("Chat")
    # thinking held until the open section has been seen, then a second more of it (the time shown is the time taken)
    thought = Gate()
    backend.scripts.append([ThinkingDelta("Weigh "), ThinkingDelta("the options."), thought, 1.0, TextDelta("Answer."),
                            Gate()])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, s.id)
    vm.send("Think first")
    qtbot.waitUntil(lambda: any(r.kind is RowKind.THINKING and r.streaming and r.text == "Weigh the options."
                                for r in vm.model.rows()))
    thought.open()
    qtbot.waitUntil(lambda: any(r.kind is RowKind.ASSISTANT and r.text == "Answer." for r in vm.model.rows()))
    rows = vm.model.rows()
    thinking = next(r for r in rows if r.kind is RowKind.THINKING)
    assert not thinking.streaming and thinking.thinking_ms is not None and thinking.thinking_ms >= 1_000
    assert rows.index(thinking) == len(rows) - 2  # right above the reply it led to
    vm.stop()
    qtbot.waitUntil(lambda: not vm.state.streaming)
