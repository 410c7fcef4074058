"""MCP beyond plain calls, through the real CLI against a real server subprocess (tests/mcp/protocol_server.py) and
a fake provider: a tool's image reaches the model as an image (tasks: tests/mcp/test_tasks.py)."""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.cli_env import Env, cli_env, last_turn

KEY = "sk-ant-mcp-proto-31"
MODEL = "claude-mcp-proto"


class ProtocolBrain:
    """`CALL tool {json}` makes the model call `proto__tool` once; then it answers with what the result held."""

    def __init__(self) -> None:
        self.results: list[ToolResultPart] = []
        self.offered: list[tuple[str, ...]] = []
        self.texts: list[str] = []  # the user text of each turn

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("MCP protocol test")
        self.offered.append(request.tool_names)
        text, results = last_turn(request)
        self.results.extend(results)
        if not results:
            self.texts.append(request.last_user_text)
        words = text.split(maxsplit=2)
        if words and words[0] == "CALL" and not results:
            arguments = json.loads(words[2]) if len(words) > 2 else {}
            server, _, tool = words[1].rpartition(":")
            return Reply(tool_calls=(ToolCall(f"{server or 'proto'}__{tool}", arguments),))
        return Reply.of_text("Done: " + " | ".join(f"{r.text[:80]} ({len(r.media)} images)" for r in results))


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env[ProtocolBrain]]:
    with cli_env(tmp_path, ProtocolBrain(), key=KEY, model=MODEL, chat_flags=("--allow-tools",)) as e:
        added = e.run("mcp", "add", "proto", "--", sys.executable, "-m", "tests.mcp.protocol_server")
        assert added.code == 0, added.err
        yield e


def test_a_tools_screenshot_reaches_the_model_as_an_image_inside_the_tool_result(env: Env) -> None:
    result, lines = env.chat('CALL screenshot {"width": 160, "height": 120}')

    assert result.code == 0, result.err
    [shot] = env.brain.results
    assert not shot.is_error and shot.text.startswith("A screenshot of 160x120 pixels.")
    [image] = shot.media  # an image block inside the tool_result, decoded and checked by the fake
    assert (image.kind, image.media_type, image.width, image.height) == ("image", "image/png", 160, 120)
    assert "[image: screenshot-image-1.png (image, " in shot.text
    with closing(sqlite3.connect(env.cli.home / "palimpsest.db")) as db:
        [(stored,)] = db.execute("SELECT attachments FROM messages WHERE type = 'tool_result'").fetchall()
    [kept] = json.loads(stored)
    [stored_event] = [line for line in lines if line["type"] == "tool_result"]
    assert stored_event["images"] == 1
    plain = env.run("chat", "-p", "anthropic", "-m", MODEL, "--allow-tools", "CALL screenshot")
    assert plain.code == 0, plain.err
    assert re.search(r"\[tool proto__screenshot: \d+ characters, 1 image\]", plain.err)
    assert kept["sha256"] == image.sha256 and kept["width"] == 160  # stored once, as an attachment of the result
    assert "response_complete" in [line["type"] for line in lines]


def test_a_long_tools_progress_comes_as_progress_events_before_its_result(env: Env) -> None:
    result, lines = env.chat('CALL slow {"steps": 3, "pause": 0.05}')

    assert result.code == 0, result.err
    kinds = [line["type"] for line in lines]
    progress = [line for line in lines if line["type"] == "progress"]
    assert [(p["name"], p["progress"], p["total"], p["message"]) for p in progress] == [
        ("proto__slow", 1.0, 3.0, "step 1 of 3"), ("proto__slow", 2.0, 3.0, "step 2 of 3"),
        ("proto__slow", 3.0, 3.0, "step 3 of 3")]
    assert kinds.index("tool_call") < kinds.index("progress") < kinds.index("tool_result")
    assert env.brain.results[-1].text == "done after 3 steps"


def test_progress_is_printed_as_a_line_per_report_without_jsonl(env: Env) -> None:
    result = env.run("chat", "-p", "anthropic", "-m", MODEL, "--allow-tools", 'CALL slow {"steps": 2, "pause": 0.05}')

    assert result.code == 0, result.err
    assert "[tool proto__slow: step 1 of 2 (50%)]" in result.err
    assert "[tool proto__slow: step 2 of 2 (100%)]" in result.err


