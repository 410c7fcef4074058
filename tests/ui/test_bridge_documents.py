"""ContainerBackend over the real Container and documents: a citation of a knowledge file resolves to the file on
disk (the GUI opens it), only for a conversation whose agent has that knowledge."""

from __future__ import annotations

from pathlib import Path

from app.container import Container
from app.gui.bridge import ContainerBackend
from data.db.agents import DEFAULT_AGENT_ID
from tests.attachment_samples import pdf
from tests.fakes_turn import FakeAdapterFactory
from tests.ui.test_bridge import CLAUDE, bridge, container, factory  # noqa: F401  (fixtures)


async def test_a_knowledge_files_citation_resolves_to_its_file_for_its_agents_conversations(
    bridge: ContainerBackend, factory: FakeAdapterFactory, tmp_path: Path  # noqa: F811
) -> None:
    kb = tmp_path / "kb"
    (kb / "guides").mkdir(parents=True)
    (kb / "manual.pdf").write_bytes(pdf(["Page one text.", "Page two text."]))
    (kb / "guides" / "hull.md").write_text("# Hull care\nPaint it blue.\n", encoding="utf-8")
    await bridge.add_knowledge_folder(DEFAULT_AGENT_ID, str(kb))
    session = await bridge.create_session(None, CLAUDE)
    assert await bridge.cited_document(session.id, "manual.pdf") == str((kb / "manual.pdf").resolve())
    assert await bridge.cited_document(session.id, "guides/hull.md") == str((kb / "guides" / "hull.md").resolve())
    assert await bridge.cited_document(session.id, "other.pdf") is None
    (kb / "manual.pdf").unlink()  # gone from disk: nothing to open
    assert await bridge.cited_document(session.id, "manual.pdf") is None


async def test_an_attached_document_is_indexed_when_attached_not_when_its_card_is_first_sent(
    bridge: ContainerBackend, container: Container, tmp_path: Path  # noqa: F811
) -> None:
    manual = tmp_path / "manual.pdf"
    manual.write_bytes(pdf([f"Page {n}. " + "Routine maintenance notes, inspect the hoses. " * 20
                            for n in range(1, 41)]))
    preview = await bridge.take_in(str(manual))
    assert container.documents.attachment(preview.attachment.sha256) is None
    await bridge.index_document(preview.attachment)
    indexed = container.documents.attachment(preview.attachment.sha256)
    assert indexed is not None and indexed.pages == 40
