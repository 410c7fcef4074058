"""ContainerBackend over the real Container: a search hit opens at its message (on its branch, behind the boundary),
and archived sessions leave the list but stay searchable."""

from __future__ import annotations

import pytest

from app.gui.bridge import ContainerBackend
from domain.errors import NotFound
from tests.fakes_turn import FakeAdapterFactory, reply
from tests.ui.test_bridge import CLAUDE, bridge, container, factory, turn  # noqa: F401  (fixtures)


async def test_a_hit_on_another_branch_behind_the_boundary_opens_there(
    bridge: ContainerBackend, factory: FakeAdapterFactory  # noqa: F811
) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    session = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, session.id, "where did the albatross land " + "word " * 400)
    for i in range(5):
        await turn(bridge, factory, session.id, f"fact number {i} " + "word " * 400)
    first = (await bridge.load_conversation(session.id, tail=200)).messages[0]
    factory.adapter("anthropic").scripts.append(reply("re: edited"))
    [e async for e in bridge.edit(session.id, first.id, "a different first question", CLAUDE)]
    path = await bridge.load_conversation(session.id, tail=200)
    assert first.id not in {m.id for m in path.messages}  # the albatross is on the other branch now
    hits = await bridge.search_sessions("albatross")
    assert [(h.session_id, h.message_id) for h in hits] == [(session.id, first.id)]

    hit = await bridge.open_at(session.id, first.id, tail=2)
    assert hit.switched_branch and hit.message_id == first.id
    assert hit.page.messages[0].id == first.id and len(hit.page.messages) == 2  # a window from the hit (tail 2)
    assert hit.page.newer_count == 10 and hit.page.total_count == 12  # the rest of the path follows on demand
    newer = await bridge.load_newer(session.id, hit.page.messages[-1].seq, 20)
    assert len(newer.messages) == 10 and not newer.has_newer

    factory.adapter("anthropic").completions.append("## Goal\nRemember the facts.")
    assert (await bridge.compact_now(session.id, CLAUDE, None)).did_compact
    behind = await bridge.open_at(session.id, first.id, tail=2)
    assert behind.behind_boundary and not behind.switched_branch


async def test_archived_sessions_leave_the_list_and_stay_searchable(
    bridge: ContainerBackend, factory: FakeAdapterFactory  # noqa: F811
) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    kept = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, kept.id, "tides")
    gone = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, gone.id, "lighthouse keeper")
    archived = await bridge.archive_session(gone.id, True)
    assert not archived.is_active
    assert [s.id for s in await bridge.list_sessions()] == [kept.id]
    assert [s.id for s in await bridge.list_sessions(archived=True)] == [gone.id]
    assert [h.session_id for h in await bridge.search_sessions("lighthouse")] == [gone.id]
    await bridge.archive_session(gone.id, False)
    assert {s.id for s in await bridge.list_sessions()} == {kept.id, gone.id}


async def test_a_message_of_another_session_is_refused(bridge: ContainerBackend, factory: FakeAdapterFactory  # noqa: F811
                                                       ) -> None:
    await bridge.set_key("anthropic", "sk-ant-test")
    one = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, one.id, "first")
    two = await bridge.create_session(None, CLAUDE)
    await turn(bridge, factory, two.id, "second")
    theirs = (await bridge.load_conversation(two.id, tail=5)).messages[0]
    with pytest.raises(NotFound):
        await bridge.open_at(one.id, theirs.id, tail=5)
