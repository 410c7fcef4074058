"""An MCP server that requires OAuth, built with the SDK's own auth pieces, for tests: one process on 127.0.0.1 is the
authorization server (metadata, dynamic client registration, PKCE, an in-memory provider that approves every sign-in)
and the Streamable HTTP resource server at /mcp (a bearer token required).
`python -m tests.mcp.oauth_server PORT`; POST /test/expire makes every access token issued so far invalid. The tool
`admin_report` needs the scope "admin" too: without it the call is answered 403 insufficient_scope (a scope step-up);
tokens can be revoked (RFC 7009) at /revoke."""

from __future__ import annotations

import json
import secrets
import sys
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

ACCESS_TOKEN_SECONDS = 3600


class ApprovingProvider:
    """OAuthAuthorizationServerProvider in memory: every authorization request is approved at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.refreshed = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["tools"], expires_at=time.time() + 300,
            client_id=client.client_id or "", code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id or "", authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.refreshed += 1
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(16)}", f"rt-{secrets.token_urlsafe(16)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource,
                                          expires_at=int(time.time()) + ACCESS_TOKEN_SECONDS)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, refresh_token=refresh, expires_in=ACCESS_TOKEN_SECONDS,
                          scope=" ".join(scopes))


def build(port: int) -> MCPServer:
    """The server on 127.0.0.1:`port`."""
    base = f"http://127.0.0.1:{port}"
    provider = ApprovingProvider()
    server = MCPServer("palimpsest-test-oauth", auth_server_provider=provider, auth=AuthSettings(
        issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=False,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["tools", "admin"],
                                                              default_scopes=["tools"]),
        revocation_options=RevocationOptions(enabled=True), required_scopes=["tools"]))

    @server.tool()
    def whoami() -> str:
        """Says that the caller signed in."""
        return "signed in through OAuth"

    @server.tool()
    def admin_report() -> str:
        """Needs the "admin" scope."""
        return "admin report for a token with the admin scope"

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(request: Request) -> Response:
        provider.access.clear()
        return JSONResponse({"refreshed": provider.refreshed})

    @server.custom_route("/test/state", methods=["GET"])
    async def state(request: Request) -> Response:
        return JSONResponse({"refreshed": provider.refreshed, "access": len(provider.access),
                             "refresh": len(provider.refresh), "clients": len(provider.clients),
                             "scopes": sorted({s for t in provider.access.values() for s in t.scopes})})

    server.provider = provider  # type: ignore[attr-defined]
    return server


class ScopeGuard:
    """ASGI middleware: a tools/call of admin_report whose bearer token lacks "admin" is answered 403
    insufficient_scope with the scope needed, as a resource server asks for a step-up."""

    def __init__(self, app: Any, provider: ApprovingProvider, base: str) -> None:
        self._app, self._provider, self._base = app, provider, base

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            await self._app(scope, receive, send)
            return
        messages, body = [], b""
        while True:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self._needs_admin(body, dict(scope["headers"]).get(b"authorization", b"").decode()):
            challenge = (f'Bearer error="insufficient_scope", scope="admin", '
                         f'resource_metadata="{self._base}/.well-known/oauth-protected-resource/mcp"')
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"www-authenticate", challenge.encode()), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        replay = iter(messages)

        async def again() -> Any:
            message = next(replay, None)
            return message if message is not None else await receive()  # then wait for the real disconnect

        await self._app(scope, again, send)

    def _needs_admin(self, body: bytes, authorization: str) -> bool:
        try:
            request = json.loads(body)
        except ValueError:
            return False
        if not isinstance(request, dict) or request.get("method") != "tools/call" or \
                (request.get("params") or {}).get("name") != "admin_report":
            return False
        token = self._provider.access.get(authorization.removeprefix("Bearer ").strip())
        return token is None or "admin" not in token.scopes


def main() -> None:
    """Serves on 127.0.0.1:PORT until killed."""
    import uvicorn

    port = int(sys.argv[1])
    server = build(port)
    app = ScopeGuard(server.streamable_http_app(host="127.0.0.1"), server.provider,  # type: ignore[attr-defined]
                     f"http://127.0.0.1:{port}")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
