"""Settings › Knowledge over the real container: a folder added for an agent is indexed off the GUI thread and listed
with its files and passages; Index again reads only what changed; Remove forgets it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from app.container import Container
from app.gui.bridge import ContainerBackend
from tests.fakes import FakeApiKeyStorage
from ui.knowledge_backend import KnowledgeFolder, SemanticChoice
from ui.viewmodels.knowledge import KnowledgeViewModel
from ui.viewmodels.settings import SettingsViewModel
from ui.widgets.settings_dialog import SettingsDialog
from ui.widgets.settings_knowledge import KnowledgePage


def test_a_folder_is_added_indexed_listed_indexed_again_and_removed(qtbot, worker, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "pumps.md").write_text("# Pumps\nThe bilge pump is BP-7731.\n## Valves\nV-17 takes 42 Nm.\n", "utf-8")
    (kb / "hull.txt").write_text("Paint the hull blue.\n", "utf-8")
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({"openai": "sk-openai-test"}))
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
        assert not page.semantic.isChecked()  # off by default: nothing leaves the machine
        page.embedding.setText("openai/text-embedding-3-large")
        page.semantic.setChecked(True)
        qtbot.waitUntil(lambda: page._vm.state.semantic.on)
        agent = container.agents.get(page._vm.state.agent_id)
        assert agent is not None and agent.context_overrides["semantic_search"] is True
        assert agent.context_overrides["embedding_model"] == "openai/text-embedding-3-large"
        embedder = container.embedders.for_agent(agent.id)
        assert embedder is not None and embedder.key == "openai/text-embedding-3-large"
        page.semantic.setChecked(False)
        qtbot.waitUntil(lambda: not page._vm.state.semantic.on)
        assert container.embedders.for_agent(agent.id) is None
        qtbot.waitUntil(lambda: worker.calls_in_flight == 0)
    finally:
        container.close()


class SlowKnowledge:
    """A knowledge backend whose indexing says one progress line from its own thread, then waits to be released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.folders: list[KnowledgeFolder] = []

    async def knowledge_folders(self, agent_id: str) -> list[KnowledgeFolder]:
        return list(self.folders)

    async def add_knowledge_folder(self, agent_id: str, path: str,
                                   progress: Callable[[str], None] | None = None) -> str:
        def index() -> str:
            assert progress is not None
            progress(f"{path}: 200 files looked at (200 added, 0 updated)")
            assert self.release.wait(10)
            self.folders.append(KnowledgeFolder(path, 250, 900))
            return f"{path}: 250 added, 0 updated, 0 unchanged, 0 removed"

        return await asyncio.to_thread(index)

    async def remove_knowledge_folder(self, agent_id: str, path: str) -> None:
        raise NotImplementedError

    async def reindex_knowledge(self, agent_id: str, progress: Callable[[str], None] | None = None) -> list[str]:
        raise NotImplementedError

    async def semantic_search(self, agent_id: str) -> SemanticChoice:
        return SemanticChoice()

    async def set_semantic_search(self, agent_id: str, on: bool, model: str) -> SemanticChoice:
        raise NotImplementedError


def test_indexing_progress_from_its_thread_shows_in_the_status_until_the_report(qtbot, worker) -> None:
    backend = SlowKnowledge()
    vm = KnowledgeViewModel(backend, worker)
    page = KnowledgePage(vm)
    qtbot.addWidget(page)
    vm.show_agent("a1")
    vm.add_folder("/data/manuals")
    qtbot.waitUntil(lambda: page.status.text() == "/data/manuals: 200 files looked at (200 added, 0 updated)")
    assert not page.add.isEnabled()  # one indexing at a time
    backend.release.set()
    qtbot.waitUntil(lambda: page.folders.count() == 1 and page.add.isEnabled())
    assert page.status.text() == "/data/manuals: 250 added, 0 updated, 0 unchanged, 0 removed"
    assert page.folders.item(0).text() == "/data/manuals — 250 files, 900 passages"
