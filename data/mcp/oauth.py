"""OAuth for remote MCP servers: the SDK's OAuthClientProvider (discovery, dynamic registration, PKCE, refresh) with
its tokens and client registration in the OS keychain (service "palimpsest", user "mcp-oauth:SERVER")."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import extract_field_from_www_auth, extract_scope_from_www_auth, union_scopes
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from data.mcp.oauth_keychain import read_entry, write_entry
from data.mcp.oauth_redirect import RedirectListener, ShowSignIn, free_port, redirect_uri
from data.redaction import register_secret
from domain.mcp import McpServer, McpServerError


class KeychainTokenStorage:
    """The SDK's TokenStorage in one keychain entry: tokens with the time the access token expires, the client
    registration, and the authorization server's metadata (its token endpoint, for a refresh after a restart)."""

    def __init__(self, server: str) -> None:
        self._server = server

    async def get_tokens(self) -> OAuthToken | None:
        raw = read_entry(self._server).get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        register_secret(tokens.access_token)
        register_secret(tokens.refresh_token)
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self._update(tokens=tokens.model_dump(mode="json"), expires_at=expires_at)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = read_entry(self._server).get("client")
        return OAuthClientInformationFull.model_validate(raw) if raw else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        register_secret(client_info.client_secret)
        self._update(client=client_info.model_dump(mode="json", exclude_none=True))

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if the server said."""
        value = read_entry(self._server).get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def metadata(self) -> OAuthMetadata | None:
        """The authorization server's metadata found at the last sign-in."""
        raw = read_entry(self._server).get("metadata")
        return OAuthMetadata.model_validate(raw) if raw else None

    def set_metadata(self, metadata: OAuthMetadata | None) -> None:
        """Keeps the authorization server's metadata."""
        if metadata is not None:
            self._update(metadata=metadata.model_dump(mode="json", exclude_none=True))

    def _update(self, **values: Any) -> None:
        entry = read_entry(self._server)
        entry.update(values)
        write_entry(self._server, entry)


class KeptOAuthProvider(OAuthClientProvider):
    """OAuthClientProvider that, started afresh, knows when the stored access token expires and where to refresh it
    (the SDK keeps both only in memory), so an expired token is refreshed instead of asking to sign in again."""

    def __init__(self, server_url: str, metadata: OAuthClientMetadata, storage: KeychainTokenStorage,
                 listener: RedirectListener | None, server_name: str) -> None:
        self._kept = storage
        self._server_name = server_name
        super().__init__(server_url, metadata, storage,
                         redirect_handler=listener.show if listener else self._cannot_sign_in,
                         callback_handler=listener.wait if listener else self._no_code)

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self._kept.expires_at()
        if self.context.oauth_metadata is None:
            self.context.oauth_metadata = self._kept.metadata()
        if self.context.current_tokens is not None:
            register_secret(self.context.current_tokens.access_token)
            register_secret(self.context.current_tokens.refresh_token)

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, which answers a 403 insufficient_scope by signing in again for the larger scope; when the
        client was registered for less than that scope, it registers again first (an authorization server refuses
        a scope the registration does not name)."""
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                self._before_step_up(response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _before_step_up(self, response: httpx2.Response) -> None:
        if response.status_code != 403 or extract_field_from_www_auth(response, "error") != "insufficient_scope":
            return
        client = self.context.client_info
        if client is None or client.scope is None:
            return
        granted = self.context.current_tokens.scope if self.context.current_tokens else None
        needed = union_scopes(union_scopes(self.context.client_metadata.scope, granted),
                              extract_scope_from_www_auth(response))
        if needed and not set(needed.split()) <= set(client.scope.split()):
            self.context.client_info = None  # the SDK's flow registers again, for every scope needed

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        self._kept.set_metadata(self.context.oauth_metadata)

    async def _no_code(self) -> AuthorizationCodeResult:
        await self._cannot_sign_in("")
        raise AssertionError("unreachable")

    async def _cannot_sign_in(self, url: str) -> None:
        raise McpServerError(f"The MCP server {self._server_name!r} needs you to sign in; in a terminal run: "
                             f"palimpsest mcp tools {self._server_name}")


def oauth_for(server: McpServer, show: ShowSignIn | None) -> KeptOAuthProvider:
    """The OAuth handler of an HTTP server's requests; with `show`, a 401 starts an interactive sign-in (the redirect
    port is the one registered before, else a free one), without it a 401 is an error saying how to sign in."""
    storage = KeychainTokenStorage(server.name)
    client = read_entry(server.name).get("client") or {}
    uris = client.get("redirect_uris") or []
    port = _port(uris[0]) if uris else None
    port = port or free_port()
    listener = RedirectListener(server.name, port, show) if show is not None else None
    metadata = OAuthClientMetadata(client_name="Palimpsest", redirect_uris=[AnyUrl(redirect_uri(port))],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="client_secret_post")
    return KeptOAuthProvider(server.url or "", metadata, storage, listener, server.name)


def _port(uri: str) -> int | None:
    """The port of a stored redirect URI (the registration names it, so a later sign-in must listen there)."""
    try:
        return urlparse(uri).port
    except ValueError:
        return None
