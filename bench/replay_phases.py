"""Benchmark: where the app's time goes in one turn of a 10,000-message session (the replay's preloaded session,
Palimpsest's defaults, the Anthropic SDK against the local fake server): the median per turn of each phase, in CPU
time of the app's thread, beside the turn's overhead (wall time minus the fake servers' CPU time).

Run: .venv/bin/python -m bench.replay_phases [--turns 60] [--runs 1] [--pace MS] — writes bench/results/phases.md.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.replay import MODELS, Bench, parse
from bench.replay_preload import build_preloaded, copy_store
from bench.replay_run import RunResult, run_preloaded
from bench.replay_strategies import StrategyEnv, strategies

WARM_UP_TURNS = 3


class PhaseClock:
    """Thread CPU seconds spent in named phases (a nested phase is also counted in the phase around it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._wrapped: list[tuple[Any, str, Any, bool]] = []  # (owner, name, original, whether owner had its own)

    def restore(self) -> None:
        """Puts back every wrapped attribute (a module's or a class's outlives the run; a second run would time
        its calls twice)."""
        while self._wrapped:
            owner, name, original, own = self._wrapped.pop()
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)

    def wrap_callback(self, owner: Any, name: str, label: str) -> None:
        """Times `owner.name` (a plain method) only where the event loop calls it as a callback, outside any
        task: where it runs inside a task, the phase that task is in counts it already."""
        self.wrap(owner, name, label, outside_tasks=True)

    def _remember(self, owner: Any, name: str, original: Any) -> None:
        own = name in vars(owner) if hasattr(owner, "__dict__") else True
        self._wrapped.append((owner, name, original, own))

    def wrap(self, owner: Any, name: str, label: str, *, outside_tasks: bool = False) -> None:
        """Replaces `owner.name` (a function, coroutine or async generator function) by a timed one (a function
        with `outside_tasks`: timed only when no task runs it, see wrap_callback)."""
        original = getattr(owner, name)
        seconds = self.seconds
        self._remember(owner, name, original)
        if inspect.isasyncgenfunction(original):
            @functools.wraps(original)
            async def timed_stream(*args: Any, **kwargs: Any) -> Any:
                stream = original(*args, **kwargs)
                while True:
                    started = time.thread_time()
                    try:
                        item = await stream.__anext__()
                    except StopAsyncIteration:
                        return
                    finally:
                        seconds[label] = seconds.get(label, 0.0) + time.thread_time() - started
                    yield item
            setattr(owner, name, timed_stream)
        elif inspect.iscoroutinefunction(original):
            @functools.wraps(original)
            async def timed_call(*args: Any, **kwargs: Any) -> Any:
                started = time.thread_time()
                try:
                    return await original(*args, **kwargs)
                finally:
                    seconds[label] = seconds.get(label, 0.0) + time.thread_time() - started
            setattr(owner, name, timed_call)
        else:
            @functools.wraps(original)
            def timed(*args: Any, **kwargs: Any) -> Any:
                if outside_tasks and asyncio.current_task() is not None:
                    return original(*args, **kwargs)
                started = time.thread_time()
                try:
                    return original(*args, **kwargs)
                finally:
                    seconds[label] = seconds.get(label, 0.0) + time.thread_time() - started
            setattr(owner, name, timed)


PHASES = (  # (label, what it is): the order of the report
    ("context load", "session, agent, settings, prompt with memories, tools, model, messages since the boundary"),
    ("store the user's message", "one transaction"),
    ("plan the request", "build, prune, fit, estimate (per round)"),
    ("adapter: request shaping", "Palimpsest's Anthropic request from the messages"),
    ("adapter: SDK request and stream", "the SDK building, sending and parsing the streamed reply (with our "
                                        "event mapping; request shaping not included)"),
    ("adapter: SDK socket reads", "the SDK's HTTP client (aiohttp) reading and parsing the reply's bytes as "
                                  "event-loop callbacks, outside the stream's frames"),
    ("store the round", "reply, tool calls, usage, calibration: one transaction"),
    ("after the turn", "the next request's status for the gauge, flush and compaction checks"),
)


SHAPING, SDK, READS = PHASES[3][0], PHASES[4][0], PHASES[5][0]


