"""The adapters' memo of what earlier requests shaped gives exactly what shaping from scratch gives: the turns
(TurnMemo against to_turns) and Anthropic's request (anthropic_request with and without its ShapeMemo)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from data.providers.anthropic_shape import ShapeMemo, anthropic_request, shape_turns
from data.providers.conversation import AttachmentBlock, TextBlock, Turn, TurnWalk, to_turns
from data.providers.turn_memo import TurnMemo
from domain.attachment import Attachment, AttachmentKind
from domain.models import Message, MessageType, ToolDefinition
from tests.providers.helpers import History

CALL_IDS = ("a", "b", "c")
STEP = st.one_of(
    st.tuples(st.just("user"), st.sampled_from(["hi", "", "more"])),
    st.tuples(st.just("ai"), st.sampled_from(["ok", "", "done"])),
    st.tuples(st.just("call"), st.sampled_from(CALL_IDS)),
    st.tuples(st.just("result"), st.sampled_from(CALL_IDS)),
    st.tuples(st.just("error"), st.just("boom")),
)
TOOLS = (ToolDefinition("t", "a tool", {"type": "object"}),)


def _history(steps: list[tuple[str, str]]) -> list[Message]:
    history = History()
    for n, (kind, arg) in enumerate(steps):
        if kind == "user":
            history.user(arg)
        elif kind == "ai":
            history.ai(arg)
        elif kind == "call":
            history.call(arg, "t", {"n": n})
        elif kind == "result":
            history.result(arg, "t", f"out {n}", error=n % 3 == 0)
        else:
            history.error(arg)
    return list(history.messages)


def _request(messages: list[Message], memo: ShapeMemo | None, tools: tuple[ToolDefinition, ...] = TOOLS
             ) -> dict[str, Any]:
    return anthropic_request(model_id="claude-sonnet-4-5", system_prompt="be brief", messages=messages, tools=tools,
                             max_output_tokens=1000, provider_id="anthropic", memo=memo)


def _pruned(message: Message, how: int) -> Message:
    """Another object for the message: the same, or (a tool result) its output trimmed, cleared or gone."""
    if message.type is not MessageType.TOOL_RESULT or how == 0:
        return replace(message)
    output = message.tool_output or ""
    return replace(message, tool_output=[output[:3] + "…", "[cleared]", None][how - 1], content="pruned")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, max_size=30),
       copies=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 30), st.integers(0, 3)), max_size=3),
       tool_blocks=st.booleans())
@example(steps=[("user", "hi"), ("call", "a"), ("result", "a"), ("user", "more"), ("ai", "ok"), ("user", "more"),
                ("ai", "ok"), ("user", "hi")], copies=[(2, 6, how) for how in (1, 2, 3)], tool_blocks=True)
def test_the_memo_walks_a_growing_list_to_the_same_turns(
    steps: list[tuple[str, str]], copies: list[tuple[int, int, int]], tool_blocks: bool
) -> None:
    """Each request adds messages, and from some request on an older message comes as another object (a copy, or a
    tool result the pruner trimmed or cleared): results stored after a later user message, calls without results,
    repeated call ids included."""
    messages = _history(steps)
    memo = TurnMemo()
    for end in range(len(messages) + 1):
        shown = messages[:end]
        for i, start, how in copies:
            if i < end and end >= start:
                shown[i] = _pruned(shown[i], how)
        assert memo.turns(shown, tool_blocks=tool_blocks) == to_turns(shown, tool_blocks=tool_blocks)


def test_an_older_result_pruned_between_requests_does_not_walk_the_list_again(monkeypatch: pytest.MonkeyPatch
                                                                              ) -> None:
    """The pruner trims an older tool result when a new one comes: the walk goes on after the prefix it kept, that
    result's block made again; any other message that changed walks the list from its start as before."""
    history = History()
    for n in range(10):
        history.user(f"question {n}").ai("").call(f"c{n}", "t", {"n": n}).result(f"c{n}", "t", f"page {n} " * 50)
        history.ai(f"answer {n}")
    memo = TurnMemo()
    messages = list(history.user("next").messages)
    memo.turns(messages)
    fed: list[Message] = []
    feed = TurnWalk.feed
    monkeypatch.setattr(TurnWalk, "feed", lambda walk, message: (fed.append(message), feed(walk, message))[1])
    at = next(i for i, m in enumerate(messages) if m.tool_call_id == "c2" and m.type is MessageType.TOOL_RESULT)
    pruned = [*messages[:at], _pruned(messages[at], 2), *messages[at + 1:]]
    turns = memo.turns(pruned)
    assert fed == [pruned[-1]]  # only what comes after the kept prefix (the last user message)
    assert turns == to_turns(pruned) != to_turns(messages)
    fed.clear()
    edited = [*pruned[:1], replace(pruned[1], content="other"), *pruned[2:]]  # a reply: not a pruned result
    turns = memo.turns(edited)
    assert len(fed) == len(edited) and turns == to_turns(edited)


