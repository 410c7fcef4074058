"""Web search from the command line against the fake Anthropic server: `chat --web-search` for one command,
`sessions web-search ID on|off|default`, `agents set NAME web_search=on`; the sources after the reply, `citation`
lines in --jsonl, the searches priced; a compatible server says plainly it has none."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.cli.harness import Cli
from tests.fakeservers import FakeAnthropicServer, Reply, ScriptedBrain
from tests.fakeservers.web_search import Search

KEY = "sk-web-search-key-1"
MODEL = "claude-test-1"
PARIS = Search("weather paris", (("https://meteo.example/paris", "Paris forecast"),
                                  ("https://news.example/rain", "Rain in Paris")))
SEARCHED = replace(Reply.of_text("It rains in Paris today."), searches=(PARIS,))


def _cli(tmp_path: Path, server: FakeAnthropicServer) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def _last_turn(server: FakeAnthropicServer) -> dict[str, object]:
    return dict(next(r for r in reversed(server.requests) if "http_request" in r.tool_names).raw)  # not the title's


def _tools(server: FakeAnthropicServer) -> list[str]:
    return [t.get("type", t.get("name")) for t in _last_turn(server).get("tools", [])]  # type: ignore[attr-defined]


def test_chat_web_search_prints_numbered_sources_after_the_reply(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([SEARCHED]), api_key=KEY) as server:
        done = _cli(tmp_path, server).run("chat", "-p", "anthropic", "-m", MODEL, "--web-search", "Weather?",
                                          subprocess_run=False)
        assert done.code == 0, done.err
        assert "web_search_20250305" in _tools(server)
        assert "no web search" not in done.err  # Anthropic searches natively: no notice
    assert done.out.endswith("It rains in Paris today.\n\nSources:\n[1] Paris forecast — https://meteo.example/paris\n"
                             "[2] Rain in Paris — https://news.example/rain\n")


def test_jsonl_has_one_citation_line_per_source_and_counts_the_searches(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([SEARCHED]), api_key=KEY) as server:
        done = _cli(tmp_path, server).run("chat", "-p", "anthropic", "-m", MODEL, "--web-search", "--jsonl",
                                          "Weather?", subprocess_run=False)
    assert done.code == 0, done.err
    events = [json.loads(line) for line in done.out.splitlines()]
    citations = [e for e in events if e["type"] == "citation"]
    assert [(c["index"], c["url"], c["title"]) for c in citations] == [
        (1, "https://meteo.example/paris", "Paris forecast"), (2, "https://news.example/rain", "Rain in Paris")]
    assert citations[0]["spans"] == [{"cited_text": "It rains in Paris today.", "start": 0, "end": 24}]
    complete = next(e for e in events if e["type"] == "response_complete")
    assert complete["usage"]["web_search_requests"] == 1


def test_session_and_agent_settings_turn_search_on_and_off(tmp_path: Path) -> None:
    with FakeAnthropicServer(ScriptedBrain([], default=Reply.of_text("Fine.")), api_key=KEY) as server:
        cli = _cli(tmp_path, server)

        def run(*args: str) -> str:
            done = cli.run(*args, subprocess_run=False)
            assert done.code == 0, done.err
            return done.out

        first = run("chat", "-p", "anthropic", "-m", MODEL, "--jsonl", "hello")
        session_id = json.loads(first.splitlines()[0])["session_id"]
        assert "web_search_20250305" not in _tools(server)
        assert "on (this session's own setting)" in run("sessions", "web-search", session_id, "on")
        run("chat", "-s", session_id, "again")
        assert "web_search_20250305" in _tools(server)
        assert "off (the agent's or the app's setting)" in run("sessions", "web-search", session_id, "default")
        run("agents", "set", "general-assistant", "web_search=on", "web_blocked_domains=spam.example")
        run("chat", "-s", session_id, "more")
        tool = _last_turn(server)["tools"][-1]  # type: ignore[index]
        assert tool["type"] == "web_search_20250305" and tool["blocked_domains"] == ["spam.example"]
        run("sessions", "web-search", session_id, "off")
        run("chat", "-s", session_id, "last")
        assert "web_search_20250305" not in _tools(server)


def test_switching_provider_after_a_searched_turn_sends_it_as_text_with_its_sources(tmp_path: Path) -> None:
    from tests.fakeservers import FakeOpenAIServer

    openai_key = "sk-oai-web-switch-1"
    with FakeAnthropicServer(ScriptedBrain([SEARCHED], default=Reply.of_text("t")), api_key=KEY) as anthropic, \
            FakeOpenAIServer(ScriptedBrain([], default=Reply.of_text("Noted.")), api_key=openai_key) as openai:
        cli = _cli(tmp_path, anthropic)
        cli.env.update({"OPENAI_API_KEY": openai_key, "OPENAI_BASE_URL": openai.base_url})
        first = cli.run("chat", "-p", "anthropic", "-m", MODEL, "--web-search", "--jsonl", "Weather?",
                        subprocess_run=False)
        session_id = json.loads(first.out.splitlines()[0])["session_id"]
        switched = cli.run("chat", "-s", session_id, "-p", "openai", "-m", "gpt-4o", "--web-search", "And now?",
                           subprocess_run=False)
        assert switched.code == 0, switched.err
        sent = next(r for r in openai.requests if r.raw.get("tools")).raw["messages"]
    assistant = [m for m in sent if m["role"] == "assistant"]
    assert assistant[0]["content"] == ("It rains in Paris today.\n\nSources:\n[1] Paris forecast — "
                                       "https://meteo.example/paris\n[2] Rain in Paris — https://news.example/rain")
    assert "server_tool_use" not in json.dumps(sent) and "encrypted" not in json.dumps(sent)
    assert "OpenAI has no web search of its own, and no MCP search server is configured" in switched.err


def test_a_passage_cited_from_a_fetched_page_is_listed_and_sent_as_a_citation_span(tmp_path: Path) -> None:
    from tests.fakeservers.web_fetch import Fetch

    page = Fetch("https://tides.example/brest", "Brest tides", "High tide at 06:12. Low tide at 12:30.")
    fetched = replace(Reply.of_text("High tide is at 06:12."), fetches=(page,))
    with FakeAnthropicServer(ScriptedBrain([], default=fetched), api_key=KEY) as server:
        cli = _cli(tmp_path, server)
        ask = "Read https://tides.example/brest"
        plain = cli.run("chat", "-p", "anthropic", "-m", MODEL, "--web-search", ask, subprocess_run=False)
        lines = cli.run("chat", "-p", "anthropic", "-m", MODEL, "--web-search", "--jsonl", ask, subprocess_run=False)
    assert plain.code == 0 and lines.code == 0, plain.err + lines.err
    assert plain.out.endswith("High tide is at 06:12.\n\nSources:\n[1] Brest tides — https://tides.example/brest\n")
    citations = [e for e in map(json.loads, lines.out.splitlines()) if e["type"] == "citation"]
    assert [(c["index"], c["url"], c["spans"]) for c in citations] == [
        (1, "https://tides.example/brest", [{"cited_text": "High tide at 06:12.", "start": 0, "end": 22}])]


def test_a_fetch_the_api_refused_is_said_in_words_after_the_reply() -> None:
    from app.cli.web_cmd import sources_block
    from domain.web import WebSearchRecord

    record = WebSearchRecord(errors=("url_not_in_prior_context", "unsupported_content_type"))
    assert sources_block(record) == ("[web search: a page address was not in the conversation (only those can be "
                                     "fetched); a page was of a kind that cannot be fetched (only text, HTML and "
                                     "PDF)]")
