"""The OAuth sign-in of each remote MCP server in the OS keychain (service "palimpsest", user "mcp-oauth:SERVER"):
its tokens, client registration and authorization server metadata, as one JSON value. Loads no SDK."""

from __future__ import annotations

import json
import logging
from typing import Any

from data.keys import SERVICE, keychain_problem
from domain.errors import KeychainUnavailable

_log = logging.getLogger(__name__)


def _user(server: str) -> str:
    return f"mcp-oauth:{server}"


def read_entry(server: str) -> dict[str, Any]:
    """The server's OAuth entry ({} when there is none or the keychain cannot be read)."""
    import keyring
    from keyring.errors import KeyringError

    backend = keyring.get_keyring()
    if keychain_problem(backend) is not None:
        return {}
    try:
        raw = backend.get_password(SERVICE, _user(server))
        entry = json.loads(raw) if raw else {}
    except (KeyringError, ValueError) as exc:
        _log.warning("Could not read the sign-in of the MCP server %s (%s).", server, type(exc).__name__)
        return {}
    return entry if isinstance(entry, dict) else {}


def write_entry(server: str, entry: dict[str, Any]) -> None:
    """Replaces the server's OAuth entry; KeychainUnavailable when it cannot be stored."""
    import keyring
    from keyring.errors import KeyringError

    backend = keyring.get_keyring()
    problem = keychain_problem(backend)
    if problem is not None:
        raise KeychainUnavailable(message=(
            f"The sign-in to the MCP server {server!r} is kept only in the system keychain, and none is usable here. "
            f"{problem.split(' Use the provider')[0]}"))
    try:
        backend.set_password(SERVICE, _user(server), json.dumps(entry))
    except KeyringError as exc:
        raise KeychainUnavailable(f"the keychain refused to store it: {type(exc).__name__}") from None


def forget(server: str) -> bool:
    """Deletes the server's tokens and client registration; False when there were none."""
    if not read_entry(server):
        return False
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        keyring.get_keyring().delete_password(SERVICE, _user(server))
    except (PasswordDeleteError, KeyringError):
        return False
    return True
