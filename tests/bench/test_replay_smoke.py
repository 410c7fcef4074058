"""The replay benchmark still runs end to end: every strategy, real SDK adapters, local fake servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.replay import Options, main_async
from bench.replay_strategies import strategies

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def test_a_short_replay_runs_every_strategy_and_writes_the_table_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "results"
    options = Options(turns=9, window=32_000, provider="anthropic", out=out, preload_messages=80, preload_turns=2,
                      min_page=20_000, max_page=40_000, seed=7, plot=True)

    text, rows = await main_async(options, "smoke")

    assert [r.name for r in rows] == [s.name for s in strategies()]
    table = (out / "replay.md").read_text(encoding="utf-8")
    assert table.strip() == text.strip()
    assert "answered as HTTP 500): 0" in table
    for row in rows:
        assert f"| {row.name} |" in table
        assert row.requests > 0 and row.recall_total > 0
        assert len([r for r in rows if r.name == row.name]) == 1
    full = next(r for r in rows if r.name == "full")
    assert full.errors == 0
    assert full.recall_correct == full.recall_total
    unlimited = next(r for r in rows if r.name == "naive (unlimited window)")
    assert unlimited.errors == 0 and unlimited.refused == 0
    assert (out / "replay.png").stat().st_size > 10_000
    assert (out / "replay_turns.json").is_file()


async def test_the_openai_replay_speaks_the_responses_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import replay_servers
    from tests.fakeservers.responses_server import FakeResponsesServer

    started: list[FakeResponsesServer] = []
    original = replay_servers.start_provider

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        server = original(*args, **kwargs)
        started.append(server)
        return server

    monkeypatch.setattr("bench.replay.start_provider", recording)
    options = Options(turns=4, window=32_000, provider="openai", out=tmp_path / "r", preload_messages=40,
                      preload_turns=1, min_page=20_000, max_page=30_000, seed=7, plot=False, only=("full",))
    _, rows = await main_async(options, "smoke")
    assert rows and rows[0].errors == 0
    assert started and all(isinstance(s, FakeResponsesServer) for s in started)
    # reasoning items with encrypted content are issued only on /v1/responses (the benchmark's servers keep no log)
    assert sum(len(s.issued) for s in started) >= rows[0].requests - 1 and not any(s.refusals for s in started)


def test_the_phases_benchmark_measures_the_apps_own_engine_classes(tmp_path: Path) -> None:
    """bench.replay_phases builds its env untimed: the estimator, pruner and builder are the app's classes, not the
    replay's timing subclasses (whose wrappers would count as the app's CPU); the replay's own env stays timed."""
    from bench.replay import Bench, parse
    from domain.context.builder import CompactAwareMessageBuilder
    from domain.context.estimator import TokenEstimator
    from domain.context.pruner import ToolResultPruner

    options = parse(["--strategy", "full", "--no-plot", "--provider", "anthropic", "--out", str(tmp_path / "o")])
    full = next(s for s in strategies() if s.name == "full")
    bench = Bench(options, tmp_path)
    try:
        for timed in (False, True):
            env, _ = bench.env(full, tmp_path / f"home-{timed}", timed=timed)
            try:
                planner = env.send_message._upkeep.planner
                parts = (planner.estimator, planner._pruner, planner._builder)
                exact = [type(p) for p in parts] == [TokenEstimator, ToolResultPruner, CompactAwareMessageBuilder]
                assert exact is not timed
            finally:
                env.storage.close()
    finally:
        bench.close()
