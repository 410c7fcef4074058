"""Sign-out at the authorization server: the stored refresh and access tokens revoked (RFC 7009) when its metadata
names a revocation_endpoint; the keychain entry itself is deleted by the caller."""

from __future__ import annotations

import logging
from typing import Any

from data.mcp.oauth_keychain import read_entry

log = logging.getLogger(__name__)
REVOKE_TIMEOUT_S = 5.0


def revoke(server: str) -> bool:
    """Asks the server's authorization server to revoke the stored tokens (the refresh token first, which ends the
    grant); True when it accepted each. False when there is no sign-in, no revocation endpoint, or it failed (logged:
    signing out goes on)."""
    entry = read_entry(server)
    endpoint = (entry.get("metadata") or {}).get("revocation_endpoint")
    tokens: dict[str, Any] = entry.get("tokens") or {}
    client: dict[str, Any] = entry.get("client") or {}
    if not endpoint or not tokens or not client.get("client_id"):
        return False
    import httpx2

    auth: dict[str, str] = {"client_id": str(client["client_id"])}
    basic = None
    if client.get("client_secret"):
        if client.get("token_endpoint_auth_method") == "client_secret_basic":
            basic = (str(client["client_id"]), str(client["client_secret"]))
        else:
            auth["client_secret"] = str(client["client_secret"])
    revoked = True
    try:
        with httpx2.Client(timeout=REVOKE_TIMEOUT_S, auth=basic) as http:
            for hint in ("refresh_token", "access_token"):
                if tokens.get(hint):
                    reply = http.post(str(endpoint), data={"token": str(tokens[hint]), "token_type_hint": hint,
                                                           **auth})
                    revoked = revoked and reply.status_code == 200
    except Exception as err:  # unreachable, refused: the tokens are forgotten here anyway
        log.warning("Could not revoke the sign-in of the MCP server %s: %s", server, err)
        return False
    return revoked
