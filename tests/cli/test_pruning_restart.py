"""What is sent does not depend on the process: after a long tool-heavy session, a restarted process (a new
container on the same database) computes the same next request as the one that was running."""

from __future__ import annotations

import argparse
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from app.cli.sessions_cmd import run_sessions
from app.container import Container
from domain.context.pruner import HARD_CLEAR_TEXT
from domain.models import Message, MessageType, ToolStatus
from domain.settings import ToolSettings
from domain.usecases.save_tool_settings import SaveToolSettingsUseCase
from tests.fakes_turn import FakeAdapterFactory, reply, tool_round

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


class PageServer:
    """Serves /page/N on 127.0.0.1: a log page whose length depends on N (a few thousand characters)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                n = int(self.path.rsplit("/", 1)[-1])
                body = (f"page {n}\n" + f"entry {n}: berth {n % 9} clear\n" * (200 + 45 * (n % 5))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


async def test_after_real_tool_loops_a_restarted_container_plans_what_the_running_one_sends(tmp_path: Path) -> None:
    pages = PageServer()
    factory = FakeAdapterFactory(default_completion="A title")
    running = Container.build(tmp_path / "home", adapter_factory=factory)
    try:
        running.set_api_key(PROVIDER, "sk-ant-test")
        SaveToolSettingsUseCase(running.settings)(ToolSettings(("127.0.0.1",)))
        sid = running.create_session(provider_id=PROVIDER, model_id=MODEL).id
        adapter = factory.adapter(PROVIDER)
        n = 0
        for turn in range(5):  # five turns of six page reads each: pruning advances in batches as they go
            for _ in range(6):
                adapter.scripts.append(tool_round((f"t{n}", "http_request", {"url": f"{pages.url}/page/{n}"})))
                n += 1
            adapter.scripts.append(reply(f"Read part {turn}."))
            async for _ in running.send_message(sid, f"Read the next six pages, part {turn}."):
                pass
        results = [m for m in running.messages.snapshot(sid) if m.type is MessageType.TOOL_RESULT]
        assert len(results) == 30 and all("entry" in (m.tool_output or "") for m in results)

        restarted = open_container(tmp_path / "home")  # a new process on the same database, the other still open
        try:
            planned = next_request(restarted, sid)
            status = restarted.context_status(sid)
        finally:
            restarted.close()
        assert running.context_status(sid) == status

        adapter.scripts.append(reply("All read."))
        async for _ in running.send_message(sid, "Anything else?"):
            pass
        sent = list(adapter.requests[-1].messages)
        assert sent[-1].content == "Anything else?"
        assert sent[:-1] == planned  # what the restarted process planned is what the running one sent
        outputs = [m.tool_output or "" for m in planned if m.type is MessageType.TOOL_RESULT]
        assert any(o.startswith(HARD_CLEAR_TEXT) for o in outputs) and any("--- trimmed" in o for o in outputs)
    finally:
        running.close()
        pages.close()
