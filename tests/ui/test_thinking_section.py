"""The Thinking section above a reply: streams open while the model reasons, closes when the reply starts (with how
long it thought), reopens on a click with its token count; redacted reasoning is shown as such. Screenshots in
tests/_artifacts/: thinking_streaming.png, thinking_collapsed.png, thinking_expanded.png (light), dark too."""

from __future__ import annotations

from PySide6.QtCore import Qt

from domain.events import TextDelta, ThinkingDelta
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind
from tests.ui.gate import Gate
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.models.chat_rows import RowKind, rows_from_messages, thinking_status

THOUGHT = ("The user wants jitter. Full jitter (sleep = random(0, base·2ⁿ)) spreads retries best, but the cap "
           "matters more at 30 s. I should keep the signature the same and add `cap` and `jitter` keywords; "
           "time.sleep(random.uniform(0, min(cap, base * 2 ** n))) is the whole change.")


def _rows(*messages: Message):
    return rows_from_messages(messages, boundary_seq=None, summarized_count=0, show_originals=False,
                              has_older=False)


def test_a_reply_that_reasoned_gets_a_collapsed_thinking_row_above_it_with_time_and_tokens() -> None:
    answer = Message("m2", "s", MessageType.AI_RESPONSE, "Use full jitter.", seq=2, thinking_content=THOUGHT,
                     thinking_ms=12_400, reasoning_tokens=1_380)
    rows = _rows(Message("m1", "s", MessageType.USER, "jitter?", seq=1), answer)
    assert [r.kind for r in rows] == [RowKind.USER, RowKind.THINKING, RowKind.ASSISTANT]
    assert rows[1].text == THOUGHT and not rows[1].streaming
    assert thinking_status(rows[1]) == "12 s · 1,380 tokens"


def test_redacted_reasoning_and_a_tool_round_that_only_thought_are_shown_and_signatures_alone_are_not() -> None:
    hidden = ReasoningBlock(ReasoningKind.REDACTED, data="opaque")
    signature = ReasoningBlock(ReasoningKind.SIGNATURE, signature="sig")
    redacted = Message("m1", "s", MessageType.AI_RESPONSE, "Done.", seq=1, reasoning=(hidden,), thinking_ms=900)
    thought_only = Message("m2", "s", MessageType.AI_RESPONSE, "", seq=2, thinking_content="Fetch it first.")
    signed = Message("m3", "s", MessageType.AI_RESPONSE, "Hi.", seq=3, reasoning=(signature,))
    rows = _rows(redacted, thought_only, signed)
    assert [r.kind for r in rows] == [RowKind.THINKING, RowKind.ASSISTANT, RowKind.THINKING, RowKind.ASSISTANT]
    assert thinking_status(rows[0]) == "0.9 s · redacted by the provider"
    assert thinking_status(rows[2]) == ""  # no count reported: no figure of the UI's own arithmetic


def test_thinking_streams_open_then_closes_and_a_click_opens_it(qtbot, backend, worker, artifacts) -> None:
    sid = demo_sessions(backend)
    thought = Gate()  # the reasoning streams until the test has looked at it
    backend.scripts.append([ThinkingDelta(THOUGHT[:120]), 0.05, ThinkingDelta(THOUGHT[120:]), thought,
                            TextDelta("Use **full jitter** and a cap:\n\n"), 0.1,
                            TextDelta("```python\ntime.sleep(random.uniform(0, min(cap, base * 2 ** n)))\n```")])
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.send("Can you make the backoff jittered, capped at 30 s?")
    model = window.chat_vm.model
    qtbot.waitUntil(lambda: any(r.kind is RowKind.THINKING and r.streaming and r.text == THOUGHT
                                for r in model.rows()))
    settle(qtbot, worker)
    view = window.chat_view
    streaming_row = next(r for r in model.rows() if r.kind is RowKind.THINKING)
    open_height = _row_rect(view, model, streaming_row.key).height()
    assert open_height > 60  # the reasoning shows while it streams (closed: one 40 px header line)
    assert distinct_colors(saved(window, artifacts / "thinking_streaming.png")) > 5
    thought.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming, timeout=5000)
    qtbot.waitUntil(lambda: any(r.kind is RowKind.THINKING and r.message_id for r in model.rows()))
    settle(qtbot, worker)
    stored = next(r for r in model.rows() if r.kind is RowKind.THINKING)
    assert thinking_status(stored) == "12 s · 1,380 tokens"
    closed = _row_rect(view, model, stored.key)
    assert closed.height() < 50  # closed once the reply started: only its header line
    assert distinct_colors(saved(window, artifacts / "thinking_collapsed.png")) > 5
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=closed.topLeft() + _header_point())
    qtbot.waitUntil(lambda: model.is_expanded(stored.key))
    settle(qtbot, worker)
    assert _row_rect(view, model, stored.key).height() > 60
    assert distinct_colors(saved(window, artifacts / "thinking_expanded.png")) > 5
    dark = themed_window(qtbot, backend, worker, dark=True)
    open_session(qtbot, dark, window.chat_vm.state.session.id)
    key = next(r.key for r in dark.chat_vm.model.rows() if r.kind is RowKind.THINKING)
    dark.chat_vm.model.toggle_expanded(key)
    settle(qtbot, worker)
    assert distinct_colors(saved(dark, artifacts / "thinking_expanded_dark.png")) > 5


def _header_point():
    from PySide6.QtCore import QPoint

    return QPoint(40, 20)


def _row_rect(view, model, key: str):
    row = next(i for i, r in enumerate(model.rows()) if r.key == key)
    view.scrollTo(model.index(row, 0))
    return view.visualRect(model.index(row, 0))