def test_a_result_stored_after_a_later_user_message_answers_its_call_in_the_memo_too() -> None:
    """The prefix walked before closed the call unanswered; a result arriving later changes that turn."""
    history = History().user("q").ai().call("a", "t", {}).user("wait").ai("hm")
    memo = TurnMemo()
    memo.turns(history.messages)
    later = history.result("a", "t", "late").user("and?").messages
    assert memo.turns(later) == to_turns(later)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, max_size=24), tools=st.booleans())
def test_anthropic_requests_are_the_same_with_the_memo(steps: list[tuple[str, str]], tools: bool) -> None:
    messages = _history(steps)
    memo = ShapeMemo()
    for end in range(len(messages) + 1):
        offered = TOOLS if tools else ()
        assert _request(messages[:end], memo, offered) == _request(messages[:end], None, offered)


def test_the_cache_breakpoint_never_stays_on_a_kept_turn() -> None:
    """The last block carries cache_control in its own request only: a later request that has the same turn
    object further up sends it unmarked (its kept shape is never marked)."""
    memo = ShapeMemo()
    turns = to_turns(History().user("one").ai("two").user("three").messages)
    shape_turns(turns, memo=memo)
    longer = [*turns, *to_turns(History().ai("four").user("five").messages, user_first=False)]
    shaped = shape_turns(longer, memo=memo)
    marked = [block for turn in shaped for block in turn["content"] if "cache_control" in block]
    assert marked == [shaped[-1]["content"][-1]]
    assert shaped == shape_turns(longer)


def test_only_the_last_requests_plain_turns_are_kept() -> None:
    """Nothing is held beyond what the last request held, and a turn with a file (whose shape reads the file's
    current form) is never kept."""
    memo = ShapeMemo()
    first = to_turns(History().user("one").ai("two").user("three").messages)
    shape_turns(first, memo=memo)
    assert all(memo.shaped(turn) is not None for turn in first)
    photo = Attachment(sha256="0" * 64, name="a.png", media_type="image/png", kind=AttachmentKind.IMAGE, size=10,
                       omitted=True)
    other = [Turn("user", (AttachmentBlock(photo), TextBlock("look"))), Turn("assistant", (TextBlock("seen"),))]
    shape_turns(other, memo=memo)
    assert [memo.shaped(turn) is not None for turn in [*first, *other]] == [False] * len(first) + [False, True]


def test_a_request_that_begins_with_the_last_ones_turns_takes_their_shapes_at_once(monkeypatch: pytest.MonkeyPatch
                                                                                   ) -> None:
    """The leading turns the last request shaped and kept, the same objects again, are not looked up one by one;
    the run stops at the first turn that was not kept (a file's), whose shape is made again."""
    memo = ShapeMemo()
    turns = to_turns(History().user("one").ai("two").user("three").ai("four").user("five").messages)
    shape_turns(turns, memo=memo)
    looked_up: list[Turn] = []
    shaped = memo.shaped

    def looking_up(turn: Turn) -> dict[str, Any] | None:
        looked_up.append(turn)
        return shaped(turn)

    monkeypatch.setattr(memo, "shaped", looking_up)
    longer = [*turns, *to_turns(History().ai("six").user("seven").messages, user_first=False)]
    assert shape_turns(longer, memo=memo) == shape_turns(longer)
    assert looked_up == longer[len(turns):]  # the five earlier turns came as a run
    photo = Attachment(sha256="0" * 64, name="a.png", media_type="image/png", kind=AttachmentKind.IMAGE, size=10,
                       omitted=True)
    with_file = [*longer[:2], Turn("user", (AttachmentBlock(photo), TextBlock("look"))), *longer[3:]]
    assert shape_turns(with_file, memo=memo) == shape_turns(with_file)
    assert len(memo.prefix(with_file)) == 2 and len(memo.prefix(longer)) == 2  # up to the file's turn only
