"""`chat` reads an agent's changed knowledge files again before the question goes: a file edited (size and mtime) is
searched as it is now, a deleted one leaves the index, and nothing is said or read when nothing changed."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.harness import Cli
from tests.cli.test_semantic_search import AGENT, SearchOnceBrain
from tests.fakeservers import fake_provider_servers

KEY = "sk-knowledge-refresh"
MODEL = "claude-refresh-32k"


def test_chat_indexes_the_agents_changed_knowledge_files_again_first(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    tides, crew = kb / "tides.md", kb / "crew.md"
    tides.write_text("# Tides\nHigh water at 06:10 today.\n", encoding="utf-8")
    crew.write_text("# Crew\nThe bosun keeps the watch list.\n", encoding="utf-8")
    os.utime(tides, (1_700_000_000, 1_700_000_000))
    with fake_provider_servers(SearchOnceBrain(), api_key=KEY, context_windows={MODEL: 32_000}) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        assert cli.run("knowledge", "add", AGENT, str(kb), subprocess_run=False).code == 0
        assert cli.run("models", "add", "anthropic", MODEL, "--context-window", "32000", subprocess_run=False).code == 0

        def ask(words: str) -> tuple[str, str]:
            chat = cli.run("chat", "-p", "anthropic", "-m", MODEL, f"Tell me ABOUT {words}", subprocess_run=False)
            assert chat.code == 0, chat.err
            return chat.out, chat.err

        first, quiet = ask("high water")
        tides.write_text("# Tides\nHigh water at 07:45 today.\n", encoding="utf-8")  # the same size: mtime tells
        os.utime(tides, (1_700_000_600, 1_700_000_600))
        edited, said = ask("high water")
        crew.unlink()
        gone, said_gone = ask("bosun watch")
    assert "06:10" in first and f"{kb.resolve()}:" not in quiet  # nothing changed: nothing read, nothing said
    assert f"{kb.resolve()}: 0 added, 1 updated, 1 unchanged, 0 removed" in said
    assert "07:45" in edited and "06:10" not in edited
    assert f"{kb.resolve()}: 0 added, 0 updated, 1 unchanged, 1 removed" in said_gone
    assert "FOUND No passages match" in gone
