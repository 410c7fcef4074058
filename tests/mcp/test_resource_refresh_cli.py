"""A resource attached with `chat --mcp-resource` is read again by each later `chat -s ID` of the conversation (a new
process each): its new contents are sent when they changed, nothing when they did not, and a read that fails or a
server that is gone is said and the copy sent earlier stands. Through the real CLI, against a real server subprocess
(tests/mcp/file_server.py, whose resource is a file the test changes between commands) and the fake Anthropic
server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.usecases.generate_title import TITLE_SYSTEM
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply
from tests.mcp.cli_env import Env, cli_env

KEY = "sk-ant-mcp-refresh-31"
MODEL = "claude-mcp-refresh"
URI = "notes://shared/list"
CHANGED = f"{URI} changed; its new contents are attached."


class EchoBrain:
    """Answers every turn; keeps the text of each turn's last user message (attached text files included)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("Notes")
        self.texts.append(request.last_user_text)
        return Reply.of_text("Noted.")


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env[EchoBrain]]:
    with cli_env(tmp_path, EchoBrain(), key=KEY, model=MODEL) as e:
        yield e


def _file(text: str) -> str:
    return f"File list.txt:\n```\n{text}\n```"


def _notices(lines: list[dict[str, object]]) -> list[object]:
    return [line["message"] for line in lines if line["type"] == "notice"]


def _start(env: Env[EchoBrain], notes: Path) -> str:
    """The server added, the resource attached to a new conversation's first message; the conversation's id."""
    notes.write_text("Version 1.", encoding="utf-8")
    added = env.run("mcp", "add", "files", "--", sys.executable, "-m", "tests.mcp.file_server", str(notes))
    assert added.code == 0, added.err
    first, lines = env.chat("Keep my list.", "--mcp-resource", "files", URI)
    assert first.code == 0, first.err
    assert _file("Version 1.") in env.brain.texts[-1]
    return str(lines[0]["session_id"])


def test_the_next_chat_sends_a_changed_resource_again_and_the_one_after_sends_nothing_new(
        env: Env[EchoBrain], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    sid = _start(env, notes)

    notes.write_text("Version 2.", encoding="utf-8")
    second, lines = env.chat("What does it say now?", "-s", sid)

    assert second.code == 0, second.err
    sent = env.brain.texts[-1]
    assert _file("Version 2.") in sent and "Version 1." not in sent
    assert sent.endswith(f"What does it say now?\n\n[{CHANGED}]")  # the file first, then the text and notice
    assert _notices(lines) == [CHANGED]

    third, lines = env.chat("And now?", "-s", sid)  # unchanged since: nothing attached again

    assert third.code == 0, third.err
    assert env.brain.texts[-1] == "And now?"
    assert _notices(lines) == []

    notes.write_text("Version 3.", encoding="utf-8")
    plain = env.run("chat", "-p", "anthropic", "-m", MODEL, "-s", sid, "Again?")  # without --jsonl: on stderr
    assert plain.code == 0, plain.err
    assert f"[{CHANGED}]" in plain.err
    assert _file("Version 3.") in env.brain.texts[-1]


def test_a_resource_that_cannot_be_read_again_or_whose_server_is_gone_is_said_and_the_chat_goes_on(
        env: Env[EchoBrain], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    sid = _start(env, notes)

    notes.unlink()  # the server now answers the read with an error
    failed, lines = env.chat("Is it still there?", "-s", sid)

    assert failed.code == 0, failed.err
    assert env.brain.texts[-1] == "Is it still there?"
    [notice] = _notices(lines)
    assert str(notice).startswith(f"{URI} of files could not be read again (") and \
        str(notice).endswith("); the copy attached earlier stands.")

    assert env.run("mcp", "remove", "files").code == 0
    gone, lines = env.chat("And now?", "-s", sid)

    assert gone.code == 0, gone.err
    assert env.brain.texts[-1] == "And now?"
    assert _notices(lines) == [f"{URI} of files could not be read again (the MCP server files is no longer set "
                               f"up); the copy attached earlier stands."]