def test_mcp_prompts_lists_the_servers_prompts_and_completes_an_argument(env: Env) -> None:
    listed = env.run("mcp", "prompts", "proto")
    assert listed.code == 0, listed.err
    assert re.search(r"review\s+language\* focus\s+Review code in a language", listed.out)

    completed = env.run("mcp", "prompts", "proto", "--complete", "review", "language", "p")
    assert completed.code == 0, completed.err
    assert completed.out.split() == ["python", "perl", "php"]  # the server's completion/complete


def test_chat_mcp_prompt_sends_the_filled_in_prompt_as_the_message(env: Env) -> None:
    result, _ = env.chat("Keep it short.", "--mcp-prompt", "proto/review", "language=rust", "focus=style")
    assert result.code == 0, result.err
    assert env.brain.texts[-1] == "Review this rust code for style.\n\nKeep it short."

    missing = env.run("chat", "-p", "anthropic", "-m", MODEL, "--mcp-prompt", "proto/review", "focus=style")
    assert missing.code != 0 and "The prompt 'review' needs language=VALUE." in missing.err


def test_mcp_resources_lists_them_and_chat_attaches_one(env: Env) -> None:
    listed = env.run("mcp", "resources", "proto")
    assert listed.code == 0, listed.err
    assert re.search(r"notes://today\s+today\s+text/plain\s+Today's notes", listed.out)

    result, _ = env.chat("What is on my list?", "--mcp-resource", "proto", "notes://today")

    assert result.code == 0, result.err
    assert "File today.txt:\n```\nBuy milk. Call Ada.\n```" in env.brain.texts[-1]


def test_without_a_terminal_a_servers_question_is_declined_and_sampling_refused(env: Env) -> None:
    result, _ = env.chat("CALL ask_name")
    assert result.code == 0, result.err
    assert env.brain.results[-1].text == "The user chose decline."
    assert "declined without asking (no terminal): the MCP server proto asked: What is your name?" in result.err

    result, _ = env.chat('CALL summarize {"text": "private notes"}')
    assert result.code == 0, result.err
    assert env.brain.results[-1].is_error
    assert "declined to run this request on their model" in env.brain.results[-1].text
    assert "refused without asking (no terminal): the MCP server proto asked to use your model" in result.err


def test_mcp_add_root_declares_the_folders_to_the_server(env: Env, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    added = env.run("mcp", "add", "rooted", "--root", str(project), "--", sys.executable, "-m",
                    "tests.mcp.protocol_server")
    assert added.code == 0, added.err
    [listed] = [s for s in json.loads(env.run("mcp", "list", "--json").out) if s["name"] == "rooted"]
    assert listed["roots"] == [str(project)]
    assert env.run("mcp", "permission", "rooted", "roots", "allow").code == 0

    result = env.run("chat", "--jsonl", "-p", "anthropic", "-m", MODEL, "CALL rooted:roots")
    assert result.code == 0, result.err
    assert env.brain.results[-1].text == project.as_uri()


def test_a_calls_time_limit_ends_a_long_tool_and_the_command_promptly(env: Env) -> None:
    added = env.run("mcp", "add", "limited", "--timeout", "2", "--", sys.executable, "-m",
                    "tests.mcp.protocol_server")
    assert added.code == 0, added.err
    started = time.monotonic()
    quick, _ = env.chat('CALL limited:slow {"steps": 1, "pause": 0}')  # the same turn with a tool that returns
    baseline = time.monotonic() - started
    assert quick.code == 0, quick.err
    started = time.monotonic()
    result, lines = env.chat('CALL limited:slow {"steps": 1, "pause": 60}')
    elapsed = time.monotonic() - started

    assert result.code == 0, result.err
    assert env.brain.results[-1].text == ("Error: slow on the MCP server 'limited' did not answer within 2 s; it was "
                                          "cancelled.")
    assert "response_complete" in [line["type"] for line in lines]
    assert elapsed - baseline < 2 + 5  # the 2 s limit, then the command ends (the tool would take 60 s)
