"""Settings › Knowledge over the real container: a folder added for an agent is indexed off the GUI thread and listed
with its files and passages; Index again reads only what changed; Remove forgets it."""

from __future__ import annotations

from pathlib import Path

from app.container import Container
from app.gui.bridge import ContainerBackend
from tests.fakes import FakeApiKeyStorage
from ui.viewmodels.settings import SettingsViewModel
from ui.widgets.settings_dialog import SettingsDialog


def test_a_folder_is_added_indexed_listed_indexed_again_and_removed(qtbot, worker, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "pumps.md").write_text("# Pumps\nThe bilge pump is BP-7731.\n## Valves\nV-17 takes 42 Nm.\n", "utf-8")
    (kb / "hull.txt").write_text("Paint the hull blue.\n", "utf-8")
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({}))
    try:
        vm = SettingsViewModel(ContainerBackend(container), worker)
        dialog = SettingsDialog(vm)
        qtbot.addWidget(dialog)
        vm.load()
        page = dialog.knowledge
        assert page is not None and dialog.tabs.tabText(dialog.tabs.indexOf(page)) == "Knowledge"
        qtbot.waitUntil(lambda: page.agent.count() > 0 and page._vm.state.agent_id is not None)
        assert page.agent.currentText() == "General assistant"
        page.choose_folder = lambda: str(kb)
        page.add.click()
        qtbot.waitUntil(lambda: page.folders.count() == 1 and not page._vm.state.indexing)
        assert page.folders.item(0).text() == f"{kb.resolve()} — 2 files, 3 passages"
        assert page.status.text().endswith("2 added, 0 updated, 0 unchanged, 0 removed")
        assert container.documents.has_knowledge(page._vm.state.agent_id)
        page.reindex.click()
        qtbot.waitUntil(lambda: "2 unchanged" in page.status.text())
        page.folders.setCurrentRow(0)
        page.remove.click()
        qtbot.waitUntil(lambda: page.folders.count() == 0 and not page._vm.state.indexing)
        assert not container.documents.has_knowledge(page._vm.state.agent_id)
        qtbot.waitUntil(lambda: worker.calls_in_flight == 0)
    finally:
        container.close()
