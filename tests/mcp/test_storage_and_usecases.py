"""MCP servers in storage (SQLite and the fake agree; secrets stay in the keychain), the use cases and the import,
the gauge row and its warning, and the migration on a populated database."""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import keyring
import pytest

import migrations
from app.container import Container
from data.mcp.secrets import KeyringMcpSecrets
from data.storage import Storage
from domain.errors import InvalidInput
from domain.mcp import McpServer, McpServerError, McpServerSecrets, McpToolSpec, McpTransport, ToolPermission
from domain.usecases.import_mcp_servers import ImportMcpServersUseCase, parse_config
from domain.usecases.mcp_servers import (
    AddMcpServerUseCase,
    RemoveMcpServerUseCase,
    SetMcpServerEnabledUseCase,
    SetMcpToolPermissionUseCase,
)
from tests.data.test_migrations import _build_version_one, _url
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory
from tests.mcp.fakes import FakeConnector, MemoryMcpServers
from tests.mcp.helpers import MemorySecrets

SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "description": "the query"}}}
FULL = McpServer(
    "web", McpTransport.HTTP, url="https://mcp.example.com/mcp", header_names=("Authorization",),
    tools=(McpToolSpec("search", "Searches.", SCHEMA), McpToolSpec("fetch", "", {"type": "object"})),
    permissions={"search": ToolPermission.ALLOW, "fetch": ToolPermission.DENY},
    disabled_agents=("a1",), disabled_sessions=("s1", "s2"), timeout_s=30.0,
)


@pytest.fixture(params=["sqlite", "fake"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    if request.param == "fake":
        yield MemoryMcpServers()
        return
    storage = Storage.open(tmp_path / "home")
    yield storage.mcp_servers
    storage.close()


def test_a_server_round_trips_every_field_and_is_replaced_by_name(repo) -> None:
    stdio = McpServer("files", McpTransport.STDIO, command="/usr/bin/files", args=("-v", "--root", "/tmp"),
                      env_names=("TOKEN",))
    repo.save(FULL)
    repo.save(stdio)
    assert repo.list() == [stdio, FULL]
    assert repo.get("web") == FULL
    repo.save(FULL.with_permission("fetch", ToolPermission.ASK))
    assert repo.get("web").permission("fetch") is ToolPermission.ASK
    repo.delete("web")
    repo.delete("web")
    assert repo.list() == [stdio] and repo.get("web") is None


async def test_add_stores_the_server_with_its_tools_and_the_secrets_only_in_the_keychain(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path / "home")
    try:
        connector = FakeConnector(tools={"web": list(FULL.tools)})
        add = AddMcpServerUseCase(storage.mcp_servers, KeyringMcpSecrets(), connector)
        server = await add("web", url="https://mcp.example.com/mcp",
                           headers={"Authorization": "Bearer sk-mcp-SENTINEL-91"})
        assert server.header_names == ("Authorization",) and [t.name for t in server.tools] == ["search", "fetch"]
        assert KeyringMcpSecrets().get("web").headers == {"Authorization": "Bearer sk-mcp-SENTINEL-91"}
        RemoveMcpServerUseCase(storage.mcp_servers, KeyringMcpSecrets())("web")
        assert KeyringMcpSecrets().get("web") == McpServerSecrets()
    finally:
        storage.close()
    for path in (tmp_path / "home").rglob("*"):
        if path.is_file():
            assert b"SENTINEL" not in path.read_bytes(), path


async def test_a_server_that_does_not_start_is_not_stored_and_its_secrets_are_removed() -> None:
    repo, secrets = MemoryMcpServers(), MemorySecrets()
    connector = FakeConnector(failures=deque([McpServerError("The MCP server 'files' could not be started.")]))
    add = AddMcpServerUseCase(repo, secrets, connector)
    with pytest.raises(McpServerError):
        await add("files", command=["files-server"], env={"TOKEN": "t0ken"})
    assert repo.list() == [] and secrets.stored == {}


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"name": "my files", "command": ["x"]}, "Invalid MCP server name"),
    ({"name": "my__files", "command": ["x"]}, "Invalid MCP server name"),
    ({"name": "files"}, "either a command (after --) or --url"),
    ({"name": "files", "command": ["x"], "url": "http://h/mcp"}, "either a command (after --) or --url"),
    ({"name": "files", "url": "ftp://h/mcp"}, "must start with http:// or https://"),
    ({"name": "files", "url": "http://h/mcp", "env": {"A": "1"}}, "apply to a command"),
    ({"name": "files", "command": ["x"], "headers": {"A": "1"}}, "apply to a URL"),
    ({"name": "files", "command": ["x"], "env": {"1BAD": "1"}}, "Invalid environment variable name"),
    ({"name": "files", "url": "http://h/mcp", "headers": {"Bad Header": "1"}}, "Invalid HTTP header name"),
    ({"name": "files", "command": ["x"], "timeout_s": 0}, "more than 0 seconds"),
])
async def test_bad_input_is_refused_with_a_specific_error_and_nothing_is_stored(kwargs, says) -> None:
    repo, secrets, connector = MemoryMcpServers(), MemorySecrets(), FakeConnector(tools={"files": []})
    name = kwargs.pop("name")
    with pytest.raises(InvalidInput, match=None) as caught:
        await AddMcpServerUseCase(repo, secrets, connector)(name, **kwargs)
    assert says in str(caught.value)
    assert repo.list() == [] and secrets.stored == {} and connector.calls == []


