"""In-memory fakes of the model-facing ports: the model catalogue (held to the SQL store's contract by
tests/contracts/) and a scripted summarizer."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace

from data.db.capabilities_json import merged  # the store's own rule: user values first, then the list's
from domain.errors import InvalidInput, NotFound
from domain.models import AiModel, ModelId, ModelSource, ProviderId, WindowSource
from tests.fakes_config import FakeProviderRepository

CLEARABLE = frozenset({WindowSource.USER, WindowSource.LEARNED, WindowSource.GUESSED})


class FakeModelRepository:
    """Models keyed by (provider, model); a user-set window always wins, like the store. With no registry, a
    model without a stored window resolves to `guess_window` (None unless set), marked as a guess.

    Linked to `providers`, models of an unknown provider are NotFound, like the store."""

    def __init__(
        self, models: Sequence[AiModel] = (), guess_window: int | None = None, *,
        providers: FakeProviderRepository | None = None,
    ) -> None:
        self.models: dict[tuple[ProviderId, ModelId], AiModel] = {(m.provider_id, m.id): _read(m) for m in models}
        self.guess_window = guess_window
        self.providers = providers
        self.recorded_limits: list[tuple[ProviderId, ModelId, int]] = []

    def list(self, provider_id: ProviderId | None = None) -> Sequence[AiModel]:
        found = [m for m in self.models.values() if provider_id is None or m.provider_id == provider_id]
        return sorted(found, key=lambda m: (m.provider_id, not m.is_default, m.id))

    def get(self, provider_id: ProviderId, model_id: ModelId) -> AiModel | None:
        return self.models.get((provider_id, model_id))

    def resolve(self, provider_id: ProviderId, model_id: ModelId) -> AiModel:
        stored = self.get(provider_id, model_id)
        if stored is not None and stored.context_window_size:
            return stored
        if stored is not None:
            return replace(stored, context_window_size=self.guess_window, window_is_guess=True,
                           window_source=WindowSource.REGISTRY)
        return AiModel(id=model_id, display_name=None, provider_id=provider_id, source=ModelSource.FETCHED,
                       context_window_size=self.guess_window, window_is_guess=True)

    def upsert(self, model: AiModel) -> AiModel:
        _check_sizes(model.context_window_size, model.max_output_tokens)
        self._require_provider(model.provider_id)
        old = self.get(model.provider_id, model.id)
        if old is not None and old.user_window and not model.user_window:
            model = replace(model, context_window_size=old.context_window_size,
                            max_output_tokens=old.max_output_tokens, user_window=True, window_is_guess=False)
        self.models[(model.provider_id, model.id)] = stored = _read(model)
        return stored

    def store_fetched(self, provider_id: ProviderId, models: Sequence[AiModel]) -> None:
        self._require_provider(provider_id)
        for m in models:
            old = self.get(provider_id, m.id)
            if old is None:
                self.models[(provider_id, m.id)] = AiModel(
                    id=m.id, display_name=m.display_name, provider_id=provider_id, source=ModelSource.FETCHED,
                    context_window_size=m.context_window_size, max_output_tokens=m.max_output_tokens,
                    window_source=_fetched_source(m), input_limit=m.input_limit, trained_window=m.trained_window,
                    capabilities=m.capabilities)
                continue
            new = replace(old, display_name=m.display_name or old.display_name,
                          capabilities=merged(old.capabilities, m.capabilities))
            if not old.user_window:
                if m.context_window_size:
                    new = replace(new, context_window_size=m.context_window_size, window_is_guess=False,
                                  window_source=_fetched_source(m), trained_window=m.trained_window)
                if m.input_limit:
                    new = replace(new, input_limit=m.input_limit)
                if m.max_output_tokens:
                    new = replace(new, max_output_tokens=m.max_output_tokens)
            self.models[(provider_id, m.id)] = new

    def set_user_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, max_output: int | None = None
    ) -> AiModel:
        _check_sizes(window, max_output)
        self._require_provider(provider_id)
        old = self.get(provider_id, model_id) or AiModel(
            id=model_id, display_name=None, provider_id=provider_id, source=ModelSource.USER)
        new = replace(old, context_window_size=window, user_window=True, window_is_guess=False,
                      window_source=WindowSource.USER,
                      max_output_tokens=old.max_output_tokens if max_output is None else max_output)
        self.models[(provider_id, model_id)] = new
        return new

    def record_limit(
        self, provider_id: ProviderId, model_id: ModelId, limit: int, *, input_only: bool = False,
        source: WindowSource = WindowSource.LEARNED,
    ) -> None:
        _check_sizes(limit, None)
        self._require_provider(provider_id)
        self.recorded_limits.append((provider_id, model_id, limit))
        old = self.get(provider_id, model_id)
        if input_only:
            self.models[(provider_id, model_id)] = replace(old, input_limit=limit) if old is not None else AiModel(
                id=model_id, display_name=None, provider_id=provider_id, source=ModelSource.FETCHED, input_limit=limit)
            return
        if old is None:
            self.models[(provider_id, model_id)] = AiModel(
                id=model_id, display_name=None, provider_id=provider_id, source=ModelSource.FETCHED,
                context_window_size=limit, window_source=source)
        elif not old.user_window:
            self.models[(provider_id, model_id)] = replace(old, context_window_size=limit, window_is_guess=False,
                                                           window_source=source)

    def clear_window(self, provider_id: ProviderId, model_id: ModelId) -> None:
        self._require_provider(provider_id)
        old = self.get(provider_id, model_id)
        if old is None or not (old.user_window or old.window_source in CLEARABLE):
            return
        self.models[(provider_id, model_id)] = replace(old, context_window_size=None, user_window=False,
                                                       window_is_guess=False, window_source=WindowSource.REGISTRY)

    def record_server_window(
        self, provider_id: ProviderId, model_id: ModelId, window: int, trained: int | None = None
    ) -> AiModel:
        _check_sizes(window, None)
        self._require_provider(provider_id)
        old = self.get(provider_id, model_id) or AiModel(
            id=model_id, display_name=None, provider_id=provider_id, source=ModelSource.FETCHED)
        new = replace(old, trained_window=trained)
        if not old.user_window:
            max_output = old.max_output_tokens if old.max_output_tokens and old.max_output_tokens < window else None
            new = replace(new, context_window_size=window, window_is_guess=False, window_source=WindowSource.SERVER,
                          max_output_tokens=max_output)
        self.models[(provider_id, model_id)] = new
        return new

    def _require_provider(self, provider_id: ProviderId) -> None:
        if self.providers is not None and self.providers.get(provider_id) is None:
            raise NotFound("provider", provider_id)


def _read(model: AiModel) -> AiModel:
    """A model as the store reads it back: a user-set window is always the user's."""
    return replace(model, window_source=WindowSource.USER) if model.user_window else model


