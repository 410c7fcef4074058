"""find_cut_index: keep about a quarter of the window, cut at the start of a user turn."""

from __future__ import annotations

from domain.context.alternation import normalize
from domain.context.cut_point import find_cut_index
from domain.context.estimator import TokenEstimator
from domain.models import MessageType
from tests.domain.conversation import Conversation

EST = TokenEstimator()


def long_chat(turns: int, words: int = 200) -> Conversation:
    c = Conversation()
    for i in range(turns):
        c.exchange(f"question {i} " + "word " * words, f"answer {i} " + "word " * words)
    return c


def test_cut_snaps_forward_to_the_start_of_a_user_turn() -> None:
    c = long_chat(20)
    msgs = normalize(c.messages)
    keep = EST.estimate_messages(msgs[-7:]) - 10  # the walk stops inside an assistant reply
    cut = find_cut_index(msgs, keep, EST)
    assert cut is not None and msgs[cut].type is MessageType.USER
    assert EST.estimate_messages(msgs[cut:]) <= keep + EST.estimate_message(msgs[cut - 1])


def test_everything_fitting_in_the_kept_part_means_no_cut() -> None:
    c = long_chat(3)
    assert find_cut_index(normalize(c.messages), 1_000_000, EST) is None


def test_no_cut_on_an_empty_list() -> None:
    assert find_cut_index([], 10, EST) is None


def test_cut_never_falls_inside_a_tool_call_and_result_pair() -> None:
    c = Conversation()
    c.user("old " * 300)
    c.assistant("ok " * 300)
    c.user("run the tools")
    for i in range(10):
        c.tool_round(f"output {i} " + "data " * 300, text=f"step {i}")
    c.assistant("finished")
    msgs = normalize(c.messages)
    for keep in range(100, EST.estimate_messages(msgs), 250):
        cut = find_cut_index(msgs, keep, EST)
        if cut is None:
            continue
        assert msgs[cut].type in (MessageType.USER, MessageType.AI_RESPONSE, MessageType.TOOL_CALL)
        assert msgs[cut - 1].type is not MessageType.TOOL_CALL


def test_one_long_tool_turn_is_cut_after_a_complete_tool_round() -> None:
    c = Conversation()
    c.user("do a long task")
    for i in range(10):
        c.tool_round("data " * 400, text=f"step {i}")
    msgs = normalize(c.messages)
    cut = find_cut_index(msgs, EST.estimate_messages(msgs) // 4, EST)
    assert cut is not None
    assert msgs[cut].type is MessageType.AI_RESPONSE and msgs[cut - 1].type is MessageType.TOOL_RESULT


def test_a_newest_turn_bigger_than_the_kept_part_is_kept_whole_and_older_turns_are_cut() -> None:
    c = long_chat(5)
    c.user("read the log")
    c.tool_round("line " * 5_000)
    msgs = normalize(c.messages)
    cut = find_cut_index(msgs, 500, EST)
    assert cut is not None and msgs[cut].content == "read the log"


def test_a_newest_tool_turn_within_the_keep_limit_is_kept_whole_with_the_users_request() -> None:
    c = long_chat(6)
    c.user("fetch the incident page and summarize it")
    c.tool_round("incident line " * 900, text="Fetching.")
    c.assistant("Two incidents, both resolved.")
    msgs = normalize(c.messages)
    newest_turn = EST.estimate_messages(msgs[-5:])  # the user request, reply, call, result, final reply
    keep = newest_turn // 2  # the newest turn alone is bigger than the kept share
    without_limit = find_cut_index(msgs, keep, EST)
    assert without_limit is not None and msgs[without_limit].type is MessageType.AI_RESPONSE  # only the last reply
    cut = find_cut_index(msgs, keep, EST, max_keep_tokens=2 * keep + 1)
    assert cut is not None and msgs[cut].content == "fetch the incident page and summarize it"
    too_small = find_cut_index(msgs, keep, EST, max_keep_tokens=keep)
    assert too_small == without_limit  # a turn over the limit is still cut after its complete tool round
