"""Edit, regenerate, switch, delete and fork on a conversation tree, with compaction on both sides of a boundary:
a request after an edit never carries a summary of messages that are not on its path."""

from __future__ import annotations

from domain.chat.paths import BranchSwitcher
from domain.errors import InvalidInput, NotFound
from domain.events import ChatError, ResponseComplete
from domain.models import Message, MessageType
from domain.usecases.branches import CheckoutBranchUseCase, DeleteBranchUseCase, ListBranchesQuery
from domain.usecases.fork_session import ForkSessionUseCase
from tests.fakes_turn import TurnWorld, make_world, reply

FILLER = "lorem ipsum " * 170  # about 500 tokens a message


def seed(world: TurnWorld, first: int, last: int) -> None:
    """Turns `first`..`last` (user u<i>, reply a<i>) appended to the active path."""
    for i in range(first, last + 1):
        world.messages.add(Message(f"u{i}", "s1", MessageType.USER, f"Question {i}: {FILLER}"))
        world.messages.add(Message(f"a{i}", "s1", MessageType.AI_RESPONSE, f"Answer {i}: {FILLER}"))


async def compacted_world() -> TurnWorld:
    """Eight turns compacted once (SUMMARY-ONE covers the older ones)."""
    world = make_world(window=16_000)
    seed(world, 0, 7)
    await compact(world, "SUMMARY-ONE")
    return world


async def compact(world: TurnWorld, summary: str) -> None:
    """A forced compaction whose summary (every chunk of it) reads `summary`."""
    world.summarizer.replies.clear()
    world.summarizer.default = summary
    result = await world.auto_compact(world.context(), force=True)
    assert result.did_compact


def through_of(world: TurnWorld) -> str:
    """The id of the last message the summary in force covers."""
    record = world.sessions.compactions("s1")[-1]
    assert record.through_id is not None
    return record.through_id


def sent_texts(world: TurnWorld) -> list[str]:
    return [m.content[:11] for m in world.adapter().requests[-1].messages]


def switcher(world: TurnWorld) -> BranchSwitcher:
    return BranchSwitcher(world.store, world.sessions, world.messages)


async def test_editing_a_message_sends_a_sibling_and_keeps_the_old_branch() -> None:
    world = make_world()
    seed(world, 0, 2)
    world.adapter().scripts.append(reply("A fixed answer"))
    events = [e async for e in world.send("s1", "Question 1, fixed", edit="u1")]
    assert any(isinstance(e, ResponseComplete) for e in events)
    assert sent_texts(world) == ["Question 0:", "Answer 0: l", "Question 1,"]
    path = world.stored()
    assert [m.id for m in path[:2]] == ["u0", "a0"] and path[2].parent_id == "a0"
    assert [m.content for m in path[2:]] == ["Question 1, fixed", "A fixed answer"]
    assert world.messages.get("u1").parent_id == "a0" and not world.messages.get("u2").active
    branches = ListBranchesQuery(world.sessions, world.messages)("s1")
    assert [(b.leaf_id, b.fork_id, b.fork_parent_id, b.active) for b in branches] == [
        ("a2", "u1", "a0", False), (path[-1].id, path[2].id, "a0", True)]


async def test_editing_the_first_message_starts_a_new_root() -> None:
    world = make_world()
    seed(world, 0, 1)
    world.adapter().scripts.append(reply("fresh"))
    await world.turn("A new first question", edit="u0")
    assert sent_texts(world) == ["A new first"]
    assert world.stored()[0].parent_id is None and world.messages.get("u0") is not None


async def test_editing_is_refused_for_an_answer_an_unknown_id_and_empty_text_and_nothing_moves() -> None:
    world = make_world()
    seed(world, 0, 1)
    before = world.stored()
    for text, edit, kind in (("x", "a0", "invalid_input"), ("x", "nope", "not_found"), ("  ", "u1", "invalid_input")):
        events = [e async for e in world.send("s1", text, edit=edit)]
        assert [type(e) for e in events] == [ChatError] and events[0].kind == kind
    assert world.stored() == before and world.adapter().requests == []