async def test_a_name_already_taken_is_refused() -> None:
    repo = MemoryMcpServers(FULL)
    with pytest.raises(InvalidInput, match="already exists"):
        await AddMcpServerUseCase(repo, MemorySecrets(), FakeConnector(tools={"web": []}))("web", command=["x"])


def test_rules_are_set_per_tool_or_for_all_and_unknown_tools_are_named() -> None:
    repo = MemoryMcpServers(FULL)
    SetMcpToolPermissionUseCase(repo)("web", "*", "ask")
    assert {t.name: repo.get("web").permission(t.name) for t in FULL.tools} == {
        "search": ToolPermission.ASK, "fetch": ToolPermission.ASK}
    with pytest.raises(InvalidInput, match="has no tool 'chmod' \\(tools: fetch, search\\)"):
        SetMcpToolPermissionUseCase(repo)("web", "chmod", "allow")
    with pytest.raises(InvalidInput, match="ask, allow or deny"):
        SetMcpToolPermissionUseCase(repo)("web", "search", "sometimes")
    with pytest.raises(InvalidInput, match="No MCP server named 'files' \\(configured: web\\)"):
        SetMcpToolPermissionUseCase(repo)("files", "search", "allow")


def test_a_server_is_turned_off_and_on_per_session_and_per_agent() -> None:
    repo = MemoryMcpServers(McpServer("files", McpTransport.STDIO, command="x"))
    toggle = SetMcpServerEnabledUseCase(repo)
    toggle("files", False, session_id="s1")
    toggle("files", False, agent_id="a1")
    server = repo.get("files")
    assert not server.enabled_for("a2", "s1") and not server.enabled_for("a1", "s2") and server.enabled_for("a2", "s2")
    toggle("files", True, session_id="s1")
    assert repo.get("files").enabled_for("a2", "s1")


def test_import_parses_the_mcp_servers_format_of_other_clients() -> None:
    entries = parse_config({"mcpServers": {
        "file_system": {"command": "npx", "args": ["-y", "@scope/server-filesystem", "/home"], "env": {"K": "v"}},
        "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}},
    }})
    assert [(e.name, e.command, e.url, dict(e.env), dict(e.headers)) for e in entries] == [
        ("file-system", ("npx", "-y", "@scope/server-filesystem", "/home"), None, {"K": "v"}, {}),
        ("remote", (), "https://mcp.example.com/mcp", {}, {"Authorization": "Bearer x"}),
    ]


