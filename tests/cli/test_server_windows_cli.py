"""Every OpenAI-compatible server's own window: a model no registry knows is planned at the window the server states,
in whichever form it states it (LiteLLM's /model/info, OpenRouter, vLLM, Together, Fireworks, Groq, Mistral in their
/v1/models; LM Studio's /api/v0/models; llama.cpp's /props), `models list --refresh` shows it, and a server is asked
each probe once a day however many CLI turns (each a new process) there are."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli.harness import Cli
from tests.fakeservers import FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.local_servers import (
    FakeLiteLLMServer,
    FakeLlamaCppServer,
    FakeLmStudioServer,
    listing_of,
    requests_per_path,
)

WINDOW = 96_000  # no registry default: the server's figure or nothing
MODEL = "acme/unheard-of-model-7"


def _brain() -> ScriptedBrain:
    return ScriptedBrain([], default=Reply.of_text("Noted."))


def _listed(form: str) -> Callable[[], FakeOpenAIServer]:
    return lambda: FakeOpenAIServer(_brain(), models=[{"id": MODEL}], listing=listing_of(form, MODEL, WINDOW))


SERVERS: dict[str, tuple[Callable[[], FakeOpenAIServer], str, int, str]] = {
    # form: (the server, its model, the window it states, the window_source recorded)
    "litellm": (lambda: FakeLiteLLMServer(_brain(), model=MODEL, max_input_tokens=WINDOW), MODEL, WINDOW,
                "provider_api"),
    "openrouter": (_listed("openrouter"), MODEL, WINDOW, "provider_api"),
    "vllm": (_listed("vllm"), MODEL, WINDOW, "provider_api"),
    "together": (_listed("together"), MODEL, WINDOW, "provider_api"),
    "fireworks": (_listed("fireworks"), MODEL, WINDOW, "provider_api"),
    "groq": (_listed("groq"), MODEL, WINDOW, "provider_api"),
    "mistral": (_listed("mistral"), MODEL, WINDOW, "provider_api"),
    "lmstudio": (lambda: FakeLmStudioServer(_brain(), model=MODEL, loaded=WINDOW, maximum=131_072), MODEL, WINDOW,
                 "server"),
    "llamacpp": (lambda: FakeLlamaCppServer(_brain(), model=MODEL, n_ctx=WINDOW, n_ctx_train=131_072), MODEL, WINDOW,
                 "server"),
}


def _cli(tmp_path: Path, base_url: str) -> Cli:
    (tmp_path / "keychain").mkdir()
    cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
    added = cli.run("providers", "add", "Server", "--type", "openai_compatible", "--base-url", base_url,
                    subprocess_run=False)
    assert added.code == 0, added.err
    return cli


@pytest.mark.parametrize("form", sorted(SERVERS))
def test_an_unknown_model_is_planned_at_the_window_its_server_states(tmp_path: Path, form: str) -> None:
    make, model, window, source = SERVERS[form]
    with make() as server:
        cli = _cli(tmp_path, server.base_url)
        chat = cli.run("chat", "-p", "server", "-m", model, "--jsonl", "hello", subprocess_run=False)
        assert chat.code == 0, chat.err
        session = json.loads(chat.out.splitlines()[0])["session_id"]
        context = json.loads(cli.run("sessions", "context", session, "--json", subprocess_run=False).out)
    assert (context["window"], context["window_source"]) == (window, source)


@pytest.mark.parametrize("form", sorted(SERVERS))
def test_models_list_refresh_shows_the_window_its_server_states(tmp_path: Path, form: str) -> None:
    make, model, window, _ = SERVERS[form]
    with make() as server:
        cli = _cli(tmp_path, server.base_url)
        listed = cli.run("models", "list", "-p", "server", "--refresh", subprocess_run=False)
    assert listed.code == 0, listed.err
    row = next(line.split() for line in listed.out.splitlines() if model in line)
    assert row[:3] == ["server", model, str(window)]


def test_litellm_input_limit_is_recorded_apart_from_the_window(tmp_path: Path) -> None:
    with FakeLiteLLMServer(_brain(), model=MODEL, max_input_tokens=WINDOW) as server:
        cli = _cli(tmp_path, server.base_url)
        assert cli.run("chat", "-p", "server", "-m", MODEL, "hello", subprocess_run=False).code == 0
    with closing(sqlite3.connect(tmp_path / "home" / "palimpsest.db")) as db:
        row = db.execute("SELECT context_window_size, input_limit, window_source FROM models WHERE id = ?",
                         (MODEL,)).fetchone()
    assert row == (WINDOW, WINDOW, "provider_api")


def test_ten_cli_turns_ask_each_probe_at_most_once(tmp_path: Path) -> None:
    """A LiteLLM proxy answers 404 to Ollama's, llama.cpp's and LM Studio's probes: remembered, never asked again."""
    with FakeLiteLLMServer(_brain(), model=MODEL, max_input_tokens=WINDOW) as server:
        cli = _cli(tmp_path, server.base_url)
        first = cli.run("chat", "-p", "server", "-m", MODEL, "--jsonl", "turn 0")
        assert first.code == 0, first.err
        session = json.loads(first.out.splitlines()[0])["session_id"]
        for turn in range(1, 10):
            result = cli.run("chat", "-s", session, f"turn {turn}")
            assert result.code == 0, result.err
        asked = requests_per_path(server)
    assert asked["POST /v1/chat/completions"] >= 10
    probes = {path: n for path, n in asked.items() if path != "POST /v1/chat/completions"}
    assert probes == {"GET /api/version": 1, "GET /v1/models": 1, "GET /props": 1,
                      f"GET /api/v0/models/{MODEL}": 1, "GET /model/info": 1}


