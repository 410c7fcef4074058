"""Long-session replay benchmark: one scripted session through four context strategies against local fake providers.

Run from the repository root: `.venv/bin/python -m bench.replay` (add `--quick` for a short smoke run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
os.environ["PALIMPSEST_TOOL_ALLOW_HOSTS"] = "127.0.0.1"  # http_request may fetch the page server's pages

from bench.replay_brain import ReplayBrain  # noqa: E402
from bench.replay_cost import by_model_table, prices_used, spend_of, spend_table  # noqa: E402
from bench.replay_preload import build_preloaded, copy_store, reset_summary  # noqa: E402
from bench.replay_report import (  # noqa: E402
    Row,
    breakdown_table,
    markdown_table,
    plot,
    row_of,
    targets,
    targets_markdown,
    turns_json,
)
from bench.replay_run import Route, RunResult, TurnDriver, run_preloaded, run_script  # noqa: E402
from bench.replay_script import Script, Turn, build_script  # noqa: E402
from bench.replay_servers import BenchAccounting, PageServer, PartTokens, ServerClock, start_provider  # noqa: E402
from bench.replay_strategies import BenchKeys, Endpoint, Strategy, StrategyEnv, strategies  # noqa: E402
from bench.replay_thinking import ThinkingBrain  # noqa: E402
from domain.settings import REASONING_LEVELS  # noqa: E402
from tests.fakeservers import FakeProviderServer  # noqa: E402

MODELS = {  # the session model and the cheaper sibling the engine picks to summarize with (its preset window)
    "anthropic": ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", 200_000),
    "openai": ("gpt-5", "gpt-5-mini", 272_000),  # on the Responses API (reasoning items kept and sent back)
    "gemini": ("gemini-2.5-pro", "gemini-2.5-flash", 1_048_576),
}
UNLIMITED_WINDOW = 100_000_000


@dataclass(frozen=True)
class Options:
    """What to run."""

    turns: int
    window: int
    provider: str
    out: Path
    preload_messages: int
    preload_turns: int
    min_page: int
    max_page: int
    seed: int
    plot: bool = True
    only: tuple[str, ...] = ()
    reasoning: str | None = None  # the app's reasoning level; None: its default, with a brain that never thinks
    switch_every: int = 0  # rotate: the next provider every this many turns (0: the session in equal parts)


def parse(argv: Sequence[str] | None) -> Options:
    """Command-line options (quick mode shrinks everything for a smoke run)."""
    p = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__)
    p.add_argument("--turns", type=int, default=200, help="turns in the scripted session (default 200)")
    p.add_argument("--window", type=int, default=64_000, help="the session model's context window in tokens")
    p.add_argument("--provider", choices=[*MODELS, "rotate"], default="anthropic",
                   help="fake provider flavour, or rotate through all three (in equal thirds, or see --switch-every)")
    p.add_argument("--reasoning", choices=REASONING_LEVELS, default=None,
                   help="run the app at this reasoning level, the fake models thinking whenever a request runs with "
                        "reasoning (default: the app's default level with models that never think, as runs before "
                        "this option)")
    p.add_argument("--switch-every", type=int, default=0, metavar="N",
                   help="with --provider rotate: switch to the next provider every N turns (default: equal thirds)")
    p.add_argument("--out", type=Path, default=None,
                   help="where replay.md/.png/_turns.json go (default bench/results; quick runs: a temp folder)")
    p.add_argument("--preload-messages", type=int, default=10_000, help="size of the preloaded session")
    p.add_argument("--preload-turns", type=int, default=0,
                   help="turns measured in the preloaded session (default 0: every ordinary turn of the script, "
                        "so their mix of tool fetches is the script's)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="a short run: 16 turns, small pages and preload")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument("--documents", action="store_true",
                   help="instead: the document run, 20 questions about an 800-page PDF with a 32K-window model "
                        "(bench/replay_documents.py; with --quick: 5 questions, 100 pages)")
    p.add_argument("--strategy", action="append", default=[], choices=[s.name for s in strategies()],
                   help="run only this strategy (repeatable; default: all of them)")
    a = p.parse_args(argv)
    if a.turns < 6:
        p.error("--turns must be at least 6 (facts, a middle, recall questions)")
    if a.switch_every < 0 or (a.switch_every and a.provider != "rotate"):
        p.error("--switch-every takes a positive number of turns and needs --provider rotate")
    extra = {"reasoning": a.reasoning, "switch_every": a.switch_every}
    if a.quick:
        out = a.out or Path(tempfile.gettempdir()) / "palimpsest-replay-quick"
        return Options(16, 32_000, a.provider, out, 300, 4, 20_000, 60_000, a.seed, not a.no_plot, tuple(a.strategy),
                       **extra)
    out = a.out or REPO / "bench" / "results"
    return Options(a.turns, a.window, a.provider, out, a.preload_messages, a.preload_turns, 20_000, 200_000, a.seed,
                   not a.no_plot, tuple(a.strategy), **extra)


def preload_turns(script: Script, count: int) -> list[Turn]:
    """The turns measured in the preloaded session: the script's ordinary ones (no fact, no recall question), the
    first `count` of them, or all when `count` is 0."""
    ordinary = [t for t in script.turns if t.kind not in ("fact", "recall")]
    return ordinary[:count] if count > 0 else ordinary


class Bench:
    """The servers, the script and the strategies of one benchmark run."""

    def __init__(self, options: Options, workdir: Path) -> None:
        self.o, self.workdir = options, workdir
        self.clock, self.tokens = ServerClock(), PartTokens()
        self.script: Script = build_script(options.turns, seed=options.seed, min_page=options.min_page,
                                           max_page=options.max_page)
        self.pages = PageServer(self.clock, options.seed)
        self.pages.start()
        replay = ReplayBrain(self.script, self.pages.root_url)
        self.brain: ReplayBrain | ThinkingBrain = replay if options.reasoning is None else ThinkingBrain(replay)
        self.flavours = list(MODELS) if options.provider == "rotate" else [options.provider]
        self.keys = BenchKeys({f: f"bench-key-{f}" for f in self.flavours})
        self.servers: dict[tuple[str, bool], FakeProviderServer] = {}

    def server(self, flavour: str, unlimited: bool) -> FakeProviderServer:
        """The fake server of a flavour (a separate one without window enforcement for the counterfactual)."""
        key = (flavour, unlimited)
        if key not in self.servers:
            model, sibling, sibling_window = MODELS[flavour]
            windows = {} if unlimited else {model: self.o.window, sibling: sibling_window}
            self.servers[key] = start_provider(flavour, self.brain, windows, self.keys.get(flavour) or "",
                                               self.tokens, self.clock)
        return self.servers[key]

    def env(self, strategy: Strategy, home: Path, *, timed: bool = True) -> tuple[StrategyEnv, TurnDriver]:
        """A strategy's app on a store under `home`, and its turn driver (`timed`: the engine's calls timed, for the
        replay's engine column; off, the app's own classes as they are)."""
        endpoints, routes = [], []
        window = UNLIMITED_WINDOW if strategy.unlimited else self.o.window
        for flavour in self.flavours:
            server = self.server(flavour, strategy.unlimited)
            model = MODELS[flavour][0]
            endpoints.append(Endpoint(flavour, server.base_url, model, window))
            assert isinstance(server, BenchAccounting)
            routes.append(Route(flavour, model, server))
        env = StrategyEnv(strategy, home, endpoints, self.keys, self.o.reasoning, timed=timed)
        return env, TurnDriver(env, self.clock, routes, self.o.switch_every)

    async def run(self, strategy: Strategy, template: Path, preload_session: str) -> RunResult:
        """The scripted session, then the preloaded-session overhead, for one strategy."""
        slug = "".join(c if c.isalnum() else "_" for c in strategy.name)
        env, driver = self.env(strategy, self.workdir / slug)
        try:
            result = await run_script(driver, strategy.name, self.o.window, self.script.turns)
        finally:
            await env.aclose()
        preload_home = self.workdir / f"{slug}_preloaded"
        copy_store(template, preload_home)
        if not strategy.compaction:
            reset_summary(preload_home, preload_session)
            result.preload_note = "whole history sent"
        env, driver = self.env(strategy, preload_home)
        try:
            await run_preloaded(driver, result, preload_session, preload_turns(self.script, self.o.preload_turns))
        finally:
            await env.aclose()
        return result

    def failures(self) -> int:
        """Exceptions the fake servers answered as HTTP 500 (a brain or flavour bug; 0 in a valid run)."""
        return sum(len(server.failures) for server in self.servers.values())

    def close(self) -> None:
        """Stops every server."""
        for server in self.servers.values():
            server.stop()
        self.pages.stop()


def machine() -> str:
    """A one-line description of the machine the numbers come from."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def describe(o: Options, script: Script, provider: str) -> str:
    """What the session and the setting were."""
    kinds = [t.kind for t in script.turns]
    asked_from = next(t.index for t in script.turns if t.kind == "recall")
    return (
        f"Session: {o.turns} scripted turns: {kinds.count('fact')} stating a FACT line early, "
        f"{kinds.count('tool')} fetching pages of {o.min_page // 1000}-{o.max_page // 1000} KB with http_request "
        f"from a local page server, {kinds.count('chat')} prose, {kinds.count('cjk')} CJK, {kinds.count('json')} "
        f"JSON, {kinds.count('code')} code; from turn {asked_from} on every fact is asked back. "
        f"Provider: {provider} (the real SDK adapters against the local fake servers). Window: {o.window:,} tokens, "
        "enforced by the fake server with the provider's real overflow error. Tokens: o200k_base per prompt part. "
        "Cache reads: the prefix shared with the previous request to the same model. The summarizer (the engine's "
        "cheaper sibling model) is ideal-extractive: it keeps every FACT line it is given."
    )


