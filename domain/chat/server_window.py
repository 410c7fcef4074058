"""A local server's real window applied to a turn (what the server reports it has the model loaded with)."""

from __future__ import annotations

from domain.context.session_context import SessionContext
from domain.models import ModelId, ServerWindow, WindowSource
from domain.ports import ModelRepository
from domain.provider_ports import ModelApiAdapter
from domain.provider_rules import ProviderRules


def short_window_warning(model_id: ModelId, loaded: int, trained: int, hint: str = "") -> str:
    """What to tell the user when a server runs a model with less context than it was trained for; `hint`: how to
    raise it, in the servers' own terms (ProviderRules.context_length_hint)."""
    return (f"The server runs {model_id} with a {loaded:,}-token context, less than the {trained:,} tokens it was "
            f"trained for, and cuts anything longer silently; Palimpsest manages this conversation against "
            f"{loaded:,} tokens." + (f" To raise it: {hint}" if hint else ""))


async def apply_server_window(
    adapter: ModelApiAdapter, models: ModelRepository, ctx: SessionContext, rules: ProviderRules | None = None
) -> tuple[SessionContext, str | None]:
    """The context with the model's window as the server runs it or lists it (recorded, unless the user set one),
    and the warning to show when the server runs the model with less context than it was trained for."""
    model = ctx.model
    if model is None:
        return ctx, None
    window: ServerWindow | None = await adapter.server_window(model.id)
    if window is None:
        return ctx, None
    if window.source is WindowSource.SERVER:
        known = (model.context_window_size, model.window_source, model.trained_window)
        if not model.user_window and known != (window.loaded, WindowSource.SERVER, window.trained):
            models.record_server_window(model.provider_id, model.id, window.loaded, window.trained)
            ctx = ctx.with_model(models.resolve(model.provider_id, model.id))
    elif not model.user_window and (model.context_window_size, model.window_source) != (window.loaded, window.source):
        models.record_limit(model.provider_id, model.id, window.loaded, source=window.source)  # the list's window
        ctx = ctx.with_model(models.resolve(model.provider_id, model.id))
    if window.input_limit is not None and ctx.model is not None and ctx.model.input_limit != window.input_limit:
        models.record_limit(model.provider_id, model.id, window.input_limit, input_only=True)
        ctx = ctx.with_model(models.resolve(model.provider_id, model.id))
    if window.short and not model.user_window and window.trained is not None:
        hint = rules.context_length_hint(window.trained) if rules is not None else ""
        return ctx, short_window_warning(model.id, window.loaded, window.trained, hint)
    return ctx, None
