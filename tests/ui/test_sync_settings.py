"""Settings › Sync over the real container (SQLite under PALIMPSEST_HOME) and a folder remote: set up from the form,
sync, status, a wrong passphrase refused with nothing kept, a change synced in the background, turn off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.container import Container
from app.gui.bridge import ContainerBackend
from data.sync.cipher import create_meta
from data.sync.folder import FolderRemote
from tests.fakes_turn import FakeAdapterFactory
from ui.viewmodels.sync import SyncViewModel
from ui.widgets.settings_sync import SyncPage


@pytest.fixture
def container() -> Iterator[Container]:
    c = Container.build(adapter_factory=FakeAdapterFactory(default_completion="A title"))
    yield c
    c.close()


@pytest.fixture
def page(qtbot, worker, container: Container) -> SyncPage:
    vm = SyncViewModel(ContainerBackend(container), worker)
    widget = SyncPage(vm)
    qtbot.addWidget(widget)
    vm.load()
    qtbot.waitUntil(lambda: vm.state.loaded and not vm.state.busy)
    return widget


def _idle(qtbot, page: SyncPage) -> None:
    qtbot.waitUntil(lambda: not page.vm.state.busy and page.vm.state.loaded)


def test_set_up_from_the_form_syncs_and_shows_the_status_then_turn_off(
        qtbot, page: SyncPage, container: Container, tmp_path: Path) -> None:
    assert "Sync is off" in page.status.text() and not page.sync_button.isEnabled()
    container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-5-20250929")
    page.location.setText(str(tmp_path / "remote"))
    page.setup_button.click()
    qtbot.waitUntil(lambda: (page.vm.state.message or "").startswith("Received"))
    _idle(qtbot, page)
    assert "Syncing through folder" in page.status.text() and "Waiting to be sent: 0 changes" in page.status.text()
    assert (tmp_path / "remote" / "palimpsest-sync.json").exists()
    assert FolderRemote(tmp_path / "remote").list("devices/")
    page.off_button.click()
    qtbot.waitUntil(lambda: page.vm.state.message == "Sync is off.")
    assert page.vm.state.info is None and "Sync is off" in page.status.text()


def test_a_wrong_passphrase_is_refused_and_nothing_is_kept(qtbot, page: SyncPage, tmp_path: Path) -> None:
    create_meta(FolderRemote(tmp_path / "remote"), "the right passphrase")
    page.location.setText(str(tmp_path / "remote"))
    page.passphrase.setText("a wrong one")
    page.setup_button.click()
    qtbot.waitUntil(lambda: page.vm.state.error is not None)
    assert "passphrase does not match" in page.result.text()
    page.vm.load()
    _idle(qtbot, page)
    assert page.vm.state.info is None


def test_a_change_here_is_sent_a_little_later_in_the_background(
        qtbot, page: SyncPage, container: Container, tmp_path: Path) -> None:
    page.location.setText(str(tmp_path / "remote"))
    page.setup_button.click()
    qtbot.waitUntil(lambda: (page.vm.state.message or "").startswith("Received"))
    _idle(qtbot, page)
    before = len(FolderRemote(tmp_path / "remote").list("devices/"))
    session = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-5-20250929")
    container.rename_session(session.id, "Made after the first sync")
    page.vm.changed(delay_ms=10)
    qtbot.waitUntil(lambda: len(FolderRemote(tmp_path / "remote").list("devices/")) == before + 1)
    _idle(qtbot, page)
    assert page.vm.state.info is not None and page.vm.state.info.waiting == 0


def test_sync_page_screenshot(qtbot, worker, container: Container, tmp_path: Path, artifacts: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from tests.ui.test_screenshots import saved
    from ui.theme import LIGHT, palette_for, stylesheet_for

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setStyle("Fusion")
    app.setPalette(palette_for(LIGHT))
    app.setStyleSheet(stylesheet_for(LIGHT))
    vm = SyncViewModel(ContainerBackend(container), worker)
    page = SyncPage(vm)
    qtbot.addWidget(page)
    page.resize(860, 640)
    page.show()
    container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-5-20250929")
    page.location.setText(str(tmp_path / "Sync" / "palimpsest"))
    page.encrypt.setChecked(True)
    page.passphrase.setText("correct horse battery staple")
    page.setup_button.click()
    qtbot.waitUntil(lambda: (vm.state.message or "").startswith("Received"))
    qtbot.waitUntil(lambda: not vm.state.busy)
    assert "end-to-end encrypted" in page.status.text()
    saved(page, artifacts / "settings_sync.png")


def test_the_indicator_shows_syncing_then_synced_and_hides_when_off(
        qtbot, page: SyncPage, tmp_path: Path) -> None:
    from ui.widgets.sync_indicator import SyncIndicator

    indicator = SyncIndicator()
    qtbot.addWidget(indicator)
    seen: list[str] = []
    page.vm.state_changed.connect(lambda state: (indicator.show_state(state), seen.append(indicator.text())))
    page.location.setText(str(tmp_path / "remote"))
    page.setup_button.click()
    qtbot.waitUntil(lambda: (page.vm.state.message or "").startswith("Received"))
    _idle(qtbot, page)
    assert "⟳ Syncing…" in seen and indicator.text().startswith("✓ Synced ") and not indicator.isHidden()
    with qtbot.waitSignal(indicator.clicked):
        qtbot.mouseClick(indicator, Qt.MouseButton.LeftButton)
    page.off_button.click()
    qtbot.waitUntil(lambda: page.vm.state.message == "Sync is off.")
    assert indicator.isHidden()


def test_the_window_syncs_on_start_and_shows_it_under_the_sidebar(
        qtbot, worker, container: Container, tmp_path: Path) -> None:
    from app.sync_service import SetupRequest, set_up
    from ui.theme import LIGHT
    from ui.widgets.main_window import MainWindow

    set_up(container.storage, SetupRequest("folder", str(tmp_path / "remote")))
    window = MainWindow(ContainerBackend(container), worker, LIGHT)
    qtbot.addWidget(window)
    window.show()
    indicator = window.sync_indicator
    assert indicator is not None
    qtbot.waitUntil(lambda: indicator.text().startswith("✓ Synced "), timeout=15_000)
    assert FolderRemote(tmp_path / "remote").list("devices/")
    qtbot.mouseClick(indicator, Qt.MouseButton.LeftButton)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.tabs.currentWidget() is dialog.sync


def test_a_sync_that_brings_a_message_shows_it_in_the_open_conversation(
        qtbot, worker, container: Container, tmp_path: Path) -> None:
    from app.sync_service import SetupRequest, set_up
    from domain.models import Message, MessageType
    from tests.sync.replicas import Store
    from ui.theme import LIGHT
    from ui.widgets.main_window import MainWindow

    remote = FolderRemote(tmp_path / "remote")
    set_up(container.storage, SetupRequest("folder", str(remote.root)))
    session = container.create_session(provider_id="anthropic", model_id="claude-sonnet-4-5-20250929")
    container.storage.messages.add(Message("here-1", session.id, MessageType.USER, "Written on this device"))
    window = MainWindow(ContainerBackend(container), worker, LIGHT)
    qtbot.addWidget(window)
    window.show()
    indicator = window.sync_indicator
    assert indicator is not None and window.sync_vm is not None
    qtbot.waitUntil(lambda: indicator.text().startswith("✓ Synced "), timeout=15_000)
    window.chat_vm.open(session.id)
    qtbot.waitUntil(lambda: [m.id for m in window.chat_vm.rows.messages] == ["here-1"])

    other = Store(tmp_path / "other")
    try:
        other.sync(remote)
        other.storage.messages.add(Message("there-1", session.id, MessageType.AI_RESPONSE, "Written on the other",
                                           parent_id="here-1"))
        other.sync(remote)
    finally:
        other.close()
    window.sync_vm.sync_now()
    qtbot.waitUntil(lambda: [m.id for m in window.chat_vm.rows.messages] == ["here-1", "there-1"], timeout=15_000)
