"""The gauge in the window, on a real store: its panel's rows add up to the panel's total, and the header's percent,
the panel's and `sessions context --json`'s are one figure, for a session with everything the gauge counts; and the
panel's "Use the automatic window" undoes a window guessed from usage."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget

from app.cli.sessions_cmd import run_sessions
from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.events import ContextStatus
from domain.models import WindowSource
from tests.fakes_turn import FakeAdapterFactory
from tests.rich_session import MODEL, PROVIDER, rich_session
from tests.ui.window_helpers import open_session, themed_window
from ui.widgets.context_gauge import gauge_text
from ui.widgets.context_panel import AUTOMATIC_WINDOW, panel_rows

BREAKDOWN = ("System prompt", "Summary", "Messages", "Attachments", "Tool results", "Tool definitions",
             "Reasoning sent back")


def percent_shown(text: str) -> str:
    found = re.search(r"\(([\d.]+)%\)", text)
    assert found, text
    return found.group(1)


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    c = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory(default_completion="A title"))
    c.set_api_key(PROVIDER, "sk-ant-test")
    yield c
    c.close()


def test_header_and_panel_show_one_percent_where_rounding_twice_would_split_them() -> None:
    status = ContextStatus(254, 10_000)  # 2.54%: rounded once 3%, rounded via 2.5 to 2%
    total = dict(panel_rows(status))["Total"]
    assert percent_shown(gauge_text(status)) == percent_shown(total) == f"{status.percent:g}"


def test_panel_rows_add_up_and_header_panel_and_cli_agree(qtbot, worker, container: Container) -> None:
    sid = rich_session(container)
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    gauge = window.header.gauge
    qtbot.waitUntil(lambda: gauge._status is not None)
    panel = gauge.open_panel()
    qtbot.waitUntil(panel.isVisible)
    shown = panel.texts()
    values = {name: shown[shown.index(name) + 1] for name in (*BREAKDOWN, "Total")}
    total = int(values["Total"].split(" of ")[0].replace(",", ""))
    assert sum(int(values[name].replace(",", "")) for name in BREAKDOWN) == total
    assert all(int(values[name].replace(",", "")) > 0 for name in BREAKDOWN)

    out = io.StringIO()
    code = asyncio.run(run_sessions(container, argparse.Namespace(action="context", id=sid, json=True), out,
                                    io.StringIO()))
    assert code == 0
    cli = json.loads(out.getvalue())
    assert cli["used"] == total
    assert percent_shown(gauge_text(gauge._status)) == percent_shown(values["Total"]) == f"{cli['percent']:g}"


def automatic_buttons(panel: QWidget) -> list[QPushButton]:
    return [b for b in panel.findChildren(QPushButton) if b.text() == AUTOMATIC_WINDOW and not b.isHidden()]


def test_the_panel_undoes_a_window_guessed_from_usage(qtbot, worker, container: Container) -> None:
    sid = container.create_session(provider_id=PROVIDER, model_id=MODEL).id
    registry = container.models.resolve(PROVIDER, MODEL).context_window_size
    window = themed_window(qtbot, ContainerBackend(container), worker)
    open_session(qtbot, window, sid)
    gauge = window.header.gauge
    qtbot.waitUntil(lambda: gauge._status is not None and gauge._status.window == registry)
    assert not automatic_buttons(gauge.open_panel())  # the registry's window: nothing to undo
    gauge.panel.hide()

    container.models.record_limit(PROVIDER, MODEL, 4_140, source=WindowSource.GUESSED)  # the usage guess fired
    window.chat_vm.refresh_context()
    qtbot.waitUntil(lambda: gauge._status is not None and gauge._status.window == 4_140)
    panel = gauge.open_panel()
    qtbot.waitUntil(panel.isVisible)
    assert "guessed from the server's reported prompt sizes" in "\n".join(panel.texts())
    [button] = automatic_buttons(panel)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: gauge._status is not None and gauge._status.window == registry)
    assert gauge._status.window_source == "registry"
    stored = container.models.get(PROVIDER, MODEL)
    assert stored is not None and stored.window_source is WindowSource.REGISTRY
    qtbot.waitUntil(lambda: not automatic_buttons(panel))
