"""After each answered turn the upkeep lets the search index take its batch, once the status is reported."""

from __future__ import annotations

from domain.events import ChatError, ContextStatusChanged
from tests.fakes_turn import make_world, reply


class CountingBacklog:
    """A SearchBacklog that records when it was asked, and what the turn had reported by then."""

    def __init__(self, seen: list[object]) -> None:
        self.calls = 0
        self._seen = seen
        self.status_before: list[bool] = []

    def catch_up(self) -> int:
        self.calls += 1
        self.status_before.append(any(isinstance(e, ContextStatusChanged) for e in self._seen))
        return 0


async def test_each_answered_turn_asks_the_backlog_once_after_the_status() -> None:
    seen: list[object] = []
    backlog = CountingBacklog(seen)
    world = make_world(search=backlog)
    world.adapter().scripts.extend([reply("One."), reply("Two.")])
    for text in ("first", "second"):
        async for event in world.send("s1", text):
            seen.append(event)
    assert backlog.calls == 2 and backlog.status_before == [True, True]


async def test_a_turn_refused_before_its_answer_does_not_ask() -> None:
    backlog = CountingBacklog([])
    world = make_world(search=backlog)
    events = await world.turn("   ")  # empty: refused before anything is stored
    assert any(isinstance(e, ChatError) for e in events) and backlog.calls == 0