@pytest.mark.parametrize(("data", "says"), [
    ([], "must be a JSON object"),
    ({"other": {}}, "no \"mcpServers\" object"),
    ({"mcpServers": {"a": "npx"}}, "must be an object"),
    ({"mcpServers": {"a": {"args": []}}}, "neither a \"command\" nor a \"url\""),
    ({"mcpServers": {"a": {"command": "x", "args": "-y"}}}, "must be a list of strings"),
    ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "must be an object of strings"),
    ({"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}, "old SSE transport"),
    ({"mcpServers": {"a_b": {"command": "x"}, "a-b": {"command": "y"}}}, "both be named 'a-b'"),
])
async def test_a_malformed_import_is_refused_whole(data, says) -> None:
    repo = MemoryMcpServers()
    add = AddMcpServerUseCase(repo, MemorySecrets(), FakeConnector(tools={"a": [], "a-b": []}))
    with pytest.raises(InvalidInput) as caught:
        await ImportMcpServersUseCase(add)(data)
    assert says in str(caught.value) and repo.list() == []


async def test_import_adds_what_starts_and_reports_what_did_not() -> None:
    repo = MemoryMcpServers()
    add = AddMcpServerUseCase(repo, MemorySecrets(), FakeConnector(tools={"ok": list(FULL.tools)}))
    report = await ImportMcpServersUseCase(add)({"mcpServers": {"ok": {"command": "x"}, "broken": {"command": "y"}}})
    assert report.added == (("ok", 2),)
    assert report.skipped == (("broken", "The MCP server 'broken' could not be started: command not found."),)
    assert [s.name for s in repo.list()] == ["ok"]


def _big_server(tools: int) -> McpServer:
    schema = {"type": "object", "properties": {f"field_{i}": {"type": "string", "description": "words " * 20}
                                               for i in range(10)}}
    return McpServer("big", McpTransport.STDIO, command="x",
                     tools=tuple(McpToolSpec(f"tool_{i}", "Does a thing. " * 10, schema) for i in range(tools)))


def test_tool_definitions_are_a_gauge_row_warned_past_ten_percent_and_a_session_can_turn_the_server_off(
    tmp_path: Path,
) -> None:
    storage = Storage.open(tmp_path / "home")
    container = Container(storage, FakeApiKeyStorage({"anthropic": "sk-test"}), FakeAdapterFactory())
    try:
        session = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-6")
        before = container.context_status(session.id)
        storage.mcp_servers.save(_big_server(4))
        small = container.context_status(session.id)
        assert small.breakdown.tools > before.breakdown.tools + 1_000
        assert not any("Tool definitions take" in w for w in small.warnings)
        storage.mcp_servers.save(_big_server(300))  # ~140K tokens of a 1M window
        big = container.context_status(session.id)
        [warning] = [w for w in big.warnings if "Tool definitions take" in w]
        assert "of the window (over 10%); turn MCP servers off for this conversation" in warning
        SetMcpServerEnabledUseCase(storage.mcp_servers)("big", False, session_id=session.id)
        assert container.context_status(session.id).breakdown.tools == before.breakdown.tools
    finally:
        container.close()


def test_the_migration_adds_the_table_to_a_populated_database_and_downgrade_removes_it(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _build_version_one(path)
    migrations.upgrade(_url(path), "0017")
    migrations.upgrade(_url(path))
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)
        db.execute("INSERT INTO mcp_servers VALUES ('files', 'stdio', '{}', '[]', '{}', 0)")
        db.commit()
    migrations.downgrade(_url(path), "0017")
    with closing(sqlite3.connect(path)) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "mcp_servers" not in tables
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (5,)


def test_the_keychain_entry_holds_the_values_and_nothing_else_is_written(tmp_path: Path) -> None:
    KeyringMcpSecrets().set("web", McpServerSecrets(headers={"X-Key": "v1"}))
    assert keyring.get_password("palimpsest", "mcp:web") == '{"env": {}, "headers": {"X-Key": "v1"}}'


async def test_without_a_usable_keychain_a_server_with_secrets_is_refused_and_one_without_is_added() -> None:
    from keyring.backends import fail

    from domain.errors import KeychainUnavailable

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        repo = MemoryMcpServers()
        add = AddMcpServerUseCase(repo, KeyringMcpSecrets(), FakeConnector(tools={"web": [], "files": []}))
        with pytest.raises(KeychainUnavailable) as caught:
            await add("web", url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer x"})
        assert str(caught.value).startswith("The MCP server 'web' was not added: its environment and header values "
                                            "are kept only in the system keychain, and none is usable here. No system")
        assert "ANTHROPIC_API_KEY" not in str(caught.value) and repo.list() == []
        assert (await add("files", command=["files-server"])).name == "files"  # nothing secret: no keychain needed
    finally:
        keyring.set_keyring(previous)


async def test_the_container_prices_a_sampling_request_from_the_registry_and_stores_always(tmp_path: Path) -> None:
    from domain.mcp_interaction import SamplingRequest

    container = Container(Storage.open(tmp_path / "home"), FakeApiKeyStorage({}), FakeAdapterFactory())
    try:
        container.mcp_servers.save(McpServer("proto", McpTransport.STDIO, command="python"))
        container.mcp_sampler.use("anthropic", "claude-opus-5-5")  # $4 / $20 per million tokens in the registry
        estimate = container.mcp_sampler.estimate(SamplingRequest("proto", (("user", "Summarize this."),), None, 1000))
        assert estimate is not None and estimate.model == "claude-opus-5-5" and estimate.input_tokens > 0
        assert estimate.cost_usd == pytest.approx((estimate.input_tokens * 4 + 1000 * 20) / 1_000_000)
        assert container.mcp.remember_sampling is not None
        container.mcp.remember_sampling("proto")  # the user answered "always"
        stored = container.mcp_servers.get("proto")
        assert stored is not None and stored.sampling_always
    finally:
        container.close()
