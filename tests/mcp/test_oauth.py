"""OAuth for remote MCP servers, as real processes: `tests.mcp.oauth_server` (the SDK's authorization server pieces
with an approving in-memory provider, and a Streamable HTTP server requiring a bearer token) answers 401; `palimpsest
mcp add` prints the sign-in URL, the test "is the browser" by requesting it and following the redirect to the CLI's
port on 127.0.0.1; then the tokens (in the test's file keychain, not in the database), a chat turn calling the tool,
a refresh of an expired access token, and `mcp logout`."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from domain.mcp import McpServer, McpServerError, McpTransport
from domain.usecases.generate_title import TITLE_SYSTEM
from tests.cli.harness import ROOT, Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Answer, NormalizedRequest, Reply, ToolCall, ToolResultPart
from tests.mcp.helpers import MemorySecrets, free_port

KEY = "sk-ant-oauth-test-5b2c"
MODEL = "claude-oauth-200k"


class WhoamiBrain:
    """Calls web__whoami (or `tool`) once, then answers with what it returned."""

    tool = "web__whoami"

    def respond(self, request: NormalizedRequest) -> Answer:
        if TITLE_SYSTEM in request.system:
            return Reply.of_text("OAuth test")
        results = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]
        if not results:
            return Reply(tool_calls=(ToolCall(self.tool, {}),))
        return Reply.of_text("Tool said: " + results[-1].text)


@dataclass
class Env:
    """A clean data directory, the OAuth test server, a fake Anthropic model."""

    cli: Cli
    base: str  # http://127.0.0.1:PORT of the OAuth test server
    brain: WhoamiBrain

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def keychain(self) -> dict[str, str]:
        if not self.cli.keyring_file.exists():
            return {}
        return dict(json.loads(self.cli.keyring_file.read_text()).get("palimpsest", {}))

    def sign_in_entry(self, name: str = "web") -> dict[str, object]:
        raw = self.keychain().get(f"mcp-oauth:{name}")
        return json.loads(raw) if raw else {}

    def server_state(self) -> dict[str, object]:
        with urllib.request.urlopen(f"{self.base}/test/state", timeout=10) as reply:
            return dict(json.loads(reply.read()))


def _serve(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-m", "tests.mcp.oauth_server", str(port)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the OAuth test server did not start")


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    (tmp_path / "keychain").mkdir()
    port = free_port()
    process = _serve(port)
    try:
        brain = WhoamiBrain()
        with FakeAnthropicServer(brain, api_key=KEY) as model:
            cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
            for args, stdin in ((("providers", "set", "anthropic", "--base-url", model.base_url), ""),
                                (("models", "add", "anthropic", MODEL, "--context-window", "200000"), ""),
                                (("keys", "set", "anthropic"), KEY + "\n")):
                done = cli.run(*args, stdin=stdin, subprocess_run=False)
                assert done.code == 0, done.err
            yield Env(cli, f"http://127.0.0.1:{port}", brain)
    finally:
        process.terminate()
        process.wait(10)


def _sign_in_through(command: subprocess.Popen[str]) -> str:
    """Reads the CLI's stderr up to the sign-in URL, then plays the browser: requests it and follows the redirect to
    the CLI's port; returns the URL."""
    assert command.stderr is not None
    for line in command.stderr:
        if line.startswith("http://") and "/authorize?" in line:
            url = line.strip()
            with urllib.request.urlopen(url, timeout=30) as page:  # redirects are followed, as a browser does
                assert b"Signed in" in page.read()
                assert page.url.startswith("http://127.0.0.1:") and "/callback?code=" in page.url
            return url
    raise AssertionError("the CLI ended without printing a sign-in URL")


def _start(env: Env, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app", *args], env=env.cli.env, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")


def _add_with_sign_in(env: Env) -> str:
    command = _start(env, "mcp", "add", "web", "--url", env.url)
    url = _sign_in_through(command)
    out, err = command.communicate(timeout=60)
    assert command.returncode == 0, err
    assert "Added MCP server web with 2 tools: whoami, admin_report." in out
    return url


def test_add_against_a_401_server_signs_in_and_keeps_the_tokens_only_in_the_keychain(env: Env) -> None:
    url = _add_with_sign_in(env)
    assert "code_challenge_method=S256" in url and "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url  # PKCE, loopback

    listed = env.cli.run("mcp", "list", "--json")
    assert [t["name"] for t in json.loads(listed.out)[0]["tools"]] == ["whoami", "admin_report"]
    entry = env.sign_in_entry()
    tokens = entry["tokens"]
    assert isinstance(tokens, dict) and tokens["access_token"] and tokens["refresh_token"]
    assert isinstance(entry["client"], dict) and entry["client"]["client_id"]  # dynamically registered
    database = b"".join(p.read_bytes() for p in env.cli.home.glob("palimpsest.db*"))
    assert database and tokens["access_token"].encode() not in database
    assert tokens["refresh_token"].encode() not in database

    chat = env.cli.run("chat", "--jsonl", "--allow-tools", "-p", "anthropic", "-m", MODEL, "who am I?")
    assert chat.code == 0, chat.err
    events = [json.loads(line) for line in chat.out.splitlines()]
    assert {"type": "tool_result", "name": "web__whoami", "chars": 23, "truncated": False} in events
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "Tool said: signed in through OAuth"
    assert "sign in" not in chat.err  # the stored token was used: nobody was asked again


