"""A one-command `palimpsest chat` process imports only its provider's SDK, over httpx, without aiohttp."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.fakeservers.openai_server import FakeOpenAIServer

TOP_LEVEL = ("aiohttp", "anthropic", "openai", "google", "httpx2")


def _one_command_process(cli: Cli, *args: str, watched: tuple[str, ...] = TOP_LEVEL) -> tuple[str, list[str]]:
    """Runs `palimpsest ARGS` as the script does (app.main.cli on sys.argv); returns its output and which of
    `watched` it had imported at exit (written by an atexit handler: the process ends with os._exit)."""
    code = ("import atexit, sys\n"
            "def report():\n"
            f"    print('LOADED', sorted({{m.split('.')[0] for m in sys.modules if sys.modules[m] is not None}}"
            f" & {set(watched)!r}))\n"
            "atexit.register(report)\n"
            f"from app.main import cli\nsys.argv = ['palimpsest', *{list(args)!r}]\ncli()\n")
    done = subprocess.run([sys.executable, "-c", code], env=cli.env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    return done.stdout, list(ast.literal_eval(line.split(" ", 1)[1]))


def _cli(tmp_path: Path, **env: str) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", env)


def test_an_openai_compatible_turn_sends_over_httpx_without_importing_aiohttp(tmp_path: Path) -> None:
    server = FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("Hello there.")), models=[{"id": "gpt-test-1"}])
    server.start()
    try:
        cli = _cli(tmp_path)
        added = cli.run("providers", "add", "--type", "openai_compatible", "--base-url", server.base_url, "local")
        assert added.code == 0, added.err
        out, loaded = _one_command_process(cli, "chat", "-p", "local", "-m", "gpt-test-1", "hi")
    finally:
        server.stop()
    assert "Hello there." in out
    assert loaded == ["httpx2", "openai"]
    assert server.failures == []


def test_an_anthropic_turn_imports_neither_openai_nor_google_nor_aiohttp(tmp_path: Path) -> None:
    server = FakeAnthropicServer(ScriptedBrain(default=Reply.of_text("Hello from Claude.")))
    server.start()
    try:
        cli = _cli(tmp_path, ANTHROPIC_API_KEY="sk-ant-test-0123456789", ANTHROPIC_BASE_URL=server.base_url)
        out, loaded = _one_command_process(cli, "chat", "-p", "anthropic", "-m", "claude-test-1", "hi")
    finally:
        server.stop()
    assert "Hello from Claude." in out
    assert loaded == ["anthropic", "httpx2"]
    assert server.failures == []


def test_an_sdk_imported_without_aiohttp_still_gives_a_default_factory_a_working_client() -> None:
    code = ("from data.providers.sdk_import import import_sdk\n"
            "import_sdk('openai', aiohttp=False)\n"
            "import sys; assert 'aiohttp' not in sys.modules\n"
            "import aiohttp  # importable again for anything else\n"
            "from data.providers.factory import SdkAdapterFactory\n"
            "from domain.models import Provider, ProviderType\n"
            "provider = Provider(id='local', name='local', type=ProviderType.OPENAI_COMPATIBLE,"
            " base_url='http://127.0.0.1:9/v1')\n"
            "adapter = SdkAdapterFactory().create(provider, None)\n"
            "print('CLIENT', type(adapter._client._client).__mro__[1].__module__)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "CLIENT httpx2" in done.stdout, done.stdout


def test_a_gemini_turn_imports_neither_anthropic_nor_openai_nor_aiohttp(tmp_path: Path) -> None:
    from tests.fakeservers.gemini_server import FakeGeminiServer

    server = FakeGeminiServer(ScriptedBrain(default=Reply.of_text("Hello from Gemini.")))
    server.start()
    try:
        cli = _cli(tmp_path, GEMINI_API_KEY="AIza-test-0123456789", GOOGLE_GEMINI_BASE_URL=server.base_url)
        out, loaded = _one_command_process(cli, "chat", "-p", "gemini", "-m", "gemini-test-1", "hi")
    finally:
        server.stop()
    assert "Hello from Gemini." in out
    assert loaded == ["google", "httpx2"]
    assert server.failures == []


def test_a_turn_on_a_current_database_stores_it_all_without_importing_sqlalchemy(tmp_path: Path) -> None:
    server = FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("Hello there.")), models=[{"id": "gpt-test-1"}])
    server.start()
    try:
        cli = _cli(tmp_path)
        added = cli.run("providers", "add", "--type", "openai_compatible", "--base-url", server.base_url, "local")
        assert added.code == 0, added.err  # the database is made (and at head) by then
        out, loaded = _one_command_process(cli, "chat", "-p", "local", "-m", "gpt-test-1", "hi",
                                           watched=("sqlalchemy", "alembic", "openai"))
        assert "Hello there." in out and loaded == ["openai"]
        session = json.loads(cli.run("sessions", "list", "--json").out)[0]["id"]
        out, loaded = _one_command_process(cli, "chat", "-s", session, "and again",
                                           watched=("sqlalchemy", "alembic", "openai"))
        assert "Hello there." in out and loaded == ["openai"]
    finally:
        server.stop()
    shown = json.loads(cli.run("sessions", "show", session, "--json").out)  # read by the full store
    assert [(m["type"], m["content"]) for m in shown["messages"]] == [
        ("user", "hi"), ("ai_response", "Hello there."), ("user", "and again"), ("ai_response", "Hello there.")]
    assert server.failures == []
