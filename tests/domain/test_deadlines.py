"""A round's stream held to its deadlines (domain/chat/deadlines.py and stream_round): the idle clock restarts with
every event and stops while the caller works, silence is reported every tick, the round deadline counts from the
start, and however the stream ends it is closed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence

import pytest

from domain.chat.deadlines import within_deadlines
from domain.chat.stream import RoundState, stream_round
from domain.errors import InvalidInput, NetworkError, ProviderTimeout
from domain.events import ReplyProgress, StreamDone, StreamEvent, TextDelta, ThinkingDelta, Waiting
from domain.settings import ContextSettings, Deadlines, parse_setting

Step = StreamEvent | float | Exception  # a float is a pause in seconds


class Scripted:
    """An async generator over a script that records whether it was closed."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = steps
        self.closed = False

    async def play(self) -> AsyncGenerator[StreamEvent, None]:
        try:
            for step in self.steps:
                if isinstance(step, float):
                    await asyncio.sleep(step)
                elif isinstance(step, Exception):
                    raise step
                else:
                    yield step
        finally:
            self.closed = True


async def collect(events: AsyncIterator[StreamEvent | Waiting]) -> list[StreamEvent | Waiting]:
    return [event async for event in events]


async def test_the_idle_clock_restarts_with_every_event() -> None:
    # 0.8 s in all, never 0.7 s without an event: no idle timeout
    script = Scripted([TextDelta("a"), 0.2, TextDelta("b"), 0.2, ReplyProgress(), 0.2, TextDelta("c"), 0.2,
                       StreamDone("end_turn")])
    events = await collect(within_deadlines(script.play(), Deadlines(5, 0.7, 5), tick=1.0))
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("a"), TextDelta("b"), TextDelta("c")]
    assert script.closed


async def test_a_silence_is_reported_a_tick_after_its_own_start_not_an_earlier_waits() -> None:
    # the consumer's alarm, set while waiting for b (for a + 1 s), rings 0.4 s into the silence after c: that silence is
    # reported a whole tick after c, not when the alarm rings (a timer never fires early; a loaded machine only delays)
    script = Scripted([TextDelta("a"), 0.3, TextDelta("b"), 0.3, TextDelta("c"), 1.5, TextDelta("d"),
                       StreamDone("end_turn")])
    loop = asyncio.get_running_loop()
    timed: list[tuple[float, StreamEvent | Waiting]] = []
    async for event in within_deadlines(script.play(), Deadlines(5, 4, 9), tick=1.0):
        timed.append((loop.time(), event))
    events = [event for _, event in timed]
    assert events[:3] == [TextDelta("a"), TextDelta("b"), TextDelta("c")]
    assert events[-2:] == [TextDelta("d"), StreamDone("end_turn")]
    waits = [(at, e.seconds) for at, e in timed[3:-2] if isinstance(e, Waiting)]
    assert len(waits) == len(events) - 5  # nothing else between c and d
    c_at = timed[2][0]
    assert waits and waits[-1][1] == 0 and all(seconds > 0 for _, seconds in waits[:-1])
    assert waits[0][0] - c_at >= 0.95  # the first report of the silence: a tick after it began


async def test_silence_is_reported_every_tick_and_its_end_once() -> None:
    script = Scripted([TextDelta("a"), 0.55, ReplyProgress(), StreamDone("end_turn")])
    events = await collect(within_deadlines(script.play(), Deadlines(5, 2, 5), tick=0.2))
    assert events[0] == TextDelta("a")
    waits = [e.seconds for e in events if isinstance(e, Waiting)]
    assert len(waits) >= 2 and all(w > 0 for w in waits[:-1]) and waits[-1] == 0  # every 0.2 s, then data again
    assert events[-2:] == [ReplyProgress(), StreamDone("end_turn")]


async def test_no_event_for_the_idle_deadline_is_an_idle_timeout_and_the_stream_is_closed() -> None:
    script = Scripted([TextDelta("partial "), 30.0, TextDelta("never")])
    seen: list[StreamEvent | Waiting] = []
    with pytest.raises(ProviderTimeout) as caught:
        async for event in within_deadlines(script.play(), Deadlines(5, 0.3, 5), tick=5):
            seen.append(event)
    assert caught.value.deadline == "idle" and caught.value.seconds == 0.3 and not caught.value.transient
    assert seen == [TextDelta("partial ")] and script.closed


async def test_time_the_caller_spends_on_an_event_is_not_silence() -> None:
    script = Scripted([TextDelta("a"), ThinkingDelta("t"), TextDelta("b"), StreamDone("end_turn")])
    seen = []
    async for event in within_deadlines(script.play(), Deadlines(5, 0.3, 5), tick=5):
        seen.append(event)
        await asyncio.sleep(0.5)  # e.g. storing the reply so far
    assert seen == [TextDelta("a"), ThinkingDelta("t"), TextDelta("b"), StreamDone("end_turn")]


