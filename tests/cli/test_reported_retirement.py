"""The retirement day a provider's own model list reports wins over the registry's table: Anthropic's Models API
(`lifecycle`, `retires_at`) and OpenAI's (`shutdown_date`), as `palimpsest models list --refresh` fetches them from
the fake servers. The day is kept with the model until the next refresh (a revised or withdrawn day too); the
successor stays the registry's. A conversation on such a model is told the provider's day."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.anthropic_rules import model_info

KEY = "sk-reported-retirement-1"


def _rows(out: str) -> dict[str, str]:
    return {line.split()[1]: line for line in out.splitlines()[1:] if len(line.split()) > 1}


def _deprecated(model_id: str, name: str, day: str) -> dict[str, object]:
    return {**model_info(model_id, display_name=name), "lifecycle": "deprecated", "retires_at": f"{day}T00:00:00Z",
            "deprecated_at": "2026-06-01T00:00:00Z"}


def test_anthropic_reports_a_day_the_registry_does_not_know_and_revises_one_it_does(tmp_path: Path) -> None:
    today = datetime.now(UTC).date()
    soon, revised = today + timedelta(days=10), today + timedelta(days=20)  # days from today: the test runs any day
    with FakeAnthropicServer(ScriptedBrain([], default=Reply.of_text("Fine.")), api_key=KEY) as fake:
        fake.models = [model_info("claude-test-1", display_name="Claude Test"),
                       _deprecated("claude-test-9", "Claude Test 9", soon.isoformat()),
                       _deprecated("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", revised.isoformat())]
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", {"ANTHROPIC_API_KEY": KEY,
                                                              "ANTHROPIC_BASE_URL": fake.base_url})
        before = _rows(cli.run("models", "list", "-p", "anthropic", subprocess_run=False).out)
        assert before["claude-sonnet-4-5-20250929"].endswith(" 2026-11-30 (use claude-sonnet-4-6)")  # the table's
        listed = cli.run("models", "list", "-p", "anthropic", "--refresh", subprocess_run=False)
        assert listed.code == 0, listed.err
        rows = _rows(listed.out)
        assert rows["claude-test-9"].endswith(f"retires {soon.isoformat()}")
        assert rows["claude-sonnet-4-5-20250929"].endswith(f"retires {revised.isoformat()} (use claude-sonnet-4-6)")
        assert rows["claude-test-1"].rstrip().endswith("fetched")  # active, no day: nothing said

        done = cli.run("chat", "-p", "anthropic", "-m", "claude-test-9", "--jsonl", "Hi", subprocess_run=False)
        assert done.code == 0, done.err
        warning = next(e for e in map(json.loads, done.out.splitlines()) if e["type"] == "warning")
        assert warning["message"].startswith(f"Claude Test 9 retires on {soon.day} ")
        assert "(in 10 days): Anthropic stops serving it then." in warning["message"]

        fake.models = [model_info("claude-test-9", display_name="Claude Test 9"),  # the retirement withdrawn
                       model_info("claude-sonnet-4-5-20250929", display_name="Claude Sonnet 4.5")]
        again = _rows(cli.run("models", "list", "-p", "anthropic", "--refresh", subprocess_run=False).out)
    assert "retire" not in again["claude-test-9"]
    assert again["claude-sonnet-4-5-20250929"].endswith(" 2026-11-30 (use claude-sonnet-4-6)")  # the table's again


def test_openai_reports_its_shutdown_dates_in_its_model_list(tmp_path: Path) -> None:
    later = (datetime.now(UTC) + timedelta(days=90)).date().isoformat()
    with FakeOpenAIServer(ScriptedBrain([], default=Reply.of_text("Fine.")), api_key=KEY) as fake:
        fake.models = [{"id": "gpt-4.1", "shutdown_date": later}, {"id": "gpt-test-1", "shutdown_date": None},
                       {"id": "gpt-odd-1", "shutdown_date": "soon"}]
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url})
        listed = cli.run("models", "list", "-p", "openai", "--refresh", subprocess_run=False)
    assert listed.code == 0, listed.err
    rows = _rows(listed.out)
    assert rows["gpt-4.1"].endswith(f"retires {later}")  # OpenAI's own day over the table's 2027-01-14
    assert "retire" not in rows["gpt-test-1"] and "retire" not in rows["gpt-odd-1"]  # none, or unreadable: nothing
    assert rows["gpt-5"].endswith(" 2026-12-11 (use gpt-6.1-sol)")  # not in this list: the table's day and successor