def test_an_expired_access_token_is_refreshed_without_signing_in_again(env: Env) -> None:
    _add_with_sign_in(env)
    before = env.sign_in_entry()
    assert isinstance(before["tokens"], dict)
    urllib.request.urlopen(urllib.request.Request(f"{env.base}/test/expire", method="POST"), timeout=10).close()
    keys = json.loads(env.cli.keyring_file.read_text())
    keys["palimpsest"]["mcp-oauth:web"] = json.dumps({**before, "expires_at": time.time() - 60})  # it expired
    env.cli.keyring_file.write_text(json.dumps(keys))

    tools = env.cli.run("mcp", "tools", "web")

    assert tools.code == 0, tools.err
    assert "whoami" in tools.out and "sign in" not in tools.err
    assert env.server_state()["refreshed"] == 1
    after = env.sign_in_entry()
    assert isinstance(after["tokens"], dict) and isinstance(after["expires_at"], float)
    assert after["tokens"]["access_token"] != before["tokens"]["access_token"]
    assert after["tokens"]["refresh_token"] != before["tokens"]["refresh_token"]  # the server rotates it
    assert after["expires_at"] > time.time()


def test_logout_deletes_the_tokens_and_the_next_use_asks_to_sign_in_again(env: Env) -> None:
    _add_with_sign_in(env)
    assert env.sign_in_entry()

    assert {k: env.server_state()[k] for k in ("access", "refresh")} == {"access": 1, "refresh": 1}

    logout = env.cli.run("mcp", "logout", "web")

    assert logout.code == 0, logout.err
    assert logout.out == "Signed out of web; the server revoked its tokens.\n"
    assert {k: env.server_state()[k] for k in ("access", "refresh")} == {"access": 0, "refresh": 0}  # RFC 7009
    assert "mcp-oauth:web" not in env.keychain()
    again = env.cli.run("mcp", "logout", "web")
    assert again.out == "web had no sign-in to remove.\n"
    command = _start(env, "mcp", "tools", "web")
    try:
        _sign_in_through(command)
        out, err = command.communicate(timeout=60)
    finally:
        command.kill()
    assert command.returncode == 0, err
    assert "whoami" in out and env.sign_in_entry()


def test_remove_deletes_the_sign_in_too(env: Env) -> None:
    _add_with_sign_in(env)

    assert env.cli.run("mcp", "remove", "web").code == 0

    assert "mcp-oauth:web" not in env.keychain()
    assert {k: env.server_state()[k] for k in ("access", "refresh")} == {"access": 0, "refresh": 0}


def test_a_403_insufficient_scope_signs_in_again_for_the_larger_scope_and_the_call_goes_through(env: Env) -> None:
    _add_with_sign_in(env)
    assert env.server_state()["scopes"] == ["tools"]
    env.brain.tool = "web__admin_report"

    chat = _start(env, "chat", "--jsonl", "--allow-tools", "-p", "anthropic", "-m", MODEL, "the admin report")
    try:
        url = _sign_in_through(chat)  # the step-up: a second sign-in, asking for both scopes
        out, err = chat.communicate(timeout=60)
    finally:
        chat.kill()

    assert chat.returncode == 0, err
    assert "scope=tools+admin" in url or "scope=admin+tools" in url
    text = "".join(e["text"] for e in map(json.loads, out.splitlines()) if e["type"] == "text_delta")
    assert text == "Tool said: admin report for a token with the admin scope"
    tokens = env.sign_in_entry()["tokens"]
    assert isinstance(tokens, dict) and set(str(tokens["scope"]).split()) == {"tools", "admin"}


def test_without_a_terminal_to_sign_in_on_the_error_says_how_to_sign_in(env: Env, tmp_path: Path) -> None:
    from data.mcp.hub import McpHub

    hub = McpHub(MemorySecrets(), tmp_path, start_timeout_s=30)  # as the GUI: no sign-in shown
    try:
        with pytest.raises(McpServerError, match=r"needs you to sign in; in a terminal run: palimpsest mcp tools web"):
            asyncio.run(hub.list_tools(McpServer("web", McpTransport.HTTP, url=env.url)))
    finally:
        hub.close()


def test_after_a_restart_the_refresh_goes_to_the_token_endpoint_found_at_sign_in() -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken

    from data.mcp.oauth import KeychainTokenStorage, oauth_for

    async def signed_in_earlier() -> None:  # what a sign-in left in the keychain; the server's AS is elsewhere
        storage = KeychainTokenStorage("web")
        await storage.set_client_info(OAuthClientInformationFull(
            client_id="c-1", client_secret="s-1", redirect_uris=["http://127.0.0.1:40001/callback"],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_post"))
        await storage.set_tokens(OAuthToken(access_token="at-old", refresh_token="rt-old", expires_in=0))
        storage.set_metadata(OAuthMetadata.model_validate({
            "issuer": "https://login.example.com", "authorization_endpoint": "https://login.example.com/authorize",
            "token_endpoint": "https://login.example.com/oauth/token"}))

    asyncio.run(signed_in_earlier())
    provider = oauth_for(McpServer("web", McpTransport.HTTP, url="https://tools.example.com/mcp"), None)

    async def refresh_request() -> tuple[str, bytes]:
        await provider._initialize()
        assert not provider.context.is_token_valid() and provider.context.can_refresh_token()
        request = await provider._refresh_token()
        return str(request.url), request.read()

    url, body = asyncio.run(refresh_request())
    assert url == "https://login.example.com/oauth/token"
    assert b"grant_type=refresh_token" in body and b"refresh_token=rt-old" in body
    assert [str(u) for u in provider.context.client_metadata.redirect_uris or []] == [
        "http://127.0.0.1:40001/callback"]  # the port registered before
