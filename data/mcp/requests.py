"""A server's requests to the client, answered: elicitation (a form the user fills in), sampling (the user's model,
after the user's approval) and roots (the folders the user declared for the server)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientRequestContext

from domain.errors import PalimpsestError
from domain.mcp import McpServer
from domain.mcp_interaction import (
    ElicitAction,
    Elicitation,
    ElicitField,
    McpSampler,
    McpUser,
    NobodyToAsk,
    SamplingRequest,
)
from domain.tool_approval import ApprovalDecision

_KINDS = ("string", "number", "integer", "boolean")


class ServerRequests:
    """The client's side of a server's requests, for one server; built per connection."""

    def __init__(self, server: McpServer, user: McpUser | None, sampler: McpSampler | None,
                 remember_sampling: Callable[[str], None] | None = None) -> None:
        self._server = server
        self._user: McpUser = user or NobodyToAsk()
        self._sampler = sampler
        self._remember_sampling = remember_sampling  # stores "always" for the server's sampling (its name)
        self._asked: dict[str, Elicitation] = {}  # URL-mode questions by their id, until the server says done

    def use(self, server: McpServer) -> None:
        """Answers with this configuration from now on (its roots or its sampling rule changed)."""
        self._server = server

    async def elicit(self, context: ClientRequestContext,
                     params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        """A question asked of the user: a form (the values typed are sent) or, URL mode, an address to open (the
        user's consent is sent, nothing else)."""
        if isinstance(params, types.ElicitRequestURLParams):
            request = Elicitation(self._server.name, params.message, url=params.url,
                                  elicitation_id=params.elicitation_id)
            if params.elicitation_id:
                self._asked[params.elicitation_id] = request
        else:
            request = Elicitation(self._server.name, params.message, fields_of(params.requested_schema))
        answer = await self._user.elicit(request)
        if answer.action is ElicitAction.ACCEPT:
            if request.url is not None:
                return types.ElicitResult(action="accept")
            return types.ElicitResult(action="accept", content=dict(answer.values))
        return types.ElicitResult(action="decline" if answer.action is ElicitAction.DECLINE else "cancel")

    def completed(self, elicitation_id: str) -> None:
        """notifications/elicitation/complete: the user is told that the step at that address is done."""
        request = self._asked.pop(elicitation_id, None)
        done = getattr(self._user, "elicitation_completed", None)
        if request is not None and done is not None:
            done(request)

    async def sample(self, context: ClientRequestContext,
                     params: types.CreateMessageRequestParams) -> types.CreateMessageResult | types.ErrorData:
        """Runs the request on the user's model only after the user approved it (this once, or always for this
        server: remembered), shown with what it would cost; a refusal is an error."""
        messages = tuple((m.role, _text(m.content)) for m in params.messages)
        request = SamplingRequest(self._server.name, messages, params.system_prompt, params.max_tokens)
        if self._sampler is None:
            return types.ErrorData(code=-1, message="The user declined to run this request on their model.")
        request = replace(request, estimate=self._sampler.estimate(request))
        if not self._server.sampling_always:
            decision = await self._user.approve_sampling(request)
            if decision is ApprovalDecision.DENY:
                return types.ErrorData(code=-1, message="The user declined to run this request on their model.")
            if decision is ApprovalDecision.ALWAYS:
                self._server = replace(self._server, sampling_always=True)
                if self._remember_sampling is not None:
                    self._remember_sampling(self._server.name)
        try:
            reply = await self._sampler.sample(request)
        except PalimpsestError as err:
            return types.ErrorData(code=types.INTERNAL_ERROR, message=str(err))
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=reply.text),
                                         model=reply.model, stop_reason="endTurn")

    async def roots(self, context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
        """The folders declared for the server (`mcp add --root PATH`), as file URIs."""
        roots = [types.Root.model_validate({"uri": Path(p).as_uri(), "name": Path(p).name or p})
                 for p in self._server.roots]
        return types.ListRootsResult(roots=roots)


def fields_of(schema: Any) -> tuple[ElicitField, ...]:
    """The form's fields from its flat JSON schema (properties of primitive types; enums as choices)."""
    data = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
    required = set(data.get("required") or ())
    fields = []
    for name, prop in (data.get("properties") or {}).items():
        kind = prop.get("type") if prop.get("type") in _KINDS else "string"
        choices = tuple(str(c) for c in prop.get("enum") or ())
        fields.append(ElicitField(name, kind, str(prop.get("title") or ""), str(prop.get("description") or ""),
                                  name in required, choices))
    return tuple(fields)


def _text(content: Any) -> str:
    if isinstance(content, types.TextContent):
        return content.text
    return f"[{getattr(content, 'type', 'content')} omitted]"
