"""should_flush: the silent memory turn runs once per cycle, just before the compaction threshold."""

from __future__ import annotations

from domain.context.flush import FLUSH_PROMPT, SILENT_TOKEN, flush_threshold, is_silent_reply, should_flush
from domain.settings import ContextSettings
from tests.fakes import make_session

WINDOW = 100_000
SETTINGS = ContextSettings()


def test_flush_threshold_is_compaction_threshold_minus_the_margin() -> None:
    assert flush_threshold(WINDOW, SETTINGS) == 85_000 - 4_000


def test_flush_fires_before_compaction_would() -> None:
    session = make_session()
    estimate = 82_000  # above the flush line, below the 85,000 compaction threshold
    assert should_flush(estimate, WINDOW, SETTINGS, session)
    assert estimate <= WINDOW * SETTINGS.compact_threshold_ratio


def test_flush_does_not_fire_below_its_threshold() -> None:
    assert not should_flush(80_000, WINDOW, SETTINGS, make_session())


def test_flush_fires_only_once_per_compaction_cycle() -> None:
    assert not should_flush(90_000, WINDOW, SETTINGS, make_session(flushed_in_compaction_cycle=True))


def test_flush_never_fires_without_a_known_window_or_when_disabled() -> None:
    assert not should_flush(90_000, None, SETTINGS, make_session())
    assert not should_flush(90_000, WINDOW, ContextSettings(memory_flush_enabled=False), make_session())


def test_flush_prompt_names_save_memory_and_the_silent_token() -> None:
    assert "save_memory" in FLUSH_PROMPT and SILENT_TOKEN in FLUSH_PROMPT


def test_silent_reply_is_recognized() -> None:
    assert is_silent_reply(f"  {SILENT_TOKEN}\n")
    assert is_silent_reply("")
    assert not is_silent_reply("Here is what I saved: ...")
