"""CompactAwareMessageBuilder: summary in the system prompt, only recent messages, valid alternation."""

from __future__ import annotations

from domain.context.alternation import is_synthetic, normalize
from domain.context.builder import CONTINUE_LINE, CompactAwareMessageBuilder, inject_summary
from domain.models import MessageType
from tests.domain.conversation import Conversation
from tests.domain.invariants import assert_valid_request
from tests.fakes import make_session

BUILDER = CompactAwareMessageBuilder()


def test_without_a_summary_the_prompt_and_every_message_are_sent() -> None:
    c = Conversation()
    c.exchange("hi", "hello")
    c.exchange("how are you", "fine")
    built = BUILDER.build(make_session(), c.messages, "Be brief.")
    assert built.system_prompt == "Be brief."
    assert built.messages == c.messages


def test_summary_is_prepended_to_the_system_prompt() -> None:
    assert inject_summary("Be brief.", "We fixed bug 7.") == (
        "Previous conversation summary:\nWe fixed bug 7.\n\n---\n\nBe brief."
    )


def test_summary_without_a_system_prompt_gets_a_continue_line() -> None:
    assert inject_summary(None, "S") == f"Previous conversation summary:\nS\n\n---\n\n{CONTINUE_LINE}"


def test_with_a_summary_only_messages_from_the_boundary_on_are_sent() -> None:
    c = Conversation()
    c.exchange("old question", "old answer")
    c.exchange("new question", "new answer")
    session = make_session(compacted_summary="S", compact_boundary=3)
    built = BUILDER.build(session, c.messages, "P")
    assert [m.content for m in built.messages] == ["new question", "new answer"]
    assert built.system_prompt is not None and built.system_prompt.startswith("Previous conversation summary:\nS")


def test_error_messages_are_not_sent() -> None:
    c = Conversation()
    c.user("q1")
    c.error()
    c.user("q1 again")
    c.assistant("answer")
    built = BUILDER.build(make_session(), c.messages, None)
    assert all(m.type is not MessageType.ERROR for m in built.messages)
    assert_valid_request(built.messages)
    assert [m.content for m in built.messages if not is_synthetic(m)] == ["q1", "q1 again", "answer"]


def test_a_recent_window_starting_with_an_assistant_message_is_made_valid() -> None:
    c = Conversation()
    c.user("old")
    c.assistant("reply that stays after the boundary")
    c.exchange("next", "ok")
    session = make_session(compacted_summary="S", compact_boundary=2)
    built = BUILDER.build(session, c.messages, None)
    assert built.messages[0].type is MessageType.USER and is_synthetic(built.messages[0])
    assert built.messages[1].content == "reply that stays after the boundary"
    assert_valid_request(built.messages)


def test_tool_calls_without_results_and_orphan_results_are_dropped() -> None:
    c = Conversation()
    c.user("go")
    call, _result = c.tool_round("out")
    c.assistant("done")
    broken = [m for m in c.messages if m.type is not MessageType.TOOL_RESULT]
    built = normalize(broken)
    assert call not in built
    assert_valid_request(built)
    orphan = normalize([c.messages[0], c.messages[2], c.messages[3]])
    assert all(m.type is not MessageType.TOOL_RESULT for m in orphan)


def test_consecutive_replies_get_a_placeholder_turn_between_them() -> None:
    c = Conversation()
    c.user("q")
    c.assistant("part one")
    c.assistant("part two")
    built = normalize(c.messages)
    assert_valid_request(built)
    assert [m.content for m in built if not is_synthetic(m)] == ["q", "part one", "part two"]


def test_pinned_messages_behind_the_boundary_are_included_verbatim() -> None:
    c = Conversation()
    c.user("remember: the deploy key is in vault/prod", pinned=True)
    c.assistant("noted")
    c.exchange("later question", "later answer")
    session = make_session(compacted_summary="S", compact_boundary=3)
    built = BUILDER.build(session, c.messages[2:], None, pinned=[c.messages[0]])
    assert built.messages[0] == c.messages[0]
    assert_valid_request(built.messages)
    assert [m.content for m in built.messages if not is_synthetic(m)] == [
        "remember: the deploy key is in vault/prod", "later question", "later answer"
    ]