def instrument(env: StrategyEnv, clock: PhaseClock) -> None:
    """Times the phases of `env`'s SendMessageUseCase (its collaborators, as the app wires them)."""
    import data.providers.anthropic_adapter as anthropic_adapter

    send: Any = env.send_message
    clock.wrap(send._contexts, "load", "context load")
    clock.wrap(send._turns, "begin", "store the user's message")
    clock.wrap(send._turns, "save_round", "store the round")
    clock.wrap(send._upkeep.planner, "plan", "plan the request")
    clock.wrap(send._upkeep, "after_turn", "after the turn")
    clock.wrap(anthropic_adapter, "anthropic_request", SHAPING)
    aiohttp_protocol = sys.modules.get("aiohttp.client_proto")  # the SDK's aiohttp client, as the app's GUI runs it
    if aiohttp_protocol is not None:
        clock.wrap_callback(aiohttp_protocol.ResponseHandler, "data_received", READS)
    adapters = send._adapters
    original: Callable[[Any], Any] = adapters.for_provider
    timed: set[int] = set()

    def for_provider(provider: Any) -> Any:
        adapter = original(provider)
        if id(adapter) not in timed:
            timed.add(id(adapter))
            clock.wrap(adapter, "_stream_once", SDK)
        return adapter

    adapters.for_provider = for_provider


async def measure(turns: int, pace_ms: float = 0.0
                  ) -> tuple[list[float], list[float], dict[str, list[float]], list[bool]]:
    """Overhead and CPU per turn (ms), each phase's time per turn (ms), and whether each turn called a tool (the
    script's `tool` turns: an http_request and a second round), after a few warm-up turns. `pace_ms`: the fake
    provider's pause after each streamed chunk (0: the reply as fast as the machine sends it)."""
    options = parse(["--strategy", "full", "--no-plot", "--provider", "anthropic"])
    full = next(s for s in strategies() if s.name == "full")
    with tempfile.TemporaryDirectory(prefix="palimpsest-phases-") as tmp:
        work = Path(tmp)
        bench = Bench(options, work)
        clock = PhaseClock()
        try:
            session_id = build_preloaded(work / "template", options.preload_messages, provider_id="anthropic",
                                         model_id=MODELS["anthropic"][0])
            copy_store(work / "template", work / "home")
            env, driver = bench.env(full, work / "home", timed=False)  # the app's classes, not timed
            for server in bench.servers.values():
                server.chunk_pause = pace_ms / 1000
            try:
                script = [t for t in bench.script.turns if t.kind not in ("fact", "recall")]
                await run_preloaded(driver, RunResult("warm-up", options.window), session_id,
                                    script[:WARM_UP_TURNS])
                instrument(env, clock)
                result = RunResult("full", options.window)
                phases: dict[str, list[float]] = {label: [] for label, _ in PHASES}
                measured = script[WARM_UP_TURNS:WARM_UP_TURNS + turns]
                for turn in measured:
                    before = dict(clock.seconds)
                    await run_preloaded(driver, result, session_id, [turn])
                    spent = {k: (v - before.get(k, 0.0)) * 1000 for k, v in clock.seconds.items()}
                    spent[SDK] = spent.get(SDK, 0.0) - spent.get(SHAPING, 0.0)  # shaping runs inside the stream
                    for label in phases:
                        phases[label].append(spent.get(label, 0.0))
                return (result.preload_overhead_ms, result.preload_cpu_ms, phases,
                        [turn.kind == "tool" for turn in measured])
            finally:
                await env.aclose()
        finally:
            clock.restore()
            bench.close()


def sdk_cpu(phases: dict[str, list[float]]) -> list[float]:
    """The SDK's CPU per turn: its stream's frames and its HTTP client's socket reads."""
    return [a + b for a, b in zip(phases[SDK], phases.get(READS, [0.0] * len(phases[SDK])), strict=True)]


