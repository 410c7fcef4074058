"""SendMessageUseCase with a TurnGate: one turn at a time per conversation. A second sender is refused before
anything is stored, or queues with a notice; the lease is renewed while the turn runs and freed at its end."""

from __future__ import annotations

import asyncio

from domain.chat.turn_gate import TurnGate
from domain.errors import ConversationBusy
from domain.events import ChatError, Notice, ResponseComplete
from domain.models import MessageType
from domain.ports import TurnLease
from tests.fakes_leases import FakeTurnLeases
from tests.fakes_turn import TurnWorld, make_world, reply


def _other(world: TurnWorld, leases: FakeTurnLeases) -> TurnGate:
    return TurnGate(leases, world.clock, "process 99 on elsewhere", host="elsewhere", pid=99)


async def test_a_message_sent_while_another_turn_runs_is_refused_and_nothing_is_stored() -> None:
    leases = FakeTurnLeases()
    world = make_world(leases=leases)
    held = _other(world, leases).take("s1")
    assert not isinstance(held, TurnLease)
    events = await world.turn("Hello")
    assert [type(e) for e in events] == [ChatError]
    assert events[0].kind == "conversation_busy"
    assert "Another turn is running in this conversation (process 99 on elsewhere" in events[0].message
    assert "--wait" in events[0].message
    assert world.stored() == [] and world.adapter().requests == []


async def test_a_waiting_sender_is_told_and_sends_once_the_other_turn_is_done() -> None:
    leases = FakeTurnLeases()
    world = make_world(leases=leases)
    held = _other(world, leases).take("s1")
    assert not isinstance(held, TurnLease)
    world.adapter().scripts.append(reply("Hi there"))
    events: list[object] = []
    waiting = asyncio.Event()

    async def send() -> None:
        async for event in world.send("s1", "Hello", wait=True):
            events.append(event)
            if isinstance(event, Notice):
                waiting.set()

    task = asyncio.create_task(send())
    await asyncio.wait_for(waiting.wait(), 5)
    assert world.stored() == []  # nothing is stored while it waits
    held.release()
    await asyncio.wait_for(task, 5)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices[0].startswith("Waiting for another turn in this conversation to finish (process 99")
    assert notices[1].startswith("The other turn is done (waited ")
    assert any(isinstance(e, ResponseComplete) for e in events)
    assert [m.type for m in world.stored()] == [MessageType.USER, MessageType.AI_RESPONSE]
    assert leases.leases == {}  # freed at the end of the turn


async def test_the_lease_is_freed_when_the_turn_fails_or_is_closed_early() -> None:
    leases = FakeTurnLeases()
    world = make_world(leases=leases)
    world.adapter().scripts.append(reply("Hi there"))
    events = world.send("s1", "Hello")
    first = await anext(events)
    assert first is not None and "s1" in leases.leases
    await events.aclose()
    assert leases.leases == {}
    unknown = await world.turn("Hello", session_id="nope")
    assert leases.leases == {} and isinstance(unknown[-1], ChatError)


async def test_a_held_lease_is_renewed_past_its_first_expiry_and_a_dead_owners_is_taken_over() -> None:
    leases = FakeTurnLeases()
    world = make_world()
    mine = TurnGate(leases, world.clock, "me", host="here", pid=1, lease_seconds=30, renew_seconds=0.001)
    other = _other(world, leases)
    held = mine.take("s1")
    assert not isinstance(held, TurnLease)
    first_expiry = leases.leases["s1"].expires_at
    held.keep_renewed()
    world.clock.advance(20)
    while leases.leases["s1"].expires_at <= first_expiry:
        await asyncio.sleep(0.001)  # the renewal task runs on this loop
    world.clock.advance(20)  # past the first expiry: still held, it was renewed
    assert isinstance(other.take("s1"), TurnLease)
    held.release()
    assert leases.leases == {}

    stuck = mine.take("s1")
    assert not isinstance(stuck, TurnLease)  # never renewed: its holder hangs or died on another machine
    world.clock.advance(31)
    assert not isinstance(other.take("s1"), TurnLease)  # expired: taken over

    dead = mine.take("s2")
    assert not isinstance(dead, TurnLease)
    leases.gone.add(("here", 1))  # the holder's process is known to be gone: no need to wait for the expiry
    assert not isinstance(other.take("s2"), TurnLease)


def test_a_checkout_while_a_turn_runs_is_refused() -> None:
    leases = FakeTurnLeases()
    world = make_world()
    gate = _other(world, leases)
    held = gate.take("s1")
    assert not isinstance(held, TurnLease)
    try:
        with gate.exclusive("s1", "Switch branches"):
            raise AssertionError("entered while held")
    except ConversationBusy as err:
        assert "Switch branches when it is done." in err.message
    held.release()
    with gate.exclusive("s1", "Switch branches"):
        assert "s1" in leases.leases
    assert leases.leases == {}


async def test_waiting_senders_go_in_the_order_they_came_and_one_that_gives_up_leaves_the_line() -> None:
    leases = FakeTurnLeases()
    world = make_world(leases=leases)
    held = _other(world, leases).take("s1")
    assert not isinstance(held, TurnLease)
    world.adapter().scripts.extend([reply("First answer"), reply("Second answer")])
    told: dict[str, asyncio.Event] = {name: asyncio.Event() for name in ("first", "second", "quitter")}

    async def send(name: str) -> list[object]:
        events = []
        async for event in world.send("s1", f"{name} question", wait=True):
            events.append(event)
            if isinstance(event, Notice) and event.message.startswith("Waiting"):
                told[name].set()
        return events

    first = asyncio.create_task(send("first"))
    await asyncio.wait_for(told["first"].wait(), 5)
    world.clock.advance(1)
    quitter = world.send("s1", "quitter question", wait=True)
    assert isinstance(await anext(quitter), Notice)  # in line behind the first
    world.clock.advance(1)
    second = asyncio.create_task(send("second"))
    await asyncio.wait_for(told["second"].wait(), 5)
    await quitter.aclose()  # gives up while waiting: its place in line goes
    assert len(leases.rows) == 3  # the holder and two waiters
    held.release()
    await asyncio.wait_for(asyncio.gather(first, second), 10)
    assert [m.content for m in world.stored()] == ["first question", "First answer", "second question",
                                                   "Second answer"]
    assert leases.rows == {}
