"""What is sent does not depend on the process: after a long tool-heavy session, a restarted process (a new
container on the same database) computes the same next request as the one that was running."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

from app.cli.sessions_cmd import run_sessions
from app.container import Container
from domain.context.pruner import HARD_CLEAR_TEXT
from domain.models import Message, MessageType, ToolStatus
from tests.fakes_turn import FakeAdapterFactory

PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"


def open_container(home: Path) -> Container:
    c = Container.build(home, adapter_factory=FakeAdapterFactory(default_completion="A title"))
    c.set_api_key(PROVIDER, "sk-ant-test")
    return c


def next_request(c: Container, sid: str) -> list[Message]:
    return c.planner.plan(c.contexts.load(sid)).request.messages


async def test_a_restarted_process_computes_the_request_the_running_one_would_send(tmp_path: Path) -> None:
    running = open_container(tmp_path / "home")
    try:
        sid = running.create_session(provider_id=PROVIDER, model_id=MODEL).id
        add = running.storage.messages.add
        for turn in range(6):
            add(Message(f"q{turn}", sid, MessageType.USER, f"Read the next logs, part {turn}."))
            for i in range(7):  # a tool loop: the running process plans a request after every result
                n = 7 * turn + i
                add(Message(f"c{n}", sid, MessageType.TOOL_CALL, tool_call_id=f"t{n}", tool_name="http_request",
                            tool_input=f'{{"url": "http://logs.example/{n}"}}'))
                add(Message(f"r{n}", sid, MessageType.TOOL_RESULT, tool_call_id=f"t{n}", tool_name="http_request",
                            tool_output=f"log {n}\n" + f"entry {n}: berth {n % 9} clear\n" * (250 + 40 * (n % 4)),
                            tool_status=ToolStatus.SUCCESS))
                next_request(running, sid)
            add(Message(f"a{turn}", sid, MessageType.AI_RESPONSE, f"Logs of part {turn} read."))
            next_request(running, sid)
        sent = next_request(running, sid)
        status = running.context_status(sid)
    finally:
        running.close()

    outputs = [m.tool_output or "" for m in sent if m.type is MessageType.TOOL_RESULT]
    assert any(o.startswith(HARD_CLEAR_TEXT) for o in outputs) and any("--- trimmed" in o for o in outputs)
    restarted = open_container(tmp_path / "home")
    try:
        assert restarted.context_status(sid) == status  # before it has planned anything itself
        assert next_request(restarted, sid) == sent
        out = io.StringIO()
        assert await run_sessions(restarted, argparse.Namespace(action="context", id=sid, json=True), out,
                                  io.StringIO()) == 0
        assert json.loads(out.getvalue())["used"] == status.used
    finally:
        restarted.close()