async def test_regenerating_with_another_model_keeps_the_first_answer_as_a_branch() -> None:
    world = make_world()
    seed(world, 0, 1)
    world.adapter().scripts.append(reply("Haiku's take"))
    await world.turn("", retry=True, model_id="claude-haiku")
    assert sent_texts(world) == ["Question 0:", "Answer 0: l", "Question 1:"]
    newest = world.stored()[-1]
    assert (newest.content, newest.model_id, newest.parent_id) == ("Haiku's take", "claude-haiku", "u1")
    assert not world.messages.get("a1").active
    CheckoutBranchUseCase(switcher(world), world.sessions, world.messages)("s1", "a1")
    assert [m.id for m in world.stored()] == ["u0", "a0", "u1", "a1"]


async def test_editing_after_the_boundary_keeps_the_summary() -> None:
    world = await compacted_world()
    boundary = world.sessions.get("s1").boundary
    world.adapter().scripts.append(reply("ok"))
    await world.turn("Question 7, fixed", edit="u7")
    request = world.adapter().requests[-1]
    assert "SUMMARY-ONE" in (request.system_prompt or "")
    assert world.sessions.get("s1").boundary == boundary
    assert sent_texts(world)[-1] == "Question 7,"
    assert all(world.messages.get(m.id) is None or world.messages.get(m.id).seq >= boundary  # type: ignore[union-attr]
               for m in request.messages if m.id.startswith(("u", "a")) and m.id[1:].isdigit())


async def test_editing_before_the_boundary_sends_the_originals_and_no_summary_of_another_path() -> None:
    world = await compacted_world()
    through = through_of(world)
    assert world.messages.get(through).seq > world.messages.get("u1").seq  # u1 was summarized
    world.adapter().scripts.append(reply("ok"))
    await world.turn("Question 1, fixed", edit="u1")
    request = world.adapter().requests[-1]
    assert "SUMMARY-ONE" not in (request.system_prompt or "")
    assert sent_texts(world) == ["Question 0:", "Answer 0: l", "Question 1,"]
    session = world.sessions.get("s1")
    assert (session.summary, session.boundary) == (None, None)
    assert world.context().summary is None  # the gauge and `sessions context` measure the same path


async def test_an_edit_between_two_checkpoints_starts_from_the_earlier_one() -> None:
    world = await compacted_world()
    first_through = through_of(world)
    seed(world, 8, 15)
    await compact(world, "SUMMARY-TWO")
    assert through_of(world) != first_through
    second_through = world.messages.get(through_of(world))
    edited = next(m for m in world.stored() if m.type is MessageType.USER
                  and world.messages.get(first_through).seq < m.seq <= second_through.seq)
    switcher(world).switch("s1", edited.parent_id)
    assert world.sessions.get("s1").boundary == world.messages.get(first_through).seq + 1
    assert world.context().summary == "SUMMARY-ONE"
    world.adapter().scripts.append(reply("ok"))
    world.summarizer.default = "SUMMARY-LATER"
    await world.turn("An edit between the two", edit=edited.id)
    prompt = world.adapter().requests[-1].system_prompt or ""
    assert "SUMMARY-ONE" in prompt and "SUMMARY-TWO" not in prompt
    CheckoutBranchUseCase(switcher(world), world.sessions, world.messages)("s1", "a15")
    back = world.sessions.get("s1")
    assert back.summary == "SUMMARY-TWO" and back.boundary == second_through.seq + 1
    assert world.context().summary == "SUMMARY-TWO"


async def test_regenerating_after_the_boundary_keeps_the_summary() -> None:
    world = await compacted_world()
    world.adapter().scripts.append(reply("again"))
    await world.turn("", retry=True)
    assert "SUMMARY-ONE" in (world.adapter().requests[-1].system_prompt or "")
    assert sent_texts(world)[-1] == "Question 7:"


async def test_checking_out_a_message_before_the_boundary_drops_the_summary_it_does_not_hold_for() -> None:
    world = await compacted_world()
    CheckoutBranchUseCase(switcher(world), world.sessions, world.messages)("s1", "a1")
    # a1 has one child (u2): the newest leaf below it is still the whole conversation's leaf
    assert world.sessions.get("s1").summary == "SUMMARY-ONE"
    switcher(world).switch("s1", "a1")
    assert world.sessions.get("s1").summary is None and [m.id for m in world.stored()] == ["u0", "a0", "u1", "a1"]


