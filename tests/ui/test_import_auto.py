"""File → Import with "Detect it": the window imports any supported export and says which kind it found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import Container
from app.gui.bridge import ContainerBackend
from tests.fakes_turn import FakeAdapterFactory
from tests.ui.window_helpers import themed_window
from ui.widgets.import_flow import KINDS

FIXTURES = Path(__file__).parents[1] / "importers" / "fixtures"


@pytest.fixture
def container() -> Iterator[Container]:
    c = Container.build(adapter_factory=FakeAdapterFactory(default_completion="A title"))
    yield c
    c.close()


def test_the_import_menu_offers_detection_and_every_source() -> None:
    assert set(KINDS.values()) == {"auto", "chatgpt", "claude", "palimpsest", "openwebui", "librechat", "chatbox",
                                   "llm", "lmstudio", "jan"}


def test_detect_imports_an_open_webui_export_and_says_what_it_found(qtbot, worker, container) -> None:
    window = themed_window(qtbot, ContainerBackend(container), worker)
    shown: list[str] = []
    window.import_flow.finished.connect(shown.append)
    window.import_flow.run("auto", str(FIXTURES / "openwebui" / "openwebui-export.json"))
    qtbot.waitUntil(lambda: bool(shown))
    assert shown == ["Found an Open WebUI export. Imported 3 conversations (8 messages)."]
    qtbot.waitUntil(lambda: any(s.id == "openwebui-tool-chat" for s in window.sessions_vm.state.sessions))
