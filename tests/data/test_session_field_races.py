"""Each use case that changes one session field, raced against a compaction made by another connection to the same
SQLite file (a thread of its own): the compaction is never reverted and the field still changes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from data.storage import Storage
from domain.models import CompactionRecord, Session, SessionId
from domain.services.adapters import ProviderAdapters
from domain.usecases.archive_session import ArchiveSessionUseCase
from domain.usecases.edit_summary import EditSummaryUseCase
from domain.usecases.generate_title import GenerateTitleUseCase
from domain.usecases.rename_session import RenameSessionUseCase
from domain.usecases.set_session_prompt import SetSessionPromptUseCase
from domain.usecases.set_session_reasoning import SetSessionReasoningUseCase
from tests.fakes import FakeApiKeyStorage, FakeClock
from tests.fakes_turn import FakeAdapterFactory

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
FRESH, FRESH_BOUNDARY = "Summary written by the racing compaction.", 8


def _record(boundary: int) -> CompactionRecord:
    return CompactionRecord(session_id="s1", created_at=T0, boundary=boundary, tokens_before=90_000,
                            tokens_after=20_000, summary_tokens=800, trigger="auto")


class RacingSessions:
    """The store's sessions, except that just before the caller's write (after every read it made) another connection
    (another thread: the GUI compacting) compacts the session: the window in which a read-modify-write reverts it.
    Inside a unit of work the compaction has to wait for the caller's transaction, so it is joined afterwards."""

    def __init__(self, storage: Storage, other: Storage) -> None:
        self._storage, self._other = storage, other
        self.racer: threading.Thread | None = None
        self.failure: BaseException | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._storage.sessions, name)

    def update(self, session: Session) -> Session:
        self._race(session.id)
        return self._storage.sessions.update(session)

    def update_fields(self, session_id: SessionId, **fields: Any) -> Session:
        self._race(session_id)
        return self._storage.sessions.update_fields(session_id, **fields)

    def _race(self, session_id: SessionId) -> None:
        if self.racer is None:
            self.racer = threading.Thread(target=self._compact, args=(session_id,))
            self.racer.start()
            if not self._storage.unit_of_work.writing:  # nothing holds it back: it lands before the caller writes
                self.racer.join()

    def _compact(self, session_id: SessionId) -> None:
        try:
            self._other.sessions.apply_compaction(session_id, summary=FRESH, boundary=FRESH_BOUNDARY,
                                                  record=_record(FRESH_BOUNDARY))
        except BaseException as exc:  # reported by finish()
            self.failure = exc

    def finish(self) -> None:
        assert self.racer is not None, "the use case never wrote the session"
        self.racer.join()
        assert self.failure is None, self.failure


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Storage, Storage]]:
    """Two opened stores (two engines, two connections) on one database file, with session s1."""
    first = Storage.open(tmp_path)
    second = Storage.open(tmp_path)
    first.sessions.create(Session(id="s1", title="Chat", current_agent_id="general-assistant", created_at=T0,
                                  updated_at=T0, reasoning="low", system_prompt="Be brief."))
    yield first, second
    first.close()
    second.close()


def _title_of(sessions: Any) -> Session:
    factory = FakeAdapterFactory()
    factory.adapter("anthropic").completions.append("Baking Sourdough Bread")
    title = GenerateTitleUseCase(sessions, ProviderAdapters(_providers(sessions), FakeApiKeyStorage(), factory))
    asyncio.run(title("s1", provider_id="anthropic", model_id="claude-haiku", user_text="Bread?", reply_text="Yes."))
    found = sessions.get("s1")
    assert found is not None
    return found


def _providers(sessions: RacingSessions) -> Any:
    return sessions._storage.providers  # the same store's providers


RACES: dict[str, tuple[Callable[[RacingSessions], Session], Callable[[Session], bool]]] = {
    "rename": (lambda s: RenameSessionUseCase(s, FakeClock())("s1", "Renamed"), lambda x: x.title == "Renamed"),
    "reasoning": (lambda s: SetSessionReasoningUseCase(s, FakeClock())("s1", "high"), lambda x: x.reasoning == "high"),
    "system prompt": (lambda s: SetSessionPromptUseCase(s, FakeClock())("s1", "Be thorough."),
                      lambda x: x.system_prompt == "Be thorough."),
    "archive": (lambda s: ArchiveSessionUseCase(s)("s1"), lambda x: x.is_active is False),
    "title generation": (_title_of, lambda x: x.title == "Baking Sourdough Bread"),
}


@pytest.mark.parametrize("name", list(RACES))
def test_a_one_field_change_racing_a_compaction_keeps_the_compaction(
    stores: tuple[Storage, Storage], name: str
) -> None:
    storage, other = stores
    racing = RacingSessions(storage, other)
    change, changed = RACES[name]
    change(racing)
    racing.finish()
    after = storage.sessions.get("s1")
    assert after is not None and changed(after), after
    assert (after.compacted_summary, after.compact_boundary, after.compaction_count) == (FRESH, FRESH_BOUNDARY, 1)
    assert (after.reasoning if name != "reasoning" else "low") == "low"
    assert (after.system_prompt if name != "system prompt" else "Be brief.") == "Be brief."


def test_an_edited_summary_racing_a_compaction_leaves_summary_boundary_and_log_agreeing(
    stores: tuple[Storage, Storage],
) -> None:
    storage, other = stores
    storage.sessions.apply_compaction("s1", summary="First summary.", boundary=3, record=_record(3))
    racing = RacingSessions(storage, other)
    EditSummaryUseCase(racing, FakeClock(), store=storage.unit_of_work)("s1", "Corrected by hand.")
    racing.finish()
    after = storage.sessions.get("s1")
    assert after is not None and (after.compact_boundary, after.compaction_count) == (FRESH_BOUNDARY, 2)
    log = storage.sessions.compactions("s1")
    in_force = [r for r in log if r.boundary == after.compact_boundary][-1]
    assert after.compacted_summary == in_force.summary
    assert "Corrected by hand." in [r.summary for r in log]  # the edit landed (before the compaction, by the lock)