def test_deleting_a_branch_removes_only_its_own_part_and_moves_to_the_newest_other() -> None:
    world = make_world()
    seed(world, 0, 1)
    switcher(world).switch("s1", "u0")
    world.messages.add(Message("b1", "s1", MessageType.AI_RESPONSE, "another answer"))
    world.messages.add(Message("b2", "s1", MessageType.USER, "more"))
    delete = DeleteBranchUseCase(world.store, switcher(world), world.sessions, world.messages)
    try:
        delete("s1", "u0")
    except InvalidInput as err:
        assert "shared" in str(err)
    else:
        raise AssertionError("deleting a shared message must be refused")
    assert sorted(delete("s1", "b2")) == ["b1", "b2"]
    assert [m.id for m in world.stored()] == ["u0", "a0", "u1", "a1"]
    assert world.sessions.get("s1").message_count == 4
    try:
        delete("s1", "a1")
    except InvalidInput as err:
        assert "only one branch" in str(err)
    else:
        raise AssertionError("deleting the only branch must be refused")


async def test_forking_copies_the_path_and_the_summary_that_holds_on_it() -> None:
    world = await compacted_world()
    fork = ForkSessionUseCase(world.store, world.sessions, world.messages, world.clock, new_id=iter(
        f"f{i}" for i in range(100)).__next__)
    forked = fork("s1", "a7")
    copied = list(world.messages.snapshot(forked.id))
    assert [m.content for m in copied] == [m.content for m in world.stored()]
    assert forked.title == "Test (fork)" and forked.summary == "SUMMARY-ONE"
    through = world.messages.get(through_of(world))
    assert forked.boundary == through.seq + 1  # the same position on the copied path
    early = fork("s1", "a1")
    assert early.summary is None and len(world.messages.snapshot(early.id)) == 4
    try:
        fork("s1", "nope")
    except NotFound:
        pass
    else:
        raise AssertionError("an unknown message must be NotFound")


async def test_a_fork_keeps_the_conversations_reasoning_level_and_its_own_system_prompt() -> None:
    from dataclasses import replace

    world = await compacted_world()
    world.sessions.update(replace(world.sessions.get("s1"), reasoning="high", system_prompt="Answer in French."))
    fork = ForkSessionUseCase(world.store, world.sessions, world.messages, world.clock, new_id=iter(
        f"f{i}" for i in range(100)).__next__)
    forked = fork("s1", "a7")
    assert world.sessions.get(forked.id).reasoning == "high"
    assert world.sessions.get(forked.id).system_prompt == "Answer in French."


def test_the_chat_pages_read_the_active_path_past_a_long_other_branch() -> None:
    from domain.usecases.load_conversation import LoadConversationQuery

    world = make_world()
    seed(world, 0, 4)  # u0..a4: seq 1..10
    switcher(world).switch("s1", "a1")
    seed(world, 10, 40)  # a long branch from a1, then back to the first one
    switcher(world).switch("s1", "a4")
    query = LoadConversationQuery(world.sessions, world.messages)
    page = query.page("s1", 4)
    assert [m.id for m in page.messages] == ["u3", "a3", "u4", "a4"] and page.total_count == 10 and page.has_older
    assert page.siblings == {}
    older = query.older("s1", page.messages[0].seq, 4)
    assert [m.id for m in older] == ["u1", "a1", "u2", "a2"]  # not the other branch's seq 11..72
    assert query.page("s1", 4).siblings == {} and query.page("s1", 10).siblings == {"u2": ("u2", "u10")}


def test_an_older_page_lists_the_versions_of_its_messages_for_the_switcher() -> None:
    from domain.usecases.load_conversation import LoadConversationQuery

    world = make_world()
    seed(world, 0, 4)
    switcher(world).switch("s1", "a1")
    seed(world, 10, 40)
    switcher(world).switch("s1", "a4")
    query = LoadConversationQuery(world.sessions, world.messages)
    page = query.page("s1", 4)
    older = query.older_page("s1", page.messages[0].seq, 4)
    assert [m.id for m in older.messages] == ["u1", "a1", "u2", "a2"] and older.total_count == 10
    assert older.siblings == {"u2": ("u2", "u10")} and not older.has_newer
