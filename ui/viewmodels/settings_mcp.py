"""The settings dialog's MCP verbs (mixed into SettingsViewModel): add, refresh, rules, remove, per-agent switches."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, cast

from PySide6.QtCore import QObject, Signal

from domain.models import AgentId
from ui.backend import SettingsBackend
from ui.error_text import describe
from ui.mcp_backend import McpCatalogBackend
from ui.signals import emit
from ui.worker import AsyncWorker

SIGN_IN_NEEDED = "needs you to sign in"
OpenUrl = Callable[[str], object]


class _UrlRelay(QObject):
    """Carries an authorization URL from the MCP servers' thread to the GUI thread, where the browser opens."""

    url = Signal(str)


class SettingsMcpOps:
    """Relies on SettingsViewModel's state, backend and _run/_set/_reject."""

    _backend: SettingsBackend
    _state: Any
    _worker: AsyncWorker
    _adding: tuple[str, str, tuple[tuple[str, str], ...]] | None = None  # the add a sign-in interrupted
    _relay: _UrlRelay | None = None
    _signing_in: Future[Any] | None = None  # the sign-in waiting for the browser

    def _set(self, **changes: Any) -> None:
        raise NotImplementedError

    def _run(self, tag: str, make: Callable[[], Any], then: Callable[[Any], None], *, catalog: bool = False) -> None:
        raise NotImplementedError

    def _reject(self, message: str) -> None:
        raise NotImplementedError

    async def _mcp_values(self) -> dict[str, Any]:
        servers = tuple(await self._backend.list_mcp_servers())
        logs = {s.name: await self._backend.mcp_log_path(s.name) for s in servers if s.command}
        return {"mcp_servers": servers, "mcp_logs": logs}

    def _reload_mcp(self, message: str) -> None:
        """Reads the servers again; the header's pickers too (a search server added or removed changes the globe)."""
        self._run("mcp", self._mcp_values, lambda values: self._set(**values, message=message), catalog=True)

    # --- MCP servers ------------------------------------------------------------------------------------
    def add_mcp_server(self, name: str, target: str, values: Sequence[tuple[str, str]] = ()) -> None:
        """Adds a server from a command line (split like a shell would) or an http(s) URL, with `values` as the
        command's environment variables or the URL's headers (kept in the keychain only); it is started once to
        list its tools, and nothing is stored when that fails (the error says why)."""
        target = target.strip()
        if not name.strip() or not target:
            self._reject("Give the MCP server a name and a command line or URL.")
            return
        is_url = target.startswith(("http://", "https://"))
        try:
            command = [] if is_url else shlex.split(target)
        except ValueError as err:
            self._reject(f"The command line cannot be read: {err}.")
            return
        checked = checked_values(values, headers=is_url)
        if isinstance(checked, str):
            self._reject(checked)
            return
        self._adding = (name, target, tuple(values))
        self._run_mcp(lambda: self._backend.add_mcp_server(name.strip(), command, target if is_url else None,
                                                           checked),
                      lambda s: self._reload_mcp(f"MCP server {s.name} added with {_tools(len(s.tools))}"
                                                 f"{_kept(len(checked), is_url)}."),
                      (name.strip(), target) if is_url else None)

    def refresh_mcp_tools(self, name: str) -> None:
        """Starts the server if needed and lists its tools again."""
        self._adding = None
        self._run_mcp(lambda: self._backend.refresh_mcp_tools(name),
                      lambda s: self._reload_mcp(f"{s.name}: {_tools(len(s.tools))}."), (name, None))

    def _run_mcp(self, make: Callable[[], Any], then: Callable[[Any], None],
                 remote: tuple[str, str | None] | None) -> None:
        """Runs an MCP verb; a remote server's 401 sets `mcp_sign_in` (the dialog offers Sign in)."""
        self._set(busy=self._state.busy | {"mcp"}, error=None, mcp_sign_in=None)

        def ok(result: Any) -> None:
            self._set(busy=self._state.busy - {"mcp"})
            then(result)

        def failed(error: Exception) -> None:
            text = describe(error)
            if remote is not None and SIGN_IN_NEEDED in text:
                self._set(busy=self._state.busy - {"mcp"}, message=None, mcp_sign_in=remote,
                          error=f"The MCP server {remote[0]} needs you to sign in: press Sign in, and sign in in "
                                "the browser that opens.")
                return
            self._set(busy=self._state.busy - {"mcp"}, error=text, message=None)

        self._worker.call(make, ok, failed)

    def sign_in_mcp_server(self, name: str, open_url: OpenUrl) -> None:
        """Signs in to a remote server in the browser (`open_url` opens the authorization URL, on the GUI thread);
        then the add or refresh that asked for it runs again."""
        pending = self._state.mcp_sign_in
        url = pending[1] if pending is not None and pending[0] == name else None
        relay = self._relay = _UrlRelay()  # kept until the next sign-in
        relay.url.connect(open_url)
        mcp = cast(McpCatalogBackend, self._backend)  # the chat backend also implements McpCatalogBackend
        self._set(busy=self._state.busy | {"mcp-sign-in"}, error=None,
                  message=f"Sign in to {name} in your browser; Palimpsest waits for it to finish.")

        def signed_in(_: object) -> None:
            self._set(busy=self._state.busy - {"mcp-sign-in"}, mcp_sign_in=None, message=f"Signed in to {name}.")
            adding = self._adding
            if url is not None and adding is not None:
                self.add_mcp_server(adding[0], adding[1], adding[2])
            else:
                self.refresh_mcp_tools(name)

        def failed(error: Exception) -> None:
            self._set(busy=self._state.busy - {"mcp-sign-in"}, error=describe(error), message=None)

        self._signing_in = self._worker.call(lambda: mcp.sign_in_mcp_server(name, url, lambda u: emit(relay.url, u)),
                                             signed_in, failed)

    def cancel_mcp_sign_in(self) -> None:
        """Stops waiting for the browser: the redirect port closes, nothing is stored."""
        waiting, self._signing_in = self._signing_in, None
        if waiting is not None and "mcp-sign-in" in self._state.busy:
            waiting.cancel()
            self._set(busy=self._state.busy - {"mcp-sign-in"}, message="Sign-in cancelled.", error=None)

    def set_mcp_tool_permission(self, name: str, tool: str, rule: str) -> None:
        """Sets one tool's rule (ask, allow or deny)."""
        self._run("mcp", lambda: self._backend.set_mcp_tool_permission(name, tool, rule),
                  lambda s: self._set(mcp_servers=tuple(s if x.name == s.name else x for x in self._state.mcp_servers),
                                      message=f"{name}: {tool} is now {rule}."))

    def set_mcp_sampling(self, name: str, rule: str) -> None:
        """Whether the server's requests to use the model are asked each time (ask) or run without asking (allow)."""
        said = "run without asking" if rule == "allow" else "asked each time"
        self._run("mcp", lambda: self._backend.set_mcp_sampling(name, rule),
                  lambda s: self._replace_mcp(s, f"{name}: requests to use your model are {said}."))

    def add_mcp_root(self, name: str, folder: str) -> None:
        """Adds a folder the server may use (a running server is told)."""
        self._run("mcp", lambda: self._backend.set_mcp_roots(name, add=[folder]),
                  lambda s: self._replace_mcp(s, f"{name} may use {folder}."))

    def remove_mcp_root(self, name: str, folder: str) -> None:
        """Removes a folder the server may use (a running server is told)."""
        self._run("mcp", lambda: self._backend.set_mcp_roots(name, remove=[folder]),
                  lambda s: self._replace_mcp(s, f"{name} may no longer use {folder}."))

    def _replace_mcp(self, server: Any, message: str) -> None:
        self._set(mcp_servers=tuple(server if x.name == server.name else x for x in self._state.mcp_servers),
                  message=message)

    def remove_mcp_server(self, name: str) -> None:
        """Removes a server (and its secrets from the keychain)."""
        self._run("mcp", lambda: self._backend.remove_mcp_server(name),
                  lambda _: self._reload_mcp(f"MCP server {name} removed."))

    def set_agent_mcp_servers(self, agent_id: AgentId, off: Sequence[str]) -> None:
        """Turns the named MCP servers off for an agent and every other one on."""
        self._run("mcp", lambda: self._backend.set_agent_mcp_servers(agent_id, off),
                  lambda servers: self._set(mcp_servers=tuple(servers)))


def checked_values(rows: Sequence[tuple[str, str]], *, headers: bool) -> dict[str, str] | str:
    """The rows of the key/value editor as a dict (rows with neither name nor value are skipped), or a message
    saying what is wrong with one."""
    what = "header" if headers else "environment variable"
    out: dict[str, str] = {}
    for number, (key, value) in enumerate(rows, start=1):
        key = key.strip()
        if not key and not value:
            continue
        if not key:
            return f"The {what} in row {number} has a value but no name."
        if any(c.isspace() for c in key):
            return f"The {what} name {key!r} contains a space; names have none."
        if "=" in key or (headers and ":" in key):
            return f"The {what} name {key!r} contains {'=' if '=' in key else ':'}; type the value in its own box."
        if key in out:
            return f"The {what} {key!r} is given twice."
        out[key] = value.strip() if headers else value
    return out


def _kept(count: int, headers: bool) -> str:
    if not count:
        return ""
    what = ("header" if headers else "environment variable") + ("" if count == 1 else "s")
    return f"; {count} {what} kept in the system keychain"


def _tools(count: int) -> str:
    return f"{count} tool{'' if count == 1 else 's'}"
