"""Models OpenAI and Google retired, from the command line against their fake servers refusing them as the real APIs
do (OpenAI: 404 model_not_found; Gemini: 404 NOT_FOUND "models/<id> is not found"): the error names the day, the
message is kept, and a Retry on another model answers it. The registry's days for the models still served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.harness import Cli
from tests.fakeservers import FakeGeminiServer, FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.gemini_server import RETIRED_MODELS as GEMINI_RETIRED
from tests.fakeservers.openai_server import RETIRED_MODELS as OPENAI_RETIRED
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.server import FakeProviderServer

KEY = "sk-retired-vendor-key-1"

# provider, fake, env of the base URL, a retired model and its wording, a live model to retry on
CASES = {
    "openai": (FakeOpenAIServer, "OPENAI_BASE_URL", "o4-mini", "o4-mini was retired on 23 October 2026", "gpt-4.1"),
    "openai-responses": (FakeResponsesServer, "OPENAI_BASE_URL", "o1", "o1 was retired on 23 October 2026",
                         "gpt-4.1"),
    "gemini": (FakeGeminiServer, "GOOGLE_GEMINI_BASE_URL", "gemini-2.0-flash",
               "Gemini 2.0 Flash was retired on 1 June 2026", "gemini-2.5-flash-lite"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_model_the_vendor_shut_down_is_named_with_its_day_and_the_message_waits(tmp_path: Path, case: str) -> None:
    fake_type, base_env, retired, said, live = CASES[case]
    provider = "gemini" if case == "gemini" else "openai"
    env_key = "GEMINI_API_KEY" if provider == "gemini" else "OPENAI_API_KEY"
    fake: FakeProviderServer
    with fake_type(ScriptedBrain([], default=Reply.of_text("Here.")), api_key=KEY) as fake:
        fake.retired = GEMINI_RETIRED if provider == "gemini" else OPENAI_RETIRED  # type: ignore[attr-defined]
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", {env_key: KEY, base_env: fake.base_url})
        if case == "openai-responses":
            assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
        done = cli.run("chat", "-p", provider, "-m", retired, "--jsonl", "Still there?", subprocess_run=False)
        assert done.code != 0
        events = [json.loads(line) for line in done.out.splitlines()]
        vendor = "Google Gemini" if provider == "gemini" else "OpenAI"
        notice = next(e for e in events if e["type"] == "warning")
        assert notice["message"].startswith(f"{said}: ")
        assert "Choose another model for this conversation." in notice["message"]
        error = next(e for e in events if e["type"] == "error")
        assert error["message"].startswith(f"{said} and ")
        assert "no longer serves it. Choose another model for this conversation, then Retry (your message is " \
               "kept)." in error["message"], error["message"]
        assert vendor.split()[0] in error["message"]
        session_id = events[0]["session_id"]
        assert [r.model for r in fake.requests if r.stream] == []  # the refused request was never answered

        retried = cli.run("chat", "-s", session_id, "-m", live, "--retry", subprocess_run=False)
        assert retried.code == 0, retried.err
        assert retried.out.strip() == "Here."
        assert {r.model for r in fake.requests} == {live}
    shown = cli.run("sessions", "show", session_id, "--json", subprocess_run=False)
    assert shown.code == 0, shown.err
    assert [(m["type"], m["content"]) for m in json.loads(shown.out)["messages"]] == [
        ("user", "Still there?"), ("ai_response", "Here.")]


def test_models_list_gives_openai_and_gemini_their_days(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "home", tmp_path / "keys.json", {})
    openai = cli.run("models", "list", "-p", "openai", subprocess_run=False)
    gemini = cli.run("models", "list", "-p", "gemini", subprocess_run=False)
    assert openai.code == 0 and gemini.code == 0, openai.err + gemini.err
    rows = {line.split()[1]: line for line in (openai.out + gemini.out).splitlines() if line.split()[1:]}
    assert rows["o1"].endswith("retired 2026-10-23")
    assert rows["gpt-5"].endswith(" 2026-12-11 (use gpt-6.1-sol)")  # its named successor, now a preset
    assert rows["gpt-4.1"].endswith(" 2027-01-14")
    assert rows["gemini-2.5-flash"].endswith(" 2026-12-01 (use gemini-3.5-flash-lite)")  # retires, then retired
    assert rows["gemini-3.5-flash-lite"].endswith("default")
    assert rows["gemini-2.0-flash-lite"].endswith("retired 2026-06-01 (use gemini-2.5-flash-lite)")
    assert "retire" not in rows["gemini-2.5-flash-lite"]


def test_the_text_output_without_a_successor_points_to_the_vendors_own_list(tmp_path: Path) -> None:
    with FakeOpenAIServer(ScriptedBrain([], default=Reply.of_text("Here.")), api_key=KEY) as fake:
        fake.retired = OPENAI_RETIRED
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url})
        done = cli.run("chat", "-p", "openai", "-m", "o3-mini", "Hello?", subprocess_run=False)
    assert done.code != 0 and done.out == ""
    session_id = done.err.split("session: ", 1)[1].split()[0]
    assert done.err.rstrip().endswith(
        f"Retry with: palimpsest chat -s {session_id} -m MODEL --retry (models: palimpsest models list -p openai "
        "--refresh)")
