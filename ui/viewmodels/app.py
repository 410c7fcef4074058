"""Drives the window as a whole: start-up, first run (no key yet), and the header's pickers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from domain.models import Agent, AiModel, ThinkingForm
from domain.retirement import day_text
from domain.web_support import model_takes_web_search, provider_searches_web, searches_natively
from ui.backend import AppBackend, ProviderInfo, Selection, StartupInfo
from ui.error_text import describe
from ui.signals import emit
from ui.state.chat_state import ModelChoice
from ui.worker import AsyncWorker


@dataclass(frozen=True)
class AppState:
    """Start-up state: loading, what is configured, and the choices for the header."""

    loading: bool = True
    startup: StartupInfo | None = None
    choices: tuple[ModelChoice, ...] = ()
    agents: tuple[Agent, ...] = ()
    first_run_dismissed: bool = False
    error: str | None = None

    @property
    def first_run(self) -> bool:
        """Show the first-run panel: no provider can be used yet and there is no conversation to read either."""
        return (
            self.startup is not None
            and not self.startup.any_key
            and not self.startup.has_sessions
            and not self.first_run_dismissed
        )


def build_choices(providers: Sequence[ProviderInfo], models: Sequence[AiModel],
                  mcp_search: Sequence[str] = (), today: date | None = None) -> tuple[ModelChoice, ...]:
    """Picker entries: usable providers first, each provider's default model first, then by name, then the models
    whose retirement its vendor has announced, those already retired (by `today`, UTC) last; a model without its
    provider's own search searches through the MCP search tools `mcp_search` when there are any."""
    today = today or datetime.now(UTC).date()
    by_id = {p.provider.id: p for p in providers if p.provider.is_active}
    ordered = sorted(
        (m for m in models if m.provider_id in by_id),
        key=lambda m: (not by_id[m.provider_id].has_key, m.provider_id, _retired(m, today), m.retirement is not None,
                       not m.is_default, m.display_name or m.id),
    )
    return tuple(
        ModelChoice(
            selection=Selection(m.provider_id, m.id),
            label=m.display_name or m.id,
            provider_name=by_id[m.provider_id].provider.name,
            window=m.context_window_size,
            window_is_guess=m.window_is_guess,
            features=features_of(m),
            reasoning_levels=reasoning_levels_of(m),
            web_search=provider_searches_web(by_id[m.provider_id].provider) and model_takes_web_search(m),
            web_search_refused=provider_searches_web(by_id[m.provider_id].provider) and not model_takes_web_search(m),
            web_search_mcp=() if searches_natively(by_id[m.provider_id].provider, m) else tuple(mcp_search),
            retirement=_retirement_label(m, today),
            retired=_retired(m, today),
            successor=(m.retirement.successor_name or m.retirement.successor or "") if m.retirement else "",
        )
        for m in ordered
    )


def _retired(model: AiModel, today: date) -> bool:
    return model.retirement is not None and model.retirement.passed(today)


def _retirement_label(model: AiModel, today: date) -> str:
    """`retired 15 Jun 2026` or `retires 30 Nov 2026` (announced by its vendor), else ''."""
    if model.retirement is None:
        return ""
    return f"{'retired' if _retired(model, today) else 'retires'} {day_text(model.retirement.on, short=True)}"


def features_of(model: AiModel) -> tuple[str, ...]:
    """What the model is known to take besides text, for the picker (nothing when its capabilities are unknown)."""
    caps = model.capabilities
    if caps is None:
        return ()
    found = [("reasoning", caps.thinking is not ThinkingForm.NONE), ("images", caps.vision),
             ("PDFs", caps.pdf_input)]
    return tuple(name for name, known in found if known)


def reasoning_levels_of(model: AiModel) -> tuple[str, ...]:
    """The reasoning levels the picker offers for the model: none when it does not reason or is not known to."""
    caps = model.capabilities
    if caps is None or caps.thinking is ThinkingForm.NONE:
        return ()
    return caps.reasoning_levels()


class AppViewModel(QObject):
    """Loads what the window needs at start-up and after settings change."""

    state_changed = Signal(object)  # AppState

    def __init__(self, backend: AppBackend, worker: AsyncWorker) -> None:
        super().__init__()
        self._backend = backend
        self._worker = worker
        self._state = AppState()

    @property
    def state(self) -> AppState:
        """The current state."""
        return self._state

    def _set(self, **changes: Any) -> None:
        self._state = replace(self._state, **changes)
        emit(self.state_changed, self._state)

    def load(self) -> None:
        """Reads providers, keys, models and agents."""

        async def read() -> dict[str, Any]:
            startup = await self._backend.startup()
            models = await self._backend.list_models()
            return {
                "startup": startup, "choices": build_choices(startup.providers, models, startup.mcp_search_tools),
                "agents": startup.agents, "loading": False, "error": None,
            }

        self._worker.call(read, lambda values: self._set(**values),
                          lambda e: self._set(loading=False, error=describe(e)))

    def dismiss_first_run(self) -> None:
        """Hides the first-run panel (e.g. the user will set an environment variable later)."""
        self._set(first_run_dismissed=True)
