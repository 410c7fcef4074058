"""The load benchmark's pure parts: the store's shape, its generated rows, the pause measure, the report."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from bench.load import render
from bench.load_store import BIG, MESSAGES, RARE_WORD, SESSIONS, _messages, _session_sizes, _Text


def test_one_big_session_and_ordinary_ones_add_up_to_the_whole_store() -> None:
    sizes = _session_sizes(random.Random(5))
    assert len(sizes) == SESSIONS and sum(sizes) == MESSAGES and sizes[0] == BIG
    assert all(80 <= size <= 400 for size in sizes[1:])


def test_a_session_has_exactly_its_messages_in_seq_order_with_paired_tool_rounds() -> None:
    text = _Text(random.Random(1))
    start = datetime(2025, 1, 1, tzinfo=UTC)
    rows = list(_messages(text, "s", 97, start, rare={2}))
    assert [r["seq"] for r in rows] == list(range(1, 98))
    assert [r["created_at"] for r in rows] == sorted(r["created_at"] for r in rows)
    calls = {r["tool_call_id"] for r in rows if r["type"] == "tool_call"}
    results = {r["tool_call_id"] for r in rows if r["type"] == "tool_result"}
    assert calls and calls == results
    assert sum(RARE_WORD in r["content"] for r in rows) == 1
    assert len({r["id"] for r in rows}) == 97


def test_the_same_seed_gives_the_same_text() -> None:
    first, second = _Text(random.Random(3)), _Text(random.Random(3))
    assert first.words[:50] == second.words[:50]
    assert first.reply() == second.reply() and first.tool_output() == second.tool_output()


def test_the_report_is_one_markdown_table_row_per_measure() -> None:
    report = render([("a measure", "12 ms", "≤ 200 ms", "met"), ("another", "3 ms", "—", "")], runs=5)
    lines = report.splitlines()
    assert lines[2:] == ["| measure | result | target | |", "|---|--:|--:|---|",
                         "| a measure | 12 ms | ≤ 200 ms | met |", "| another | 3 ms | — |  |"]


def test_a_session_is_one_chain_each_message_the_child_of_the_one_before() -> None:
    rows = list(_messages(_Text(random.Random(2)), "s", 60, datetime(2025, 1, 1, tzinfo=UTC), rare=set()))
    assert rows[0]["parent_id"] is None
    assert [r["parent_id"] for r in rows[1:]] == [r["id"] for r in rows[:-1]]
