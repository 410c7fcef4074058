"""`palimpsest import auto PATH` tells every supported source apart (and says which it found); each source's own
command imports it; a ChatGPT .zip's files become attachments through the CLI."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from tests.cli.harness import Cli

FIXTURES = Path(__file__).parents[1] / "importers" / "fixtures"
CASES = [
    ("chatgpt/conversations.json", "chatgpt", "a ChatGPT export", 1),
    ("openwebui/openwebui-export.json", "openwebui", "an Open WebUI export", 3),
    ("librechat/librechat-export.json", "librechat", "a LibreChat export", 1),
    ("chatbox/chatbox-exported-data-2025-6-1.json", "chatbox", "a Chatbox backup", 3),
    ("chatbox/chatbox-exported-data-2023-5-2.json", "chatbox", "a Chatbox backup", 1),
    ("chatbox/chatbox-exported-data-2026-11-27.json", "chatbox", "a Chatbox backup", 2),  # by Chatbox's own code
    ("lmstudio", "lmstudio", "LM Studio conversations", 2),
    ("lmstudio/conversations/Qwen/1712000000000.conversation.json", "lmstudio", "LM Studio conversations", 1),
    ("jan", "jan", "Jan threads", 4),
    ("jan-own", "jan", "Jan threads", 2),  # written the way Jan writes them today (fixtures/jan-own/SOURCE.md)
    ("llm/logs-0.36.db", "llm", "an llm logs database", 6),
    ("llm/logs-0.27.1.db", "llm", "an llm logs database", 6),
]


def _cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(parents=True, exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


@pytest.mark.parametrize(("path", "kind", "name", "count"), CASES)
def test_auto_says_which_source_it_found_and_imports_it_like_its_own_command(
        tmp_path: Path, path: str, kind: str, name: str, count: int) -> None:
    auto = _cli(tmp_path / "a").run("import", "auto", str(FIXTURES / path), subprocess_run=False)
    assert auto.code == 0, auto.err
    lines = auto.out.strip().splitlines()
    assert lines[0] == f"Found {name} ({kind})."
    assert lines[1].startswith(f"Imported {count} conversation")
    named = _cli(tmp_path / "n").run("import", kind, str(FIXTURES / path), subprocess_run=False)
    assert named.code == 0, named.err
    assert named.out.strip() == lines[1]


def test_auto_refuses_a_file_no_reader_knows_and_names_the_kinds(tmp_path: Path) -> None:
    other = tmp_path / "notes.json"
    other.write_text(json.dumps({"todo": ["milk"]}), encoding="utf-8")
    done = _cli(tmp_path).run("import", "auto", str(other), subprocess_run=False)
    assert done.code != 0
    assert "Cannot tell which app wrote notes.json" in done.err and "a Chatbox backup" in done.err


def test_a_chatgpt_zip_imports_its_images_as_attachments(tmp_path: Path) -> None:
    image = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 90, 160)).save(image, format="PNG")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(FIXTURES / "chatgpt" / "conversations.json", "conversations.json")
        z.writestr("file-Harbour01-harbour.png", image.getvalue())
    cli = _cli(tmp_path)
    done = cli.run("import", "auto", str(archive), subprocess_run=False)
    assert done.code == 0, done.err
    assert done.out.startswith("Found a ChatGPT export (chatgpt).")
    shown = cli.run("sessions", "show", "chatgpt-6790c2a1-3f4e-8000-9d2b-1a2b3c4d5e6f", subprocess_run=False)
    assert shown.code == 0, shown.err
    assert "harbour.png" in shown.out and "crew-notes.pdf" in shown.out


@pytest.mark.parametrize(("path", "kind", "count"), [("openwebui/openwebui-export.json", "openwebui", 3),
                                                     ("chatgpt/chatgpt-modern-export.json", "chatgpt", 2)])
def test_a_large_export_is_streamed_with_the_same_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         path: str, kind: str, count: int) -> None:
    from data.importing import sources
    from domain.importers.detect import NAMES

    monkeypatch.setattr(sources, "STREAM_FROM", 0)
    done = _cli(tmp_path).run("import", "auto", str(FIXTURES / path), subprocess_run=False)
    assert done.code == 0, done.err
    assert done.out.splitlines() == [f"Found {NAMES[kind]} ({kind}).", done.out.splitlines()[1]]
    assert done.out.splitlines()[1].startswith(f"Imported {count} conversations")
