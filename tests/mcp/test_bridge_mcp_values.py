"""Settings' add form over the real Container: a header (or environment) value given in the GUI lands in the keychain,
reaches the server, and is in no file under the data folder; without a keychain nothing is stored."""

from __future__ import annotations

import sys
from pathlib import Path

import keyring
import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from data.storage import Storage
from domain.errors import KeychainUnavailable
from tests.fakes import FakeApiKeyStorage
from tests.fakes_turn import FakeAdapterFactory
from tests.mcp.helpers import http_server

SENTINEL = "mcp-gui-SENTINEL-4b1e"


def files_holding(folder: Path, text: str) -> list[Path]:
    """Every file under the folder whose bytes contain the text."""
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


async def test_a_header_given_in_settings_is_in_the_keychain_reaches_the_server_and_is_in_no_file(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    container = Container(Storage.open(home), FakeApiKeyStorage({}), FakeAdapterFactory())
    try:
        backend = ContainerBackend(container)
        with http_server() as url:
            server = await backend.add_mcp_server("web", [], url, {"Authorization": f"Bearer {SENTINEL}"})
            assert server.header_names == ("Authorization",) and len(server.tools) == 10
            outcome = await container.mcp.call_tool(server, "auth_header", {})
        assert outcome.output == f"Bearer {SENTINEL}"
        stdio = await backend.add_mcp_server("files", [sys.executable, "-m", "tests.mcp.server"], None,
                                             {"FILES_TOKEN": f"env-{SENTINEL}"})
        assert stdio.env_names == ("FILES_TOKEN",)
    finally:
        container.close()
    assert SENTINEL in (keyring.get_password("palimpsest", "mcp:web") or "")
    assert f"env-{SENTINEL}" in (keyring.get_password("palimpsest", "mcp:files") or "")
    assert files_holding(home, "tests.mcp.server") != []  # the scan reads the database
    assert files_holding(tmp_path, SENTINEL) == []


async def test_without_a_keychain_the_server_is_not_added_and_nothing_is_written(tmp_path: Path) -> None:
    from keyring.backends import fail

    home = tmp_path / "home"
    container = Container(Storage.open(home), FakeApiKeyStorage({}), FakeAdapterFactory())
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        backend = ContainerBackend(container)
        with pytest.raises(KeychainUnavailable, match="The MCP server 'files' was not added"):
            await backend.add_mcp_server("files", [sys.executable, "-m", "tests.mcp.server"], None,
                                         {"FILES_TOKEN": SENTINEL})
        assert await backend.list_mcp_servers() == []
    finally:
        keyring.set_keyring(previous)
        container.close()
    assert files_holding(tmp_path, SENTINEL) == []
