"""The chat screen's MCP verbs: the servers' prompts for `/server:prompt` (with the server's argument completion),
filling one into the composer, attaching a resource, and opening a resource a tool's result linked to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Signal

from ui.attachments_backend import AttachmentPreview
from ui.error_text import describe
from ui.mcp_backend import McpCatalogBackend, McpListing, OpenedResource
from ui.signals import emit
from ui.state.chat_events import AttachEnded, AttachStarted, DraftChanged

if TYPE_CHECKING:
    from ui.viewmodels.chat import ChatViewModel


class McpController(QObject):
    """Owned by the ChatViewModel (`vm.mcp`); answers arrive as signals on the GUI thread."""

    prompts_ready = Signal(object)  # McpListing: the prompts of the servers on for the conversation
    completions_ready = Signal(object, list)  # the request's key (server, prompt, argument, value), the values
    resources_ready = Signal(object)  # McpListing: resources and templates
    prompt_filled = Signal(str)  # the prompt's text, now the composer's draft
    authorization_url = Signal(str)  # a sign-in's address, for the browser (emitted from the servers' thread)

    def __init__(self, vm: ChatViewModel) -> None:
        super().__init__()
        self._vm = vm
        self.prompts: McpListing | None = None  # the last listing (None until one arrived)
        self.resources: McpListing | None = None

    @property
    def _mcp(self) -> McpCatalogBackend:
        return cast(McpCatalogBackend, self._vm.backend)  # the chat backend also implements McpCatalogBackend

    def _session(self) -> str | None:
        session = self._vm.state.session
        return session.id if session is not None else None

    def load_prompts(self) -> None:
        """Lists the prompts of the servers on for this conversation (prompts_ready)."""
        session = self._session()

        def listed(listing: McpListing) -> None:
            self.prompts = listing
            emit(self.prompts_ready, listing)

        self._vm.worker.call(lambda: self._mcp.mcp_prompts(session), listed, lambda error: listed(McpListing(
            problems=(describe(error),))))

    def complete(self, server: str, prompt: str, argument: str, value: str, given: Mapping[str, str]) -> None:
        """Asks the server to complete an argument's partial value (completions_ready carries the values)."""
        key = (server, prompt, argument, value)
        context = {k: v for k, v in given.items() if k != argument}
        self._vm.worker.call(lambda: self._mcp.complete_mcp_argument(server, prompt, argument, value, context),
                             lambda values: emit(self.completions_ready, key, list(values)), lambda _error: None)

    def fill_prompt(self, server: str, prompt: str, arguments: Mapping[str, str]) -> None:
        """Has the server fill the prompt in; its messages become the composer's text (not sent yet)."""
        vm = self._vm

        def filled(text: str) -> None:
            vm.dispatch(DraftChanged(text))
            emit(self.prompt_filled, text)

        vm.worker.call(lambda: self._mcp.fill_mcp_prompt(server, prompt, dict(arguments)), filled,
                       lambda error: emit(vm.notice, describe(error)))

    def servers_on_for_new_chat(self, answer: Callable[[bool], None]) -> None:
        """Asks whether any MCP server would be on in a new chat not stored yet (it has no servers of its own to
        show): `answer` gets True or False on the GUI thread (False too when the servers cannot be read)."""
        self._vm.worker.call(lambda: self._vm.backend.session_mcp_servers(None),
                             lambda servers: answer(any(s.enabled for s in servers)), lambda _error: answer(False))

    def load_resources(self) -> None:
        """Lists the resources and templates of the servers on for this conversation (resources_ready)."""
        session = self._session()

        def listed(listing: McpListing) -> None:
            self.resources = listing
            emit(self.resources_ready, listing)

        self._vm.worker.call(lambda: self._mcp.mcp_resources(session), listed, lambda error: listed(McpListing(
            problems=(describe(error),))))

    def attach_resource(self, server: str, uri: str) -> None:
        """Reads a resource and puts its parts in the composer as attachments."""
        vm, session = self._vm, self._session()
        vm.dispatch(AttachStarted())

        def taken(previews: list[AttachmentPreview]) -> None:
            for preview in previews:
                if preview.thumbnail:
                    vm.files.thumbnails[preview.attachment.sha256] = preview.thumbnail
            for _ in previews[1:]:
                vm.dispatch(AttachStarted())
            for preview in previews or [None]:  # type: ignore[list-item]
                vm.dispatch(AttachEnded(preview))

        def refused(error: Exception) -> None:
            vm.dispatch(AttachEnded(None))
            emit(vm.notice, describe(error))

        vm.worker.call(lambda: self._mcp.attach_mcp_resource(server, uri, session), lambda p: taken(list(p)), refused)

    def open_resource(self, tool_name: str, uri: str) -> None:
        """Reads a resource a tool's result linked to: text shows in the reader, anything else opens as a file."""
        vm = self._vm

        def opened(result: OpenedResource) -> None:
            if result.text is not None:
                emit(vm.text_ready, result.title, result.text)
            elif result.path is not None:
                emit(vm.file_ready, result.path)

        vm.worker.call(lambda: self._mcp.open_mcp_resource(tool_name, uri), opened,
                       lambda error: emit(vm.notice, describe(error)))

    def sign_in(self, server: str) -> None:
        """Signs in to a remote server in the browser (authorization_url carries the address); a notice says when
        it is done."""
        vm = self._vm
        emit(vm.notice, f"Sign in to {server} in your browser; Palimpsest waits for it to finish.")
        vm.worker.call(lambda: self._mcp.sign_in_mcp_server(server, None, lambda url: emit(self.authorization_url,
                                                                                            url)),
                       lambda _: emit(vm.notice, f"Signed in to {server}. Retry, or send again, to use its tools."),
                       lambda error: emit(vm.notice, describe(error)))
