"""`chat -m MODEL`: the model must be one the turn's provider is known to have (OpenAI-compatible: a warning)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from domain.errors import InvalidInput
from domain.models import Agent, Provider, ProviderType, Session

if TYPE_CHECKING:
    from app.container import Container

MODELS_LISTED = 8


def turn_provider(
    c: Container, explicit: Provider | None, session: Session | None, agent: Agent | None
) -> Provider | None:
    """The provider the turn will use, chosen as the send use case chooses it: explicit, the session's, the
    agent's preferred, else the first active one (None when none is configured: the turn says so itself)."""
    if explicit is not None:
        return explicit
    chosen_agent = agent or c.agents.default()
    for candidate in (session.current_provider_id if session else None, chosen_agent.preferred_provider_id):
        found = c.providers.get(candidate) if candidate else None
        if found is not None:
            return found
    return next((p for p in c.providers.list() if p.is_active), None)


async def check_model(c: Container, provider: Provider, model_id: str, err: TextIO) -> None:
    """Passes a model the provider is known to have (preset, fetched or added) or, asked now, lists (a model newer
    than the registry: its window and capabilities are stored on the way); refuses an unknown one, except on an
    OpenAI-compatible server, whose models are often not listed: there it warns that the window is a guess."""
    known = sorted(m.id for m in c.models.list(provider.id))
    if model_id in known or await c.discover_model(provider, c.models.resolve(provider.id, model_id)) is not None:
        return
    add = f"palimpsest models add {provider.id} {model_id} --context-window N"
    if provider.type is ProviderType.OPENAI_COMPATIBLE:
        err.write(f"palimpsest: note: {model_id!r} is not among {provider.name}'s known models; sending it anyway "
                  f"with a guessed context window (set it with: {add}).\n")
        err.flush()
        return
    more = len(known) - MODELS_LISTED
    shown = ", ".join(known[:MODELS_LISTED]) + (f" and {more} more" if more > 0 else "")
    raise InvalidInput(
        f"{provider.name} has no model {model_id!r} that Palimpsest knows of. Known: {shown or 'none'}. See them all "
        f"with: palimpsest models list -p {provider.id} --refresh; or add it with: {add}"
    )