def test_a_probe_answered_more_than_a_day_ago_is_asked_again(tmp_path: Path) -> None:
    with FakeLiteLLMServer(_brain(), model=MODEL, max_input_tokens=WINDOW) as server:
        cli = _cli(tmp_path, server.base_url)
        first = cli.run("chat", "-p", "server", "-m", MODEL, "--jsonl", "hello", subprocess_run=False)
        session = json.loads(first.out.splitlines()[0])["session_id"]
        with closing(sqlite3.connect(tmp_path / "home" / "palimpsest.db")) as db:
            db.execute("UPDATE server_probes SET probed_at = probed_at - ? WHERE request = 'GET /props'",
                       (25 * 3600 * 1_000_000,))
            db.commit()
        assert cli.run("chat", "-s", session, "again", subprocess_run=False).code == 0
        asked = requests_per_path(server)
    assert asked["GET /props"] == 2 and asked["GET /api/version"] == 1  # only the stale one


def test_a_404_is_remembered_as_not_that_server(tmp_path: Path) -> None:
    with FakeLiteLLMServer(_brain(), model=MODEL, max_input_tokens=WINDOW) as server:
        cli = _cli(tmp_path, server.base_url)
        assert cli.run("chat", "-p", "server", "-m", MODEL, "hello", subprocess_run=False).code == 0
        root = server.root_url
    with closing(sqlite3.connect(tmp_path / "home" / "palimpsest.db")) as db:
        rows = dict(db.execute("SELECT request, answer FROM server_probes WHERE server = ?", (root,)).fetchall())
        servers = {r[0] for r in db.execute("SELECT server FROM server_probes")}
    assert rows["GET /api/version"] is None and rows["GET /props"] is None  # not Ollama, not llama.cpp
    assert rows[f"GET /api/v0/models/{MODEL}"] is None  # not LM Studio
    assert json.loads(rows["GET /model/info"])["data"][0]["model_info"]["max_input_tokens"] == WINDOW
    assert servers == {root, root + "/v1"}  # the root's probes and the base URL's list; no key anywhere
