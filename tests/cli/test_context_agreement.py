"""The gauge (GUI path), `sessions context` and the turn itself report one number: what the next request costs."""

from __future__ import annotations

import argparse
import io
import json
from dataclasses import replace
from pathlib import Path

from app.cli.agents_cmd import run_agents
from app.cli.sessions_cmd import run_sessions
from app.container import Container
from app.gui.bridge import ContainerBackend
from data.storage import Storage
from domain.chat.request import model_key
from domain.events import ContextStatusChanged
from domain.models import MessageType
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory, reply, tool_round
from ui.backend import Selection

MODEL = "claude-sonnet-4-6"


async def test_with_pruning_off_in_the_agent_gauge_cli_and_turn_agree_with_the_request_sent(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path / "home")
    adapters = FakeAdapterFactory(default_completion="Log reading")
    container = Container(storage, FakeApiKeyStorage({"anthropic": "sk-test"}), adapters)
    try:
        out = io.StringIO()
        code = await run_agents(container, argparse.Namespace(action="set", name="General assistant",
                                                              pairs=["pruning=off"]), out, io.StringIO())
        assert code == 0 and "pruning_enabled=False" in out.getvalue()
        session = container.create_session(provider_id="anthropic", model_id=MODEL)
        page = "log line: all systems nominal " * 900  # about 27,000 characters per result
        adapter = adapters.adapter("anthropic")
        for i in range(5):  # old tool results that pruning would trim if it were on
            adapter.scripts.extend([tool_round((f"t{i}", "read_tool_result", {"id": "none"})), reply(f"done {i}")])
            async for _ in container.send_message(session.id, f"read page {i}"):
                pass
        for m in storage.messages.snapshot(session.id):
            if m.type is MessageType.TOOL_RESULT:
                storage.messages.update(replace(m, tool_output=page))
        adapter.scripts.extend([tool_round(("t9", "read_tool_result", {"id": "none"})), reply("final answer")])
        events = [e async for e in container.send_message(session.id, "once more")]
        turn_status = [e.status for e in events if isinstance(e, ContextStatusChanged)][-1]

        gui = await ContainerBackend(container).context_status(session.id, Selection("anthropic", MODEL))
        cli_out = io.StringIO()
        assert await run_sessions(container, argparse.Namespace(action="context", id=session.id, json=True),
                                  cli_out, io.StringIO()) == 0
        cli = json.loads(cli_out.getvalue())
        assert gui == turn_status
        assert cli["used"] == gui.used and cli["window"] == gui.window and cli["threshold"] == gui.threshold
        assert set(cli) == {"provider", "model", "window", "input_limit", "window_source", "used", "percent",
                            "threshold", "breakdown", "warnings"}
        assert set(cli["breakdown"]) == {"system", "summary", "messages", "tool_results", "tool_definitions",
                                       "reasoning", "attachments", "web_search"}

        # the request that was just sent, measured, plus the reply it got: the next request
        sent = adapter.requests[-1]
        final = storage.messages.snapshot(session.id)[-1]
        assert final.content == "final answer"
        ctx = container.contexts.load(session.id)
        measured = container.estimator.estimate_request(sent.system_prompt, [*sent.messages, final], sent.tools,
                                                        model_key(ctx))
        assert abs(gui.used - measured) <= 1  # the estimator's rounding
        # pruning is off for this agent: every old result went out whole, and the gauge counts it whole
        assert all(m.tool_output == page for m in sent.messages if m.type is MessageType.TOOL_RESULT
                   and m.tool_call_id != "t9")
        assert gui.breakdown.tool_results > 5 * len(page) // 5
    finally:
        container.close()
