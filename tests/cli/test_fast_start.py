"""CLI start-up: commands import only what they use (no SQLAlchemy for `keys status` on a current database)."""

from __future__ import annotations

import argparse
import ast
import asyncio
import io
import subprocess
import sys
from pathlib import Path

import keyring
import pytest

from app.cli.providers_cmd import run_keys
from app.container import Container
from tests.cli.harness import ROOT, Cli
from tests.file_keyring import ENV_VAR as KEYRING_FILE_VAR
from tests.file_keyring import FileKeyring

HEAVY = ("sqlalchemy", "alembic", "PySide6", "anthropic", "openai", "google")


def make_cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", {"OPENAI_API_KEY": "sk-env-0123456789"})


def _imported_by(cli: Cli, *args: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    code = (f"import sys; from app.main import main; status = main({list(args)!r});"
            f"print('HEAVY', sorted({{m.split('.')[0] for m in sys.modules}} & {set(heavy)!r}), status)")
    done = subprocess.run([sys.executable, "-c", code], env=cli.env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    line = next(line for line in done.stdout.splitlines() if line.startswith("HEAVY"))
    assert line.endswith(" 0"), done.stdout + done.stderr
    return list(ast.literal_eval(line.split(" ", 1)[1].rsplit(" ", 1)[0]))  # a printed list of names


def test_keys_status_on_a_current_database_imports_no_sqlalchemy_sdk_or_qt(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    assert cli.run("providers", "list").code == 0  # creates, migrates and seeds the database
    assert _imported_by(cli, "keys", "status") == []


def test_commands_that_read_no_key_do_not_load_the_keychain_an_sdk_or_qt(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    assert cli.run("providers", "list").code == 0
    for args in (("sessions", "list"), ("sessions", "search", "anything"), ("models", "list")):
        assert _imported_by(cli, *args, heavy=("keyring", "PySide6", "anthropic", "openai", "google")) == [], args


def test_help_imports_no_sqlalchemy_sdk_or_qt() -> None:
    code = ("import sys\nfrom app.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            f"print('HEAVY', sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr


def test_keys_status_says_the_same_read_directly_as_through_the_storage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = make_cli(tmp_path)
    added = cli.run("providers", "add", "Local box", "--type", "openai_compatible", "--base-url",
                    "http://127.0.0.1:9/v1")
    assert added.code == 0, added.err
    assert cli.run("keys", "set", "anthropic", stdin="sk-ant-test-0123456789\n").code == 0
    direct = cli.run("keys", "status")  # a real process on a current database: the direct read
    assert (direct.code, direct.err) == (0, "")
    assert direct.out.splitlines() == [
        "PROVIDER   NAME           KEY FROM",
        "anthropic  Anthropic      keychain",
        "openai     OpenAI         environment",
        "gemini     Google Gemini  none",
        "local-box  Local box      none",
    ]
    for name in ("PALIMPSEST_HOME", "OPENAI_API_KEY", KEYRING_FILE_VAR):
        monkeypatch.setenv(name, cli.env[name])
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    container = Container.build(cli.home)
    try:
        out, err = io.StringIO(), io.StringIO()
        assert asyncio.run(run_keys(container, argparse.Namespace(action="status"), out, err)) == 0
    finally:
        container.close()
        keyring.set_keyring(previous)
    assert (out.getvalue(), err.getvalue()) == (direct.out, direct.err)


def test_keys_status_on_a_new_folder_creates_the_database_first(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    result = cli.run("keys", "status")
    assert result.code == 0 and (cli.home / "palimpsest.db").is_file()
    assert [line.split()[0] for line in result.out.splitlines()] == ["PROVIDER", "anthropic", "openai", "gemini"]


def test_sessions_list_on_a_current_database_imports_no_sqlalchemy_sdk_qt_or_http_client(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    assert cli.run("providers", "list").code == 0
    assert _imported_by(cli, "sessions", "list", heavy=(*HEAVY, "httpx2", "httpx")) == []
    assert _imported_by(cli, "sessions", "list", "--json", heavy=(*HEAVY, "httpx2", "httpx")) == []


def test_commands_that_send_nothing_do_not_import_the_http_request_tools_client(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    assert cli.run("providers", "list").code == 0
    for args in (("sessions", "search", "anything"), ("models", "list")):
        assert _imported_by(cli, *args, heavy=("httpx2", "httpx", "aiohttp")) == [], args


# what one chat turn never uses: other SDKs, Qt, the management use cases, importers, knowledge folders, the MCP hub
TURN_NEVER = ("PySide6", "anthropic", "google", "domain.usecases.import_conversations",
              "domain.usecases.export_session", "domain.usecases.purge_deleted", "domain.usecases.fork_session",
              "domain.usecases.refresh_models", "domain.importers", "data.documents.knowledge", "data.mcp.hub",
              "data.documents.cards", "data.documents.extract", "data.documents.office")


def test_a_chat_turn_imports_nothing_a_turn_does_not_use(tmp_path: Path) -> None:
    from tests.fakeservers.brain import Reply, ScriptedBrain
    from tests.fakeservers.openai_server import FakeOpenAIServer

    server = FakeOpenAIServer(ScriptedBrain(default=Reply.of_text("Hello there.")), models=[{"id": "gpt-test-1"}])
    server.start()
    try:
        cli = make_cli(tmp_path)
        added = cli.run("providers", "add", "--type", "openai_compatible", "--base-url", server.base_url, "local")
        assert added.code == 0, added.err
        code = ("import sys; from app.main import main; status = main(['chat', '-p', 'local', '-m', 'gpt-test-1', "
                f"'hi']); print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in {set(TURN_NEVER)!r} "
                f"or m in {set(TURN_NEVER)!r}), status)")
        done = subprocess.run([sys.executable, "-c", code], env=cli.env, cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
    finally:
        server.stop()
    assert "Hello there." in done.stdout, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    assert line.endswith(" 0"), done.stdout + done.stderr
    loaded = ast.literal_eval(line.split(" ", 1)[1].rsplit(" ", 1)[0])
    assert [m for m in loaded if m in TURN_NEVER or m.split(".")[0] in ("PySide6", "anthropic", "google")] == []


def test_a_one_command_process_skips_the_interpreters_teardown_but_flushes_and_runs_atexit(tmp_path: Path) -> None:
    cli = make_cli(tmp_path)
    assert cli.run("providers", "list").code == 0
    code = ("import atexit, os, sys\nclass Teardown:\n    def __del__(self, write=os.write):\n"
            "        write(1, b'TORN DOWN\\n')\n"
            "def at_exit():\n"
            "    cycle = [Teardown()]  # garbage only the interpreter's final collection frees\n"
            "    cycle.append(cycle)\n"
            "    print('ATEXIT RAN')\n"
            "atexit.register(at_exit)\n"
            "from app.main import cli\nsys.argv = ['palimpsest', 'providers', 'list']\ncli()\n")
    done = subprocess.run([sys.executable, "-c", code], env=cli.env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["ID", "anthropic", "openai", "gemini",
                                                                     "ATEXIT"]  # all the output, flushed
    assert done.stdout.rstrip().endswith("ATEXIT RAN") and "TORN DOWN" not in done.stdout, done.stdout
