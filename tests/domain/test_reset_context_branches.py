"""Reset context belongs to the path it was made on: switching branches and back does not bring the summary back."""

from __future__ import annotations

from domain.usecases.reset_context import ResetContextUseCase
from tests.domain.test_branches import compact, compacted_world, sent_texts, switcher
from tests.fakes_turn import TurnWorld, reply


def reset(world: TurnWorld) -> None:
    ResetContextUseCase(world.sessions, world.messages, world.clock)("s1")


async def two_branches() -> tuple[TurnWorld, str, str]:
    """A compacted conversation whose last answer was regenerated: (world, old leaf, new leaf), on the new one."""
    world = await compacted_world()
    old = world.stored()[-1].id
    world.adapter().scripts.append(reply("another answer"))
    await world.turn("", retry=True)
    new = world.stored()[-1].id
    assert new != old and world.sessions.get("s1").summary == "SUMMARY-ONE"
    return world, old, new


async def test_a_reset_holds_after_switching_to_another_branch_and_back() -> None:
    world, old, new = await two_branches()
    reset(world)
    assert world.sessions.get("s1").summary is None
    switcher(world).switch("s1", old)  # the other branch was not reset: its summary holds there
    assert world.sessions.get("s1").summary == "SUMMARY-ONE"
    switcher(world).switch("s1", new)
    session = world.sessions.get("s1")
    assert (session.summary, session.boundary) == (None, None)
    assert world.context().summary is None  # the gauge and `sessions context` measure the originals
    world.adapter().scripts.append(reply("ok"))
    await world.turn("One more question")
    request = world.adapter().requests[-1]
    assert "SUMMARY-ONE" not in (request.system_prompt or "")
    assert sent_texts(world)[:2] == ["Question 0:", "Answer 0: l"]  # every original is sent again


async def test_a_compaction_after_the_reset_holds_on_that_path_again() -> None:
    world, old, new = await two_branches()
    reset(world)
    await compact(world, "SUMMARY-AFTER-RESET")
    switcher(world).switch("s1", old)
    switcher(world).switch("s1", new)
    assert world.sessions.get("s1").summary == "SUMMARY-AFTER-RESET"
    assert world.context().summary == "SUMMARY-AFTER-RESET"


async def test_the_reset_is_logged_without_a_summary_and_is_not_counted_as_a_compaction() -> None:
    world, _, new = await two_branches()
    count = world.sessions.get("s1").compaction_count
    reset(world)
    logged = world.sessions.compactions("s1")[-1]
    assert (logged.trigger, logged.summary, logged.through_id) == ("reset", None, new)
    assert world.sessions.get("s1").compaction_count == count
    reset(world)  # again, with no summary left to drop: nothing more is logged
    assert world.sessions.compactions("s1")[-1] == logged and len(world.sessions.compactions("s1")) == count + 1
