"""SessionContext: everything a session's next request is made of, loaded once and passed around frozen."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter

from domain.context.frozen_copy import copied
from domain.models import Agent, AiModel, Message, Provider, Session, ToolDefinition
from domain.settings import ContextSettings

_SEQ = attrgetter("seq")


@dataclass(frozen=True)
class SessionContext:
    """A session as its next request sees it: the agent, the effective settings, the system prompt with the memory
    section (the summary is injected by the planner), the tool definitions, the resolved provider and model, and the
    stored messages from the compaction boundary on (all of them while there is no summary) plus the pinned ones.

    `provider` and `model` are None only when no model could be chosen (a status read before any provider exists).
    `attachment_counts`: the input tokens providers counted for the attachments here, by (sha256, count key).
    `unloaded_tokens`: only for a status read (`SessionContextLoader.load_to_measure`) of a session whose
    newest messages alone fill the window: the older messages are left unread and counted here by their length."""

    session: Session
    agent: Agent
    settings: ContextSettings
    system_prompt: str | None
    tools: tuple[ToolDefinition, ...]
    provider: Provider | None
    model: AiModel | None
    messages: tuple[Message, ...]
    pinned: tuple[Message, ...] = ()
    attachment_counts: Mapping[tuple[str, str], int] = field(default_factory=dict)  # the providers' own counts
    unloaded_tokens: int = 0  # a status read far past the window: older messages not loaded, counted by length

    @property
    def summary(self) -> str | None:
        """The summary in force (injected into the system prompt), or None."""
        return self.session.summary

    @property
    def boundary(self) -> int | None:
        """The seq of the first message sent verbatim, or None without a summary."""
        return self.session.boundary

    @property
    def window(self) -> int | None:
        """The target model's context window, when known."""
        return self.model.context_window_size if self.model is not None else None

    def with_model(self, model: AiModel) -> SessionContext:
        """The same context aimed at another (or newly learned) model of the same provider."""
        return copied(self, model=model)

    def with_session(self, session: Session) -> SessionContext:
        """The context after the session row changed (a compaction moved the boundary forward, a choice was stored);
        messages now behind the boundary are dropped. A boundary moved backwards needs a reload instead."""
        boundary = session.boundary
        kept = self.messages
        if boundary is not None and not all(map(boundary.__le__, map(_SEQ, kept))):  # at C speed: every turn
            kept = tuple(m for m in kept if m.seq >= boundary)
        return copied(self, session=session, messages=kept)

    def with_messages(self, added: Iterable[Message]) -> SessionContext:
        """The context after the turn stored more messages (they come after every message already here)."""
        new = tuple(added)
        if not new:
            return self
        pinned = self.pinned + tuple(m for m in new if m.pinned)
        return copied(self, messages=self.messages + new, pinned=pinned)

    def without(self, removed: Iterable[Message]) -> SessionContext:
        """The context after messages were taken off the conversation's path."""
        ids = {m.id for m in removed}
        if not ids:
            return self
        return replace(self, messages=tuple(m for m in self.messages if m.id not in ids),
                       pinned=tuple(m for m in self.pinned if m.id not in ids))

    def without_reasoning(self) -> SessionContext:
        """The context with no reasoning block on any message (to resend after the provider refused them)."""
        strip = lambda ms: tuple(replace(m, reasoning=()) if m.reasoning else m for m in ms)  # noqa: E731
        return replace(self, messages=strip(self.messages), pinned=strip(self.pinned))

    def with_counts(self, counts: Mapping[tuple[str, str], int]) -> SessionContext:
        """The context with more of the providers' attachment counts known."""
        return replace(self, attachment_counts={**self.attachment_counts, **counts}) if counts else self

    def with_system_prompt(self, system_prompt: str | None) -> SessionContext:
        """The context with another system prompt (the memory section changed)."""
        return replace(self, system_prompt=system_prompt)