def _check_sizes(window: int | None, max_output: int | None) -> None:
    if window is not None and window <= 0:
        raise InvalidInput(f"A context window must be a positive number of tokens, not {window}.")
    if max_output is not None and max_output <= 0:
        raise InvalidInput(f"Maximum output must be a positive number of tokens, not {max_output}.")
    if window is not None and max_output is not None and max_output >= window:
        raise InvalidInput(f"Maximum output ({max_output}) must be smaller than the context window ({window}).")


@dataclass(frozen=True)
class SummarizerCall:
    """One call the FakeSummarizer received."""

    provider_id: ProviderId
    model_id: ModelId
    system: str
    prompt: str
    max_tokens: int


class FakeSummarizer:
    """Returns queued summaries, or raises queued errors, and records every call; with an empty queue it
    answers `default` (None: raise AssertionError, so an unexpected call fails the test loudly)."""

    def __init__(self, *replies: str | Exception, default: str | None = None) -> None:
        self.replies: deque[str | Exception] = deque(replies)
        self.default = default
        self.calls: list[SummarizerCall] = []

    @property
    def prompts(self) -> list[str]:
        return [c.prompt for c in self.calls]

    async def summarize(
        self, *, provider_id: ProviderId, model_id: ModelId, system: str, prompt: str, max_tokens: int
    ) -> str:
        self.calls.append(SummarizerCall(provider_id, model_id, system, prompt, max_tokens))
        if self.replies:
            reply = self.replies.popleft()
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError("FakeSummarizer called with no reply queued")
        if isinstance(reply, Exception):
            raise reply
        return reply


def _fetched_source(model: AiModel) -> WindowSource:
    if not model.context_window_size:
        return WindowSource.REGISTRY
    return WindowSource.SERVER if model.trained_window else WindowSource.PROVIDER_API
