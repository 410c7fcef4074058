"""What MCP servers offer besides tools: prompts (with argument completion) and resources, and the port to them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from domain.errors import InvalidInput
from domain.mcp import McpServer


@dataclass(frozen=True)
class McpPromptArgument:
    """One argument of a prompt."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    """A prompt a server offers: a message template the user fills in and sends."""

    name: str
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True)
class McpResource:
    """A resource a server lists (a file, a record, a page) by its URI."""

    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None


@dataclass(frozen=True)
class McpResourceTemplate:
    """A family of resources a server offers by a URI template (RFC 6570), e.g. `notes://day/{date}`."""

    uri_template: str
    name: str
    description: str = ""
    mime_type: str | None = None

    @property
    def variables(self) -> tuple[str, ...]:
        """The template's variable names, in order."""
        names: list[str] = []
        for expression in _EXPRESSION.findall(self.uri_template):
            for part in expression.lstrip("+#./;?&").split(","):
                name = part.strip().rstrip("*").split(":")[0]
                if name and name not in names:
                    names.append(name)
        return tuple(names)

    def expand(self, values: Mapping[str, str]) -> str:
        """The URI with each `{name}` (or `{+name}`) replaced by its value (escaped unless reserved)."""
        from urllib.parse import quote

        def one(match: re.Match[str]) -> str:
            expression = match.group(1)
            operator = expression[0] if expression[0] in "+#./;?&" else ""
            safe = ":/?#[]@!$&'()*+,;=" if operator in ("+", "#") else ""
            names = [p.strip().rstrip("*").split(":")[0] for p in expression[len(operator):].split(",")]
            given = [(n, quote(values[n], safe=safe)) for n in names if values.get(n)]
            if not given:
                return ""
            if operator in ("?", "&", ";"):  # name=value pairs
                joiner = "&" if operator != ";" else ";"
                return ("?" if operator == "?" else joiner) + joiner.join(f"{n}={v}" for n, v in given)
            prefix = "" if operator == "+" else operator
            return prefix + ("," if operator in ("", "+", "#") else operator).join(v for _, v in given)

        return _EXPRESSION.sub(one, self.uri_template)


_EXPRESSION = re.compile(r"\{([^}]+)\}")


@dataclass(frozen=True)
class McpResourceContent:
    """One part of a read resource: its text, or its bytes."""

    uri: str
    mime_type: str | None
    text: str | None = None
    data: bytes | None = None


class McpCatalog(Protocol):
    """The prompts and resources of running MCP servers (started on first use, like their tools)."""

    async def list_prompts(self, server: McpServer) -> Sequence[McpPrompt]:
        """Every prompt the server lists; McpServerError when it cannot be reached or has none to offer."""
        ...

    async def get_prompt(self, server: McpServer, name: str, arguments: Mapping[str, str]) -> str:
        """The prompt filled in, as the text of one message; McpServerError on the server's refusal."""
        ...

    async def complete(self, server: McpServer, prompt: str, argument: str, value: str,
                       context: Mapping[str, str] | None = None) -> list[str]:
        """The server's completions of a prompt argument's partial value (none when it offers none)."""
        ...

    async def list_resources(self, server: McpServer) -> Sequence[McpResource]:
        """Every resource the server lists."""
        ...

    async def read_resource(self, server: McpServer, uri: str) -> list[McpResourceContent]:
        """The resource's contents; McpServerError when it cannot be read."""
        ...

    async def subscribe_resource(self, server: McpServer, uri: str) -> bool:
        """Asks the server to say when the resource changes; False when it offers no subscriptions."""
        ...

    async def unsubscribe_resource(self, server: McpServer, uri: str) -> None:
        """No more updates of the resource."""
        ...

    def resource_changed(self, server: str, uri: str) -> bool:
        """True once after each update the server announced for a subscribed resource (re-read it then)."""
        ...

    async def list_resource_templates(self, server: McpServer) -> Sequence[McpResourceTemplate]:
        """Every resource template the server lists."""
        ...


def prompt_arguments(prompt: McpPrompt, given: Mapping[str, str]) -> dict[str, str]:
    """The arguments for a prompt, checked: InvalidInput names an unknown or a missing required one."""
    known = {a.name for a in prompt.arguments}
    unknown = sorted(set(given) - known)
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise InvalidInput(f"The prompt {prompt.name!r} has no argument {unknown[0]!r} (its arguments: {listed}).")
    missing = [a.name for a in prompt.arguments if a.required and not given.get(a.name)]
    if missing:
        raise InvalidInput(f"The prompt {prompt.name!r} needs {', '.join(f'{m}=VALUE' for m in missing)}.")
    return dict(given)


def split_prompt_ref(ref: str) -> tuple[str, str]:
    """(server, prompt) of `SERVER/PROMPT` (or `SERVER:PROMPT`, the composer's form); InvalidInput otherwise."""
    for separator in ("/", ":"):
        server, sep, prompt = ref.partition(separator)
        if sep and server and prompt:
            return server, prompt
    raise InvalidInput(f"Give the prompt as SERVER/PROMPT, not {ref!r}.")
