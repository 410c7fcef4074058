"""Environment and header values of MCP servers in the OS keychain (service "palimpsest", user "mcp:SERVER")."""

from __future__ import annotations

import json
import logging

from data.keys import SERVICE, keychain_problem
from data.redaction import register_secret
from domain.errors import KeychainUnavailable
from domain.mcp import McpServer, McpServerSecrets

_log = logging.getLogger(__name__)


def _user(server: str) -> str:
    return f"mcp:{server}"


class KeyringMcpSecrets:
    """One keychain entry per server holding its secrets as JSON; never written to the database or a log."""

    def get(self, server: str) -> McpServerSecrets:
        """The server's secrets ({} when none, or when the keychain cannot be read)."""
        import keyring
        from keyring.errors import KeyringError

        backend = keyring.get_keyring()
        if keychain_problem(backend) is not None:
            return McpServerSecrets()
        try:
            raw = backend.get_password(SERVICE, _user(server))
        except KeyringError as exc:
            _log.warning("Could not read the secrets of the MCP server %s (%s).", server, type(exc).__name__)
            return McpServerSecrets()
        try:
            stored = json.loads(raw) if raw else {}
        except ValueError:
            stored = {}
        env = {str(k): str(v) for k, v in (stored.get("env") or {}).items()}
        headers = {str(k): str(v) for k, v in (stored.get("headers") or {}).items()}
        for value in [*env.values(), *headers.values()]:
            register_secret(value)
        return McpServerSecrets(env, headers)

    def set(self, server: str, secrets: McpServerSecrets) -> None:
        """Stores the secrets (nothing is stored when there are none); KeychainUnavailable when it cannot."""
        if not secrets.env and not secrets.headers:
            return
        import keyring
        from keyring.errors import KeyringError

        backend = keyring.get_keyring()
        problem = keychain_problem(backend)
        if problem is not None:
            reason = problem.split(" Use the provider's environment variable")[0]
            raise KeychainUnavailable(message=(
                f"The MCP server {server!r} was not added: its environment and header values are kept only in the "
                f"system keychain, and none is usable here. {reason}"))
        for value in [*secrets.env.values(), *secrets.headers.values()]:
            register_secret(value)
        try:
            backend.set_password(SERVICE, _user(server), json.dumps(
                {"env": dict(secrets.env), "headers": dict(secrets.headers)}))
        except KeyringError as exc:
            raise KeychainUnavailable(f"the keychain refused to store it: {type(exc).__name__}") from None

    def delete(self, server: str, secrets_names: McpServer) -> None:
        """Removes the server's entry, if there is one, and its OAuth sign-in (its tokens revoked first where the
        authorization server offers it)."""
        if secrets_names.url:
            from data.mcp.oauth_keychain import forget
            from data.mcp.oauth_revoke import revoke

            revoke(server)
            forget(server)
        if not secrets_names.env_names and not secrets_names.header_names:
            return
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        backend = keyring.get_keyring()
        if keychain_problem(backend) is not None:
            return
        try:
            backend.delete_password(SERVICE, _user(server))
        except (PasswordDeleteError, KeyringError):
            return