def report(overhead: Sequence[float], cpu: Sequence[float], phases: dict[str, list[float]], command: str,
           tools: Sequence[bool] = (), pace_ms: float = 0.0) -> str:
    """The Markdown report (`tools`: whether each turn called a tool, for the ratio by kind of turn; `pace_ms`: the
    fake provider's pause after each streamed chunk)."""
    median = statistics.median
    sdk = sdk_cpu(phases)
    lines = [
        "# Where a turn's time goes in a 10,000-message session", "",
        f"`{command}`: {len(overhead)} turns of the replay script in its preloaded session (Palimpsest's defaults, "
        "claude-sonnet-4-5 through the anthropic SDK against the local fake server). Phases are CPU time of the "
        "app's thread (thread_time), medians over the turns; a turn's overhead is its wall time minus the CPU "
        "time the fake servers' threads spent on its requests (reading, answering, writing the stream). The SDK's "
        "CPU is its two adapter rows: its stream's frames and its HTTP client's socket reads. "
        + (f"The fake provider paused {pace_ms:g} ms after each streamed chunk, so the events arrive apart as a "
           "provider's do (the turn's overhead then includes those pauses)." if pace_ms else
           "The fake provider sent each reply as fast as the machine lets it (how many events reach the SDK "
           "together then depends on the scheduler; `--pace` spaces them as a provider's stream does)."), "",
        "| phase | what it is | median ms per turn |", "|---|---|---|",
    ]
    lines += [f"| {label} | {what} | {median(phases[label]):.2f} |" for label, what in PHASES]
    lines += [
        f"| **turn overhead** | wall time minus the servers' CPU time | **{median(overhead):.2f}** "
        f"(CPU {median(cpu):.2f}) |",
        f"| **app / SDK** | the turn's CPU outside the SDK's over the SDK's, turn by turn (target ≤ 0.5) | "
        f"**{run_ratio(cpu, sdk):.2f}** |",
    ]
    flagged = [((c - s) / s, tool) for c, s, tool in zip(cpu, sdk, tools, strict=False) if s > 0]
    for kind in (False, True):
        rs = [r for r, tool in flagged if tool is kind]
        if rs:
            lines.append(f"| app / SDK, turns {'with' if kind else 'without'} a tool call | median of their "
                         f"{len(rs)} ratios | {median(rs):.2f} |")
    sdk_total = sum(sdk)
    if sdk_total > 0:
        lines.append(f"| app / SDK, all the CPU | the turns' CPU outside the SDK's over the SDK's, summed over the "
                     f"turns | {(sum(cpu) - sdk_total) / sdk_total:.2f} |")
    if any(phases.get(READS, ())):
        lines.append(f"| app / SDK, the socket reads counted as the app's | the headline as it was measured until "
                     f"2026-11-28 (the reads were outside every phase) | {run_ratio(cpu, phases[SDK]):.2f} |")
    return "\n".join([*lines, ""])


def run_ratio(cpu: Sequence[float], sdk: Sequence[float]) -> float:
    """A run's figure: the median over its turns of (CPU outside the SDK's phase) / (the SDK's phase)."""
    return statistics.median((c - s) / s for c, s in zip(cpu, sdk, strict=True) if s > 0)


def runs_line(ratios: Sequence[float], target: float = 0.5) -> str:
    """The report's line for several runs of one command: each run's figure, their median, how many meet the target."""
    listed = " / ".join(f"{r:.2f}" for r in ratios)
    met = sum(r <= target for r in ratios)
    return (f"Runs of this command, one after another: {listed}; median {statistics.median(ratios):.2f}, "
            f"{met} of {len(ratios)} at or under {target} (the table above is the last run).")


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the measure (`--runs` times, each on a fresh copy of the store), prints and writes the report."""
    parser = argparse.ArgumentParser(prog="python -m bench.replay_phases")
    parser.add_argument("--turns", type=int, default=60, help="turns measured (default 60)")
    parser.add_argument("--runs", type=int, default=1, help="runs one after another, to see the spread (default 1)")
    parser.add_argument("--pace", type=float, default=0.0, metavar="MS",
                        help="the fake provider's pause after each streamed chunk, in ms (default 0: no pause)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "phases.md")
    args = parser.parse_args(argv)
    ratios: list[float] = []
    for _ in range(max(1, args.runs)):
        overhead, cpu, phases, tools = asyncio.run(measure(args.turns, args.pace))
        ratios.append(run_ratio(cpu, sdk_cpu(phases)))
    text = report(overhead, cpu, phases, " ".join([".venv/bin/python -m bench.replay_phases", *(argv or [])]), tools,
                  args.pace)
    if len(ratios) > 1:
        text += "\n" + runs_line(ratios) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
