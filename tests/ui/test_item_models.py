"""The custom list models pass Qt's model tester and update by key without resetting."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.models import Session
from ui.models.chat_rows import ChatRow, RowKind
from ui.models.message_list import EXPANDED_ROLE, ROW_ROLE, MessageListModel
from ui.models.session_list import SessionListModel, plain_preview, relative_time, rows_for


def row(key: str, text: str = "") -> ChatRow:
    return ChatRow(RowKind.USER, key, text=text or key)


def test_message_list_model_passes_the_model_tester(qtmodeltester) -> None:
    model = MessageListModel()
    model.set_rows([row("a"), row("b"), ChatRow(RowKind.DIVIDER, "divider", text="2 earlier messages summarized")])
    qtmodeltester.check(model)
    model.set_rows([row("x"), row("a"), row("b", "changed")])
    model.append(row("c"))
    model.toggle_expanded("a")
    qtmodeltester.check(model)


def test_session_list_model_passes_the_model_tester(qtmodeltester) -> None:
    model = SessionListModel()
    now = datetime.now(UTC)
    model.set_rows(rows_for([Session("s1", "One", None, now, now, last_message_preview="**hi** `x`")], None))
    qtmodeltester.check(model)
    assert model.index(0).data() == "One"


def test_prepending_older_rows_inserts_at_the_top_without_a_reset(qtbot) -> None:
    model = MessageListModel()
    model.set_rows([row("c"), row("d")])
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.modelReset.connect(lambda: inserted.append((-1, -1)))
    model.set_rows([row("a"), row("b"), row("c"), row("d")])
    assert inserted == [(0, 1)]
    assert [r.key for r in model.rows()] == ["a", "b", "c", "d"]


def test_a_streaming_row_changes_in_place(qtbot) -> None:
    model = MessageListModel()
    model.set_rows([row("u"), row("live", "Hel")])
    changed: list[int] = []
    model.dataChanged.connect(lambda top, _bottom, _roles=(): changed.append(top.row()))
    model.set_rows([row("u"), row("live", "Hello")])
    assert changed == [1]
    assert model.index(1).data(ROW_ROLE).text == "Hello"


def test_replacing_the_tail_removes_live_rows_and_inserts_stored_ones() -> None:
    model = MessageListModel()
    model.set_rows([row("m1"), row("live-user"), row("live-reply")])
    model.set_rows([row("m1"), row("m2"), row("m3")])
    assert [r.key for r in model.rows()] == ["m1", "m2", "m3"]
    assert model.position("m3") == 2


def test_expanding_a_row_is_remembered_per_key() -> None:
    model = MessageListModel()
    model.set_rows([row("t")])
    model.toggle_expanded("t")
    assert model.index(0).data(EXPANDED_ROLE) is True
    model.toggle_expanded("t")
    assert model.index(0).data(EXPANDED_ROLE) is False


def test_sidebar_preview_drops_markdown_punctuation() -> None:
    assert plain_preview("**Sure** — ```python\ndef f(): pass```") == "Sure — def f(): pass"


def test_relative_time_reads_like_a_person_would_say_it() -> None:
    now = datetime(2026, 3, 12, 12, 0, tzinfo=UTC)
    assert relative_time(datetime(2026, 3, 12, 11, 55, tzinfo=UTC), now) == "5 min"
    assert relative_time(datetime(2026, 3, 11, 10, 0, tzinfo=UTC), now) == "yesterday"
    assert relative_time(datetime(2026, 3, 1, tzinfo=UTC), now) == "01 Mar"


def test_sidebar_preview_keeps_underscores_in_identifiers() -> None:
    assert plain_preview("Done — `with_retries` now sleeps") == "Done — with_retries now sleeps"
