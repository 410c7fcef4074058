"""bench.replay_phases' report (the ratio per turn, by kind of turn, and over the summed CPU) and its clock."""

from __future__ import annotations

import asyncio

from bench.replay_phases import PHASES, READS, SDK, PhaseClock, report, run_ratio, runs_line, sdk_cpu


def test_the_report_gives_the_median_ratio_by_kind_and_the_ratio_of_the_sums() -> None:
    phases = {label: [0.1, 0.1, 0.1] for label, _ in PHASES}
    phases[SDK] = [4.0, 2.0, 10.0]
    phases[READS] = [0.0, 0.0, 0.0]  # no aiohttp: the SDK's reads all ran in its stream's frames
    cpu = [6.0, 3.0, 20.0]  # ratios 0.5, 0.5 (no tool call) and 1.0 (a tool call)
    text = report([1.0, 1.0, 1.0], cpu, phases, "cmd", [False, False, True])
    assert "turn by turn (target ≤ 0.5) | **0.50** |" in text
    assert "| app / SDK, turns without a tool call | median of their 2 ratios | 0.50 |" in text
    assert "| app / SDK, turns with a tool call | median of their 1 ratios | 1.00 |" in text
    assert "summed over the turns | 0.81 |" in text  # (29 - 16) / 16
    assert "counted as the app's" not in text


def test_several_runs_are_summed_up_by_their_figures_median_and_how_many_meet_the_target() -> None:
    assert run_ratio([6.0, 3.0, 20.0], [4.0, 2.0, 10.0]) == 0.5  # the report's headline figure, per run
    line = runs_line([0.48, 0.51, 0.47, 0.50])
    assert "0.48 / 0.51 / 0.47 / 0.50; median 0.49, 3 of 4 at or under 0.5" in line


def test_the_sdks_socket_reads_count_as_the_sdks_and_the_old_attribution_is_reported_beside() -> None:
    phases = {label: [0.1, 0.1, 0.1] for label, _ in PHASES}
    phases[SDK] = [4.0, 2.0, 10.0]
    phases[READS] = [1.0, 0.5, 0.0]
    cpu = [7.0, 3.5, 20.0]  # outside the SDK's 5.0, 2.5, 10.0: ratios 0.4, 0.4, 1.0
    text = report([1.0, 1.0, 1.0], cpu, phases, "cmd", [False, False, True])
    assert "turn by turn (target ≤ 0.5) | **0.40** |" in text
    assert "(the reads were outside every phase) | 0.75 |" in text  # 0.75, 0.75, 1.0 with the reads as the app's
    assert sdk_cpu(phases) == [5.0, 2.5, 10.0]


def test_a_callback_is_timed_only_outside_tasks_and_restore_puts_every_wrapped_attribute_back() -> None:
    class Protocol:
        def data_received(self, data: bytes) -> int:
            return sum(range(20_000)) + len(data)

    original = Protocol.data_received
    clock = PhaseClock()
    clock.wrap_callback(Protocol, "data_received", READS)
    assert Protocol.data_received is not original

    async def in_a_task() -> int:
        return Protocol().data_received(b"x")

    assert asyncio.run(in_a_task()) == sum(range(20_000)) + 1
    assert READS not in clock.seconds  # inside a task, the task's phase counts it

    async def as_a_callback() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.call_soon(lambda: done.set_result(Protocol().data_received(b"xy")))
        assert await done == sum(range(20_000)) + 2

    asyncio.run(as_a_callback())
    assert clock.seconds[READS] > 0
    clock.restore()
    assert Protocol.data_received is original and "data_received" in vars(Protocol)


def test_the_report_says_whether_the_fake_provider_paced_its_stream() -> None:
    phases = {label: [1.0] for label, _ in PHASES}
    unpaced = report([1.0], [9.0], phases, "cmd", [False])
    paced = report([1.0], [9.0], phases, "cmd --pace 2", [False], pace_ms=2.0)
    assert "as fast as the machine lets it" in unpaced and "paused" not in unpaced
    assert "The fake provider paused 2 ms after each streamed chunk" in paced
