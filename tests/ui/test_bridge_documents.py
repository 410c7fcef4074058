"""ContainerBackend over the real Container and documents: a citation of a knowledge file resolves to the file on
disk (the GUI opens it), only for a conversation whose agent has that knowledge."""

from __future__ import annotations

from pathlib import Path

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
