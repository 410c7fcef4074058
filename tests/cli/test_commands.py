"""Every CLI command against a real store and the fake Anthropic server (in-process through app.main.main)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.brain import SimulatedBrain
from tests.cli.harness import Cli, CliResult, PageServer
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Answer, ErrorReply, NormalizedRequest, Reply, ScriptedBrain, ToolCall

KEY = "sk-ant-cmd-test-91bd"
MODEL = "claude-cmd-8k"


@dataclass
class Env:
    """A configured CLI with a fake Anthropic server behind it."""

    cli: Cli
    server: FakeAnthropicServer
    brain: SimulatedBrain

    def run(self, *args: str, stdin: str = "") -> CliResult:
        return self.cli.run(*args, stdin=stdin, subprocess_run=False)

    def chat(self, *args: str) -> tuple[CliResult, list[dict[str, object]]]:
        result = self.run("chat", "--jsonl", *args)
        return result, [json.loads(line) for line in result.out.splitlines()]


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    (tmp_path / "keychain").mkdir()
    brain = SimulatedBrain()
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        e = Env(Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json"), server, brain)
        assert e.run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        assert e.run("models", "add", "anthropic", MODEL, "--context-window", "8192").code == 0
        assert e.run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        yield e


def new_session(env: Env, text: str = "Hello FACT: the buoy is red.") -> str:
    result, lines = env.chat("-p", "anthropic", "-m", MODEL, text)
    assert result.code == 0, result.err
    return str(lines[0]["session_id"])


def test_chat_streams_the_reply_as_text_and_names_the_new_session(env: Env) -> None:
    result = env.run("chat", "-p", "Anthropic", "-m", MODEL, "hello there")
    assert result.code == 0
    assert result.out.startswith("Noted;")
    assert result.err.startswith("session: ")


def test_chat_reads_the_message_from_standard_input_with_a_dash(env: Env) -> None:
    result = env.run("chat", "-p", "anthropic", "-m", MODEL, "-", stdin="piped 潮 message")
    assert result.code == 0
    assert env.brain.chat_requests[-1].last_user_text == "piped 潮 message"


def test_chat_continues_a_session_and_the_jsonl_starts_with_it(env: Env) -> None:
    session = new_session(env)
    result, lines = env.chat("-s", session, "and again")
    assert lines[0] == {"type": "session", "session_id": session}
    assert "session:" not in result.err
    assert [line["type"] for line in lines][-1] != "error"
    assert any(line["type"] == "response_complete" for line in lines)


def test_sessions_list_shows_sessions_as_text_and_json(env: Env) -> None:
    empty = env.run("sessions", "list")
    assert empty.code == 0 and "No sessions yet" in empty.err
    session = new_session(env)
    assert session in env.run("sessions", "list").out
    [row] = json.loads(env.run("sessions", "list", "--json").out)
    assert row["id"] == session and row["message_count"] >= 2 and row["model_id"] == MODEL


def test_sessions_show_lists_every_message_with_its_fields(env: Env) -> None:
    session = new_session(env)
    text = env.run("sessions", "show", session).out
    assert "Hello FACT: the buoy is red." in text and "#2 assistant" in text and "ai_response" not in text
    data = json.loads(env.run("sessions", "show", session, "--json").out)
    assert data["compaction_count"] == 0 and data["compacted_summary"] is None
    first = data["messages"][0]
    assert {"type", "content", "tool_name", "tool_output", "created_at", "behind_boundary"} <= set(first)
    assert (first["type"], first["behind_boundary"]) == ("user", False)
    assert data["total_input_tokens"] > 0


def test_compact_summarizes_and_show_marks_the_summarized_messages(env: Env) -> None:
    session = new_session(env, "First FACT: the pier is number 9. " + "padding words " * 400)
    for i in range(3):
        env.chat("-s", session, f"turn {i} " + "more words " * 400)
    result = env.run("sessions", "compact", session, "--instructions", "keep the pier number")
    assert result.code == 0, result.err
    assert result.out.startswith("Compacted:")
    data = json.loads(env.run("sessions", "show", session, "--json").out)
    assert "FACT: the pier is number 9." in data["compacted_summary"]
    assert data["compaction_count"] == 1
    assert data["messages"][0]["behind_boundary"] is True
    assert "keep the pier number" in env.brain.summary_requests[-1].messages[-1].text
    reset = env.run("sessions", "reset-context", session)
    assert reset.code == 0 and "Context reset" in reset.out
    after = json.loads(env.run("sessions", "show", session, "--json").out)
    assert after["compacted_summary"] is None
    assert not any(m["behind_boundary"] for m in after["messages"])
    assert len(after["messages"]) == len(data["messages"])


def test_compact_with_a_failing_summarizer_leaves_the_session_unchanged_and_exits_1(env: Env) -> None:
    session = new_session(env, "First " + "padding words " * 400)
    for i in range(3):
        env.chat("-s", session, f"turn {i} " + "more words " * 400)

    class FailingSummaries(SimulatedBrain):
        def _summarize(self, request: NormalizedRequest) -> Answer:
            return ErrorReply("bad_request", message="summaries are broken today")

    env.server.brain = FailingSummaries()
    result = env.run("sessions", "compact", session)
    assert result.code == 1
    assert result.err.startswith("palimpsest: the summarizer failed") and result.err.count("\n") == 1
    data = json.loads(env.run("sessions", "show", session, "--json").out)
    assert data["compaction_count"] == 0 and data["compacted_summary"] is None


def test_an_agents_context_overrides_apply_to_its_turns(env: Env) -> None:
    from app.container import Container
    from domain.models import Agent

    container = Container.build(env.cli.home)
    try:
        container.save_agent(Agent(id="terse", name="Terse", context_overrides={"tool_result_max_chars": 5_000}))
    finally:
        container.close()
    with PageServer().running() as pages:
        result, lines = env.chat("--agent", "Terse", "-p", "anthropic", "-m", MODEL, f"FETCH {pages.url}/text/1")
    assert result.code == 0, result.err
    [stored] = [line for line in lines if line["type"] == "tool_result"]
    assert stored["truncated"] is True
    assert 5_000 < int(str(stored["chars"])) < 5_600


def test_export_writes_markdown_or_json_to_stdout_or_a_file(env: Env, tmp_path: Path) -> None:
    session = new_session(env)
    markdown = env.run("sessions", "export", session)
    assert markdown.out.startswith("# ") and "Hello FACT: the buoy is red." in markdown.out
    target = tmp_path / "out.json"
    written = env.run("sessions", "export", session, "--format", "json", "-o", str(target))
    assert written.code == 0 and written.out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["id"] == session
    bad = env.run("sessions", "export", session, "-o", str(tmp_path / "missing" / "dir" / "x.md"))
    assert bad.code == 1 and bad.err.startswith("palimpsest: Cannot write")


def test_search_finds_sessions_by_message_text(env: Env) -> None:
    session = new_session(env, "Where is the lighthouse keeper?")
    assert session in env.run("sessions", "search", "lighthouse").out
    none = env.run("sessions", "search", "zeppelin")
    assert none.code == 0 and "No sessions match" in none.err


def test_delete_hides_the_session_and_later_commands_say_it_is_unknown(env: Env) -> None:
    session = new_session(env)
    assert env.run("sessions", "delete", session).code == 0
    assert session not in env.run("sessions", "list").out
    shown = env.run("sessions", "show", session)
    assert (shown.code, shown.err) == (
        1, f"palimpsest: No session named {session!r}. See the sessions with: palimpsest sessions list\n")


def test_providers_list_set_and_add(env: Env) -> None:
    listed = env.run("providers", "list").out
    assert env.server.base_url in listed and "keychain" in listed
    added = env.run("providers", "add", "Local LLM", "--type", "openai_compatible", "--base-url",
                    "http://127.0.0.1:9/v1")
    assert added.code == 0 and "id local-llm" in added.out
    assert "local-llm" in env.run("providers", "list").out
    cleared = env.run("providers", "set", "anthropic", "--base-url", "")
    assert cleared.code == 0 and "reset to the default" in cleared.out
    bad = env.run("providers", "set", "anthropic", "--base-url", "ftp://x")
    assert bad.code == 1 and "not a base URL" in bad.err


def test_providers_set_api_chooses_responses_or_chat_completions(env: Env) -> None:
    rows = {line.split()[0]: line.split() for line in env.run("providers", "list").out.splitlines()[1:]}
    assert rows["openai"][3] == "auto:responses" and rows["anthropic"][3] == "-"
    chosen = env.run("providers", "set", "openai", "--api", "chat-completions")
    assert chosen.code == 0 and chosen.out == "OpenAI: API chat-completions.\n"
    rows = {line.split()[0]: line.split() for line in env.run("providers", "list").out.splitlines()[1:]}
    assert rows["openai"][3] == "chat-completions"
    refused = env.run("providers", "set", "anthropic", "--api", "responses")
    assert refused.code == 1 and "speaks only its own API" in refused.err
    nothing = env.run("providers", "set", "openai")
    assert nothing.code == 1 and "Nothing to set" in nothing.err
    assert env.run("providers", "set", "openai", "--api", "auto").out == "OpenAI: API auto:responses.\n"


def test_models_list_add_and_refresh(env: Env) -> None:
    listed = env.run("models", "list", "-p", "anthropic").out
    assert MODEL in listed and "user window" in listed
    assert "gpt-4o" in env.run("models", "list").out
    added = env.run("models", "add", "anthropic", "claude-sonnet-4-5-20250929", "--context-window", "50000",
                    "--max-output", "4000")
    assert added.out.startswith("anthropic/claude-sonnet-4-5-20250929: context window 50000 tokens")
    refreshed = env.run("models", "list", "-p", "anthropic", "--refresh")
    assert refreshed.code == 0 and "claude-test-1" in refreshed.out and "fetched" in refreshed.out
    bad = env.run("models", "add", "anthropic", "x", "--context-window", "12")
    assert bad.code == 1 and "context window must be between" in bad.err


def test_models_refresh_without_a_provider_refreshes_every_provider_with_a_key(env: Env) -> None:
    refreshed = env.run("models", "list", "--refresh")
    assert refreshed.code == 0, refreshed.err
    assert "claude-test-1" in refreshed.out and "gpt-4o" in refreshed.out


def test_keys_set_status_and_delete_never_print_the_key(env: Env) -> None:
    status = env.run("keys", "status")
    assert "anthropic" in status.out and "keychain" in status.out
    deleted = env.run("keys", "delete", "anthropic")
    assert deleted.code == 0
    assert "none" in env.run("keys", "status").out.splitlines()[1]
    blank = env.run("keys", "set", "openai", stdin="\n")
    assert blank.code == 1 and "No key was given" in blank.err
    for result in (status, deleted, blank):
        assert KEY not in result.out + result.err


def test_a_turn_without_a_key_fails_with_one_plain_line(env: Env) -> None:
    env.run("keys", "delete", "anthropic")
    result, lines = env.chat("-p", "anthropic", "-m", MODEL, "hello")
    assert result.code == 1
    assert lines[-1]["type"] == "error" and lines[-1]["kind"] == "authentication"


def test_a_model_that_never_stops_calling_tools_ends_the_turn_with_a_notice_and_status_1(env: Env) -> None:
    class ToolLoop:
        def respond(self, request: NormalizedRequest) -> Answer:
            return Reply(tool_calls=(ToolCall("search_memory", {"query": "anything"}),))

    env.server.brain = ToolLoop()
    result = env.run("chat", "-p", "anthropic", "-m", MODEL, "loop please")
    assert result.code == 1
    assert "[stopped after 10 tool rounds; send another message to continue]" in result.err


def test_a_stream_that_breaks_midway_keeps_the_partial_reply_and_exits_1(env: Env) -> None:
    session = new_session(env)
    env.server.brain = ScriptedBrain(default=ErrorReply("cut_off", chunks_before=("The tide tables say ",)))
    result, lines = env.chat("-s", session, "what do the tables say?")
    assert result.code == 1
    assert lines[-1]["type"] == "error"
    data = json.loads(env.run("sessions", "show", session, "--json").out)
    user, reply = data["messages"][-2:]
    assert user["content"] == "what do the tables say?"
    assert reply["incomplete"] is True and reply["content"].startswith("The tide tables say")


def test_an_unknown_provider_or_agent_is_one_plain_line(env: Env) -> None:
    result = env.run("chat", "-p", "mistral", "hi")
    assert result.code == 1
    assert result.err == "palimpsest: No provider named 'mistral'. Known providers: anthropic, openai, gemini.\n"
    known = env.run("chat", "--agent", "General assistant", "-p", "anthropic", "-m", MODEL, "hi")
    assert known.code == 0, known.err
    agent = env.run("chat", "--agent", "Nobody", "hi")
    assert (agent.code, agent.err) == (
        1, "palimpsest: No agent named 'Nobody'. Known agents: General assistant. "
           "Leave out --agent to use the default agent.\n")


def test_search_prints_the_message_id_of_the_hit(env: Env) -> None:
    session = new_session(env, "Where is the lighthouse keeper?")
    shown = json.loads(env.run("sessions", "show", session, "--json").out)
    asked = next(m["id"] for m in shown["messages"] if "lighthouse" in (m["content"] or ""))
    line = env.run("sessions", "search", "lighthouse").out.splitlines()[0]
    assert line.split()[:2] == [session, asked]


def test_archive_hides_a_session_from_the_list_until_unarchived_and_it_stays_searchable(env: Env) -> None:
    kept, archived = new_session(env, "Kept one about tides"), new_session(env, "Archived one about lighthouses")
    done = env.run("sessions", "archive", archived)
    assert done.code == 0 and done.out.startswith(f"Archived session {archived}")
    listed = env.run("sessions", "list").out
    assert kept in listed and archived not in listed
    only = env.run("sessions", "list", "--archived").out
    assert archived in only and kept not in only and "(archived)" in only
    both = env.run("sessions", "list", "--all").out
    assert kept in both and archived in both
    as_json = json.loads(env.run("sessions", "list", "--all", "--json").out)
    assert {s["id"]: s["archived"] for s in as_json} == {kept: False, archived: True}
    assert env.run("sessions", "show", archived).code == 0
    found = env.run("sessions", "search", "lighthouses").out
    assert archived in found and "(archived)" in found
    back = env.run("sessions", "unarchive", archived)
    assert back.code == 0 and back.out.startswith(f"Unarchived session {archived}")
    assert archived in env.run("sessions", "list").out
    assert "(archived)" not in env.run("sessions", "search", "lighthouses").out
    assert "No archived sessions." in env.run("sessions", "list", "--archived").err
    unknown = env.run("sessions", "archive", "no-such-session")
    assert unknown.code != 0 and "no-such-session" in unknown.err and "Traceback" not in unknown.err
