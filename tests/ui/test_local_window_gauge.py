"""A local server that runs the model with less context than it was trained for: the gauge carries a warning mark,
its tooltip and its panel say why and how to raise it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from data.providers.rules import PROVIDER_RULES
from domain.chat.server_window import short_window_warning
from domain.events import ContextBreakdown, ContextStatus
from domain.models import AiModel, Provider, ProviderApi, ProviderType, WindowSource
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.widgets.context_gauge import gauge_text, gauge_tooltip

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WARNING = short_window_warning("llama3.1:8b", 4_096, 131_072, PROVIDER_RULES.context_length_hint(131_072))
STATUS = ContextStatus(3_010, 4_096, ContextBreakdown(600, 0, 1_900, 0, 510), provider_id="ollama",
                       model_id="llama3.1:8b", window_source="server", threshold=3_481, warnings=(WARNING,))


def test_the_gauge_marks_a_short_server_window_and_its_tooltip_says_how_to_raise_it() -> None:
    assert gauge_text(STATUS) == "3.0K / 4.1K  (73.5%)  ⚠"
    assert gauge_text(ContextStatus(3_010, 4_096)) == "3.0K / 4.1K  (73.5%)"
    tip = gauge_tooltip(STATUS, None, 0)
    assert "4,096-token context" in tip and "num_ctx" in tip and "OLLAMA_CONTEXT_LENGTH" in tip


def test_the_panel_shows_the_server_window_warning(qtbot, backend, worker) -> None:
    backend.context = STATUS
    backend.providers["ollama"] = Provider("ollama", "Ollama", ProviderType.OPENAI_COMPATIBLE,
                                           "http://localhost:11434/v1")
    backend.models.append(AiModel("llama3.1:8b", "llama3.1:8b", "ollama", True, context_window_size=4_096,
                                  window_source=WindowSource.SERVER, trained_window=131_072))
    demo_sessions(backend)
    session = backend.add_session("Tide tables on the laptop", ["Which berth for the 7:10 ferry?",
                                                                "Berth 7, two minutes before the hour."])
    backend.sessions[session.id] = replace(session, current_provider_id="ollama", current_model_id="llama3.1:8b")
    sid = session.id
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    gauge = window.header.gauge
    qtbot.waitUntil(lambda: gauge._status is not None and bool(gauge._status.warnings))
    qtbot.mouseClick(gauge, Qt.MouseButton.LeftButton, pos=QPoint(gauge.width() // 2, gauge.height() // 2))
    panel = gauge.panel
    assert panel is not None
    qtbot.waitUntil(panel.isVisible)
    shown = "\n".join(panel.texts())
    assert "4,096-token context" in shown and "num_ctx" in shown
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(SCREENSHOTS / "local_window_gauge.png"))
    assert panel.grab().save(str(SCREENSHOTS / "local_window_panel.png"))


def test_settings_choose_the_api_an_openai_provider_speaks(qtbot, backend, worker) -> None:
    window = themed_window(qtbot, backend, worker)
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: window.settings_vm.state.context is not None and not window.settings_vm.state.busy)
    cards = dialog.providers._cards
    assert cards["anthropic"].api is None  # Anthropic speaks only its own API
    combo = cards["openai"].api
    assert combo is not None and combo.currentText() == "Auto"
    combo.setCurrentIndex(combo.findData("chat-completions"))
    combo.activated.emit(combo.currentIndex())
    qtbot.waitUntil(lambda: backend.providers["openai"].api is ProviderApi.CHAT_COMPLETIONS)
    qtbot.waitUntil(lambda: not window.settings_vm.state.busy)
    assert cards["openai"].api is not None and cards["openai"].api.currentText() == "Chat Completions"
    dialog.providers.ensureWidgetVisible(cards["openai"])
    settle(qtbot, worker)
    assert dialog.grab().save(str(SCREENSHOTS / "settings_provider_api.png"))
