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
