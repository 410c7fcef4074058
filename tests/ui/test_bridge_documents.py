"""ContainerBackend over the real Container and documents: a citation of a knowledge file resolves to the file on
disk (the GUI opens it), only for a conversation whose agent has that knowledge."""

from __future__ import annotations

import os
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


async def test_knowledge_is_indexed_again_at_start_and_when_a_conversation_opens_only_where_files_changed(
    bridge: ContainerBackend, container: Container, tmp_path: Path  # noqa: F811
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    for n, word in enumerate(("anchor", "buoy", "albatross")):
        (kb / f"note{n}.md").write_text(f"# Note {n}\nThe {word} log of day {n}.\n", encoding="utf-8")
    (kb / "scan.pdf").write_bytes(pdf([""]))  # no text: skipped, and not read again while it stays the same
    await bridge.add_knowledge_folder(DEFAULT_AGENT_ID, str(kb))
    session = await bridge.create_session(None, CLAUDE)
    assert await bridge.refresh_knowledge(session.id) == []  # nothing changed: nothing indexed again
    (kb / "note1.md").write_text("# Note 1\nThe tide table moved to the harbour office.\n", encoding="utf-8")
    (kb / "note2.md").unlink()
    (kb / "note3.md").write_text("# Note 3\nA new note about the lighthouse.\n", encoding="utf-8")
    lines = await bridge.refresh_knowledge(session.id)
    assert lines == [f"{kb.resolve()}: 1 added, 1 updated, 1 unchanged, 1 removed, 1 skipped"]
    found = container.documents.search("harbour lighthouse", session.id, DEFAULT_AGENT_ID)
    assert {p.document for p in found} == {"note1.md", "note3.md"}
    assert container.documents.search("albatross", session.id, DEFAULT_AGENT_ID) == []  # the deleted note left
    os.utime(kb / "note0.md", (1_000_000, 1_000_000))  # touched (mtime) while the app was closed
    (kb / "note4.md").write_text("# Note 4\nCompass deviation card.\n", encoding="utf-8")
    await bridge.startup()
    assert bridge.knowledge_refresh is not None
    assert await bridge.knowledge_refresh == [f"{kb.resolve()}: 1 added, 0 updated, 3 unchanged, 0 removed, 1 skipped"]
    assert [p.document for p in container.documents.search("compass", session.id, DEFAULT_AGENT_ID)] == ["note4.md"]