async def test_the_round_deadline_counts_from_the_start_however_lively_the_stream() -> None:
    script = Scripted([step for i in range(100) for step in (TextDelta(f"{i} "), 0.05)])
    with pytest.raises(ProviderTimeout) as caught:
        await collect(within_deadlines(script.play(), Deadlines(5, 0.3, 0.5)))
    assert caught.value.deadline == "round" and script.closed
    assert caught.value.message.startswith("The reply took longer than 0.5 s (round timeout).")


async def test_the_streams_own_error_comes_through_unchanged() -> None:
    script = Scripted([TextDelta("a"), NetworkError("the response stream ended early")])
    with pytest.raises(NetworkError):
        await collect(within_deadlines(script.play(), Deadlines(5, 1, 5)))
    assert script.closed


async def test_stopping_while_waiting_closes_the_provider_stream_at_once() -> None:
    script = Scripted([TextDelta("a"), 30.0])
    state = RoundState()

    async def run() -> None:
        async for _event in stream_round(script.play(), state, Deadlines(5, 60, 60)):
            pass

    task = asyncio.create_task(run())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert script.closed and state.text == "a"


async def test_stream_round_keeps_what_arrived_when_a_deadline_fires() -> None:
    state = RoundState()
    script = Scripted([TextDelta("Hello, "), TextDelta("wor"), 30.0])
    yielded = []
    with pytest.raises(ProviderTimeout):
        async for event in stream_round(script.play(), state, Deadlines(5, 0.3, 9)):
            yielded.append(event)
    assert state.text == "Hello, wor" and yielded == [TextDelta("Hello, wor")]  # arrived together: one delta


def test_deadlines_default_to_minutes_of_silence_and_half_an_hour_per_reply() -> None:
    assert ContextSettings().deadlines == Deadlines(headers_s=60, idle_s=300, round_s=1800)
    assert parse_setting("idle-timeout", "600") == ("idle_timeout_s", 600.0)


@pytest.mark.parametrize("field", ["headers_timeout_s", "idle_timeout_s", "round_timeout_s"])
@pytest.mark.parametrize("value", [0.0, -1.0, 86_401.0, float("nan"), float("inf")])
def test_a_deadline_outside_a_tenth_of_a_second_to_a_day_is_refused_naming_it(field: str, value: float) -> None:
    with pytest.raises(InvalidInput, match=field):
        ContextSettings(**{field: value}).validated()  # type: ignore[arg-type]


async def test_a_burst_is_read_ahead_a_bounded_way_and_handed_over_whole_and_in_order() -> None:
    from domain.chat.deadlines import READ_AHEAD

    produced: list[int] = []

    async def burst() -> AsyncGenerator[StreamEvent, None]:
        for i in range(3 * READ_AHEAD):
            produced.append(i)
            yield ThinkingDelta(str(i))  # (not joined, unlike text: each is handed over as it came)

    got, ahead = [], 0
    async for event in within_deadlines(burst(), Deadlines(idle_s=1.0, round_s=10.0)):
        assert isinstance(event, ThinkingDelta)
        got.append(int(event.text))
        ahead = max(ahead, len(produced) - len(got))
        await asyncio.sleep(0)  # the consumer works: the reader may run ahead meanwhile
    assert got == list(range(3 * READ_AHEAD))
    assert 1 < ahead <= READ_AHEAD + 1  # read ahead, never more than the queue holds (plus the one in hand)


async def test_text_that_arrived_together_is_handed_over_as_one_delta_in_order() -> None:
    """A burst of text deltas (a provider's network chunk of SSE events) comes out as one delta; text after a pause,
    or after any other event, starts a new one; nothing is lost or reordered, and the read-ahead bound holds."""
    from domain.chat.deadlines import READ_AHEAD

    async def stream() -> AsyncGenerator[StreamEvent, None]:
        for i in range(3 * READ_AHEAD):  # more than the queue holds: joined in runs of at most READ_AHEAD
            yield TextDelta(f"{i},")
        await asyncio.sleep(0.05)
        yield TextDelta("late")
        yield ThinkingDelta("hm")
        yield TextDelta("x")
        yield TextDelta("y")
        yield StreamDone("end_turn")

    await asyncio.sleep(0)
    events = await collect(within_deadlines(stream(), Deadlines(idle_s=1.0, round_s=10.0)))
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(texts) == "".join(f"{i}," for i in range(3 * READ_AHEAD)) + "late" + "xy"
    assert len(texts) < 3 * READ_AHEAD / 2  # joined, not one event per piece
    assert all(len(t.split(",")) - 1 <= READ_AHEAD + 1 for t in texts)
    assert events[-4:] == [TextDelta("late"), ThinkingDelta("hm"), TextDelta("xy"), StreamDone("end_turn")]


async def test_the_idle_deadline_still_holds_after_a_burst() -> None:
    stream = Scripted([TextDelta("a"), TextDelta("b"), TextDelta("c"), 0.5])
    got = []
    with pytest.raises(ProviderTimeout):
        async for event in within_deadlines(stream.play(), Deadlines(idle_s=0.1, round_s=10.0)):
            got.append(event)
    assert "".join(e.text for e in got if isinstance(e, TextDelta)) == "abc" and stream.closed