async def main_async(o: Options, command: str) -> tuple[str, list[Row]]:
    """Runs every strategy and writes the report; returns the Markdown and the rows."""
    with tempfile.TemporaryDirectory(prefix="palimpsest-replay-") as tmp:
        workdir = Path(tmp)
        bench = Bench(o, workdir)
        started = time.perf_counter()
        try:
            template = workdir / "preload-template"
            first = bench.flavours[0]
            preload_session = build_preloaded(template, o.preload_messages, provider_id=first,
                                              model_id=MODELS[first][0])
            results = []
            for strategy in strategies():
                if o.only and strategy.name not in o.only:
                    continue
                print(f"running {strategy.name} ...", file=sys.stderr, flush=True)
                results.append(await bench.run(strategy, template, preload_session))
            failures = bench.failures()
        finally:
            bench.close()
        elapsed = time.perf_counter() - started
    rows = [row_of(r) for r in results]
    baseline = next((r for r in rows if r.name == "naive (unlimited window)"), None)
    full = next((r for r in rows if r.name == "full"), rows[-1])
    provider = o.provider
    if o.provider == "rotate":
        provider = "rotating anthropic -> openai -> gemini " + (
            f"every {o.switch_every} turns" if o.switch_every else "in equal thirds")
    title = f"Context per turn, {o.turns} turns, {provider}, window {o.window:,}"
    if o.reasoning is not None:
        title += f", reasoning {o.reasoning}"
        provider += (f"; reasoning {o.reasoning} (the app's setting; the fake models think whenever a request runs "
                     "with reasoning, as each API decides it)")
    spends = [spend_of(r) for r in results]
    text = "\n\n".join([
        "# Long-session replay benchmark",
        f"Command: `{command}`  \nMachine: {machine()}  \nRun time: {elapsed:.0f} s  \n"
        f"Fake-server failures (brain or flavour bugs answered as HTTP 500): {failures}",
        describe(o, bench.script, provider),
        markdown_table(rows, baseline, o.preload_messages),
        "Targets for full:\n\n" + targets_markdown(targets(full, baseline)),
        "Notes: requests count every request sent (chat rounds, compaction summaries, memory-flush turns, the "
        "title), refused ones included; refused requests are not billed as input. App overhead per turn = the "
        "turn's wall time minus the CPU time the local servers' threads spent on its requests, from reading them to "
        "writing the last byte back (they run in this process, on other threads); in "
        "brackets the CPU time of the app's event-loop thread (robust on a busy machine) and the part spent in "
        "the engine's estimate/prune/build calls. The 10,000-message column: a "
        f"{o.preload_messages:,}-message session preloaded through the repositories with a compaction summary and "
        f"boundary, {len(preload_turns(bench.script, o.preload_turns))} ordinary turns (the script's turns but the "
        "facts and recall questions) measured; the naive strategies have no summary and send the "
        "whole history there (against the enforced window it is refused every time).",
        "By request kind:\n\n" + breakdown_table(results),
        "Reasoning and cost (billed requests; reasoning tokens are billed as output tokens by all three providers, "
        "Gemini reporting them apart as thoughtsTokenCount; uncached input at the input price, Anthropic's "
        "cache-write surcharge not included):\n\n" + spend_table(spends),
        by_model_table(next((r for r in results if r.name == "full"), results[-1])),
        prices_used(rec.model for r in results for rec in r.records),
    ])
    o.out.mkdir(parents=True, exist_ok=True)
    (o.out / "replay.md").write_text(text + "\n", encoding="utf-8")
    (o.out / "replay_turns.json").write_text(json.dumps(turns_json(results), indent=0) + "\n", encoding="utf-8")
    if o.plot:
        plot(results, o.window, o.out / "replay.png", title)
    return text, rows


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--documents" in args:  # the document run (its own script and report)
        from bench.replay_documents import main as documents

        documents(quick="--quick" in args)
        return 0
    o = parse(args)
    command = " ".join([".venv/bin/python -m bench.replay", *args])
    text, _ = asyncio.run(main_async(o, command))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
