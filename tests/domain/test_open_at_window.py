"""Opening at a search hit far back reads a window around it (not every message from it to the newest), pages on
down to the newest, and a hit in the newest page opens the newest page as before."""

from __future__ import annotations

from domain.chat.paths import BranchSwitcher
from domain.models import Message, MessageType
from domain.usecases.branches import CheckoutBranchUseCase
from domain.usecases.load_conversation import LoadConversationQuery
from domain.usecases.open_at_message import OpenAtMessageQuery
from tests.domain.test_branches import compact, seed
from tests.fakes_turn import TurnWorld, make_world


def query(world: TurnWorld) -> tuple[OpenAtMessageQuery, LoadConversationQuery]:
    conversation = LoadConversationQuery(world.sessions, world.messages)
    checkout = CheckoutBranchUseCase(BranchSwitcher(world.store, world.sessions, world.messages), world.sessions,
                                     world.messages)
    return OpenAtMessageQuery(world.sessions, world.messages, conversation, checkout), conversation


def ids(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [m.id for m in messages]


def test_a_hit_far_back_opens_a_window_around_it_that_says_newer_ones_follow() -> None:
    world = make_world()
    seed(world, 0, 199)  # u0 a0 .. u199 a199: 400 messages, seq 1..400
    open_at, _ = query(world)
    hit = open_at("s1", "u10", 20)
    page = hit.page
    assert ids(page.messages) == [f"{k}{i}" for i in range(5, 15) for k in "ua"]  # 10 before the hit, it, 9 after
    assert page.total_count == 400 and page.newer_count == 370 and page.has_newer and page.has_older
    assert page.newest_reply is not None and page.newest_reply.startswith("Answer 199:")
    assert not hit.switched_branch and not hit.behind_boundary


def test_paging_down_from_a_window_reaches_the_newest_message_once_each() -> None:
    world = make_world()
    seed(world, 0, 99)
    open_at, conversation = query(world)
    page = open_at("s1", "u3", 10).page
    shown = ids(page.messages)
    assert shown[0] == "a0" and page.newer_count == 200 - 1 - len(shown)
    newer = page.newer_count
    while newer:
        more = conversation.newer("s1", world.messages.get(shown[-1]).seq, 64)  # type: ignore[union-attr]
        assert more.newer_count < newer and (more.newest_reply is None) == (more.newer_count == 0)
        shown += ids(more.messages)
        newer = more.newer_count
    assert shown == [m.id for m in world.messages.snapshot("s1")][1:]  # every message once, in order, up to the newest


def test_a_hit_near_the_start_fills_the_window_after_it() -> None:
    world = make_world()
    seed(world, 0, 99)
    page = query(world)[0]("s1", "u0", 10).page
    assert ids(page.messages) == [f"{k}{i}" for i in range(5) for k in "ua"] and not page.has_older
    assert page.newer_count == 190


def test_a_hit_in_the_newest_page_opens_the_newest_page_as_before() -> None:
    world = make_world()
    seed(world, 0, 99)
    page = query(world)[0]("s1", "u95", 12).page
    assert ids(page.messages) == [f"{k}{i}" for i in range(94, 100) for k in "ua"]
    assert not page.has_newer and page.newer_count == 0 and page.newest_reply is None and page.has_older


def test_a_window_on_another_branch_checks_it_out_and_lists_the_versions_in_it() -> None:
    world = make_world()
    seed(world, 0, 4)
    BranchSwitcher(world.store, world.sessions, world.messages).switch("s1", "a1")
    seed(world, 10, 60)  # a long branch from a1
    BranchSwitcher(world.store, world.sessions, world.messages).switch("s1", "a4")
    hit = query(world)[0]("s1", "u12", 8)
    assert hit.switched_branch
    assert ids(hit.page.messages) == ["u10", "a10", "u11", "a11", "u12", "a12", "u13", "a13"]
    assert hit.page.siblings == {"u10": ("u2", "u10")}  # where it forks from the other branch: ‹ 2 / 2 ›
    assert hit.page.total_count == 4 + 102 and hit.page.newer_count == 106 - 4 - 8
    _, conversation = query(world)
    newer = conversation.newer("s1", world.messages.get("a1").seq, 2)  # type: ignore[union-attr]
    assert ids(newer.messages) == ["u10", "a10"] and newer.siblings == {"u10": ("u2", "u10")}  # a newer page's too


async def test_a_window_behind_the_boundary_says_so_and_counts_the_summarized() -> None:
    world = make_world(window=16_000)
    seed(world, 0, 7)
    await compact(world, "SUMMARY-ONE")
    boundary = world.sessions.get("s1").boundary  # type: ignore[union-attr]
    assert boundary is not None and boundary > 4
    hit = query(world)[0]("s1", "a0", 4)
    assert hit.behind_boundary and hit.page.has_newer and hit.page.summarized_count > 0
    assert ids(hit.page.messages) == ["u0", "a0", "u1", "a1"]


def test_a_message_of_another_type_in_the_newest_messages_is_not_taken_for_the_reply() -> None:
    world = make_world()
    seed(world, 0, 30)
    world.messages.add(Message("err", "s1", MessageType.ERROR, "rate limited"))
    world.messages.add(Message("u-last", "s1", MessageType.USER, "still there?"))
    page = query(world)[0]("s1", "u2", 6).page
    assert page.has_newer and page.newest_reply is not None and page.newest_reply.startswith("Answer 30:")
