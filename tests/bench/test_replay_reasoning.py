"""The replay benchmark's reasoning run: the fake models think whenever a request runs with reasoning, the providers
rotate every N turns, and the report prices output with its thinking share."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import replay_servers
from bench.replay import Options, main_async, parse
from bench.replay_cost import record_cost
from bench.replay_servers import RequestRecord
from bench.replay_thinking import reasoning_effort
from data.registry import ModelPrice
from tests.fakeservers.brain import NormalizedMessage, NormalizedRequest, TextPart, ToolResultPart

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


def _request(flavour: str, model: str, raw: dict[str, object], *, loop: bool = False) -> NormalizedRequest:
    user = NormalizedMessage("user", (TextPart("[t3] fetch the page"),))
    messages = (user, NormalizedMessage("user", (ToolResultPart("c1", "http_request", "body"),))) if loop else (user,)
    return NormalizedRequest(flavour, model, "system", messages, (), 100, True, raw)  # type: ignore[arg-type]


def test_each_provider_thinks_when_its_api_would() -> None:
    budget = {"thinking": {"type": "enabled", "budget_tokens": 16_384}}
    assert reasoning_effort(_request("anthropic", "claude-sonnet-4-5", budget)) == "high"
    assert reasoning_effort(_request("anthropic", "claude-sonnet-4-5", {})) is None
    assert reasoning_effort(_request("anthropic", "claude-sonnet-4-5", budget, loop=True)) is None  # not interleaved
    adaptive = {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}}
    assert reasoning_effort(_request("anthropic", "claude-opus-4-6", adaptive, loop=True)) == "low"
    assert reasoning_effort(_request("gemini", "gemini-2.5-pro", {})) == "medium"  # 2.5 thinks by default
    flash_off = {"generationConfig": {"thinkingConfig": {"thinking_budget": 0}}}
    assert reasoning_effort(_request("gemini", "gemini-2.5-flash", flash_off)) is None
    assert reasoning_effort(_request("openai", "gpt-5", {"reasoning": {"effort": "high"}})) == "high"
    assert reasoning_effort(_request("openai", "gpt-4.1", {})) is None


def test_switch_every_needs_rotate_and_the_reasoning_level_must_be_the_apps() -> None:
    options = parse(["--quick", "--provider", "rotate", "--switch-every", "20", "--reasoning", "high"])
    assert (options.switch_every, options.reasoning) == (20, "high")
    assert parse(["--quick"]).reasoning is None
    with pytest.raises(SystemExit):
        parse(["--quick", "--switch-every", "20"])
    with pytest.raises(SystemExit):
        parse(["--quick", "--reasoning", "extreme"])


def test_reasoning_is_billed_at_the_output_price_and_cache_reads_at_theirs() -> None:
    price = ModelPrice(input=2.0, output=10.0, cache_read=0.5)
    record = RequestRecord("chat", "m", 1_000_000, 400_000, 100_000, False, reasoning_tokens=80_000)
    assert record_cost(record, price) == pytest.approx(0.6 * 2 + 0.4 * 0.5 + 0.1 * 10)
    assert record_cost(RequestRecord("chat", "m", 1_000_000, 0, 0, True), price) == 0.0  # refused: not billed


async def test_a_short_reasoning_run_thinks_on_every_provider_with_zero_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[object] = []
    original = replay_servers.start_provider

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        server = original(*args, **kwargs)
        started.append(server)
        return server

    monkeypatch.setattr("bench.replay.start_provider", recording)
    out = tmp_path / "r"
    options = Options(turns=9, window=32_000, provider="rotate", out=out, preload_messages=40, preload_turns=1,
                      min_page=20_000, max_page=30_000, seed=7, plot=False, only=("full",), reasoning="high",
                      switch_every=2)

    text, rows = await main_async(options, "smoke")

    assert rows[0].errors == 0 and rows[0].recall_correct == rows[0].recall_total
    records = [r for s in started for r in s.records]  # type: ignore[attr-defined]
    thought = {r.model for r in records if r.reasoning_tokens and r.kind == "chat"}
    assert {"claude-sonnet-4-5-20250929", "gpt-5", "gemini-2.5-pro"} <= thought
    assert not any(getattr(s, "refusals", None) for s in started)  # no reasoning item the Responses fake refused
    assert "answered as HTTP 500): 0" in text
    assert "every 2 turns; reasoning high" in text
    table = (out / "replay.md").read_text(encoding="utf-8")
    spend = next(line for line in table.splitlines() if line.startswith("| full |") and "$" in line)
    cells = [c.strip() for c in spend.strip("|").split("|")]
    billed_chat, app_read = (int(v.replace(",", "")) for v in cells[3].split(" / "))
    assert billed_chat == app_read > 0  # the app read every provider's reasoning tokens from its usage
    assert cells[6] == "0"  # no request resent without its reasoning
    assert "- gpt-5: $1.25 input, $10 output" in table
