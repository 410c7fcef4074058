"""A task that needs the user's answer (status input_required, spec 2025-11-25): the client calls tasks/result, on
which the server asks its question; `palimpsest chat` asks it on the terminal and the answer reaches the task, whose
result reaches the model. Through the real CLI on a pseudo-terminal, against the protocol server's asking_task."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.cli_env import Env, cli_env
from tests.mcp.terminal import TerminalRun
from tests.mcp.test_protocol_e2e import KEY, MODEL, ProtocolBrain

QUESTION = "The MCP server proto asks: Whose account is it?\nAnswer? [y]es / [d]ecline / [c]ancel "


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env[ProtocolBrain]]:
    with cli_env(tmp_path, ProtocolBrain(), key=KEY, model=MODEL) as e:
        added = e.run("mcp", "add", "proto", "--", sys.executable, "-m", "tests.mcp.protocol_server")
        assert added.code == 0, added.err
        yield e


def _chat(env: Env[ProtocolBrain]) -> TerminalRun:
    return TerminalRun(env.cli, "chat", "--jsonl", "-p", "anthropic", "-m", MODEL, "--allow-tools",
                       "CALL asking_task")


def test_a_tasks_question_is_asked_on_the_terminal_and_the_answer_reaches_the_task(env: Env[ProtocolBrain]) -> None:
    with _chat(env) as terminal:
        terminal.expect(QUESTION)
        terminal.type("y\n")
        terminal.expect("name (required): ")
        terminal.type("Ada\n")
        code, out = terminal.finish()

    assert code == 0, terminal.screen
    [outcome] = env.brain.results
    assert (outcome.text, outcome.is_error) == ("The account of Ada holds 3 invoices.", False)
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("response_complete")
    progress = [line["message"] for line in lines if line["type"] == "progress"]
    assert progress[-1:] == ["reading the account"]  # the task's status after the answer is still reported
    assert kinds.index("progress") < kinds.index("tool_result")
    log = (env.cli.home / "logs" / "mcp" / "proto.log").read_text()
    assert "task-1 answered: accept {'name': 'Ada'}" in log  # on tasks/result, with the task's related-task _meta


def test_a_declined_task_question_reaches_the_task_as_declined(env: Env[ProtocolBrain]) -> None:
    with _chat(env) as terminal:
        terminal.expect(QUESTION)
        terminal.type("d\n")
        code, _ = terminal.finish()

    assert code == 0, terminal.screen
    [outcome] = env.brain.results
    assert (outcome.text, outcome.is_error) == ("The user chose decline; nothing was looked up.", False)
    assert "name (required)" not in terminal.screen
