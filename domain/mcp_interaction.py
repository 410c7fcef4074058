"""What an MCP server may ask of the user while a tool runs: a form to fill in (elicitation), or the use of the
user's model (sampling); the ports that answer, and the answer given when no one can be asked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from domain.tool_approval import ApprovalDecision


class ElicitAction(StrEnum):
    """The user's answer to a form: sent it, refused it, or dismissed it."""

    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


@dataclass(frozen=True)
class ElicitField:
    """One field of a server's form (a property of its flat JSON schema)."""

    name: str
    kind: str = "string"  # "string" | "number" | "integer" | "boolean"
    title: str = ""
    description: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Elicitation:
    """A server's question: form mode (its message and the fields to fill in) or URL mode (its message and an
    address the user is asked to open, where the server takes the answer itself; accepting sends nothing else)."""

    server: str
    message: str
    fields: tuple[ElicitField, ...] = ()
    url: str | None = None  # URL mode
    elicitation_id: str | None = None  # URL mode: notifications/elicitation/complete names it


@dataclass(frozen=True)
class ElicitAnswer:
    """The user's answer; `values` only when accepted."""

    action: ElicitAction
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SamplingEstimate:
    """What a sampling request would cost on the model that would run it: input tokens (estimated), the output
    limit, and at most how many USD (None when the model's price is unknown)."""

    model: str
    input_tokens: int
    max_output_tokens: int
    cost_usd: float | None = None

    def describe(self) -> str:
        """One line: `MODEL: about N input + up to M output tokens, at most $X`."""
        tokens = f"{self.model}: about {self.input_tokens:,} input + up to {self.max_output_tokens:,} output tokens"
        if self.cost_usd is None:
            return f"{tokens} (price unknown)"
        cost = f"{self.cost_usd:.4f}" if self.cost_usd < 0.01 else f"{self.cost_usd:.2f}"
        return f"{tokens}, at most ${cost}"


@dataclass(frozen=True)
class SamplingRequest:
    """A server asks for a completion from the user's model: the messages (role, text), its system prompt,
    its output limit, and what it would cost (when a model is known)."""

    server: str
    messages: tuple[tuple[str, str], ...]
    system: str | None = None
    max_tokens: int = 1000
    estimate: SamplingEstimate | None = None


@dataclass(frozen=True)
class SamplingReply:
    """The model's answer to a sampling request, and which model wrote it."""

    text: str
    model: str


class McpUser(Protocol):
    """Asks the user on a server's behalf; nothing is sent to the server without the user's answer. An McpUser may
    also have `elicitation_completed(request)`: told when the server says a URL-mode question's step is done."""

    async def elicit(self, request: Elicitation) -> ElicitAnswer:
        """The user's answer to the form (decline when the user cannot be asked)."""
        ...

    async def approve_sampling(self, request: SamplingRequest) -> ApprovalDecision:
        """ONCE or ALWAYS (for this server, remembered) only when the user allows this request to run on their
        model; DENY otherwise."""
        ...


class McpSampler(Protocol):
    """Runs an approved sampling request on the user's model."""

    async def sample(self, request: SamplingRequest) -> SamplingReply:
        """The reply; raises PalimpsestError (no model to use, the provider's failure) otherwise."""
        ...

    def estimate(self, request: SamplingRequest) -> SamplingEstimate | None:
        """The model that would run it and the cost, None when no model is known yet."""
        ...


class NobodyToAsk:
    """The McpUser where no one can be asked (no terminal, a script): forms are declined, sampling refused."""

    async def elicit(self, request: Elicitation) -> ElicitAnswer:
        """Always declines."""
        return ElicitAnswer(ElicitAction.DECLINE)

    async def approve_sampling(self, request: SamplingRequest) -> ApprovalDecision:
        """Always refuses."""
        return ApprovalDecision.DENY


def coerce(value: str, spec: ElicitField) -> Any:
    """A typed answer to a field from its text; ValueError says what the field takes."""
    text = value.strip()
    if spec.choices and text not in spec.choices:
        raise ValueError(f"choose one of: {', '.join(spec.choices)}")
    if spec.kind == "boolean":
        if text.lower() in ("y", "yes", "true", "1"):
            return True
        if text.lower() in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if spec.kind == "integer":
        return int(text)
    if spec.kind == "number":
        return float(text)
    return text
