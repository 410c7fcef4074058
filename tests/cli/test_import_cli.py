"""`palimpsest import chatgpt|claude|palimpsest FILE` on a real store: progress, every message searchable, a second
import adds nothing, a malformed file is refused with where the problem is and nothing stored, and Palimpsest's own
JSON export round-trips without loss."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from tests.cli.harness import Cli
from tests.importers.samples import chatgpt_export, claude_export


def _cli(tmp_path: Path, name: str = "home") -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / name, tmp_path / "keychain" / "keys.json")


def _run(cli: Cli, *args: str):  # type: ignore[no-untyped-def]
    return cli.run(*args, subprocess_run=False)


def test_chatgpt_import_shows_progress_and_every_message_is_searchable(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    done = _run(cli, "import", "chatgpt", str(export))
    assert done.code == 0, done.err
    assert "Importing: 2/2 conversations" in done.err
    assert done.out.strip() == "Imported 2 conversations (10 messages)."
    for word, expected in (("harbour", "chatgpt-conv-harbour"), ("seven", "chatgpt-conv-harbour"),
                           ("hologram", "chatgpt-conv-hi")):
        assert expected in _run(cli, "sessions", "search", word).out
    branches = json.loads(_run(cli, "sessions", "branches", "chatgpt-conv-harbour", "--json").out)
    assert [(b["messages"], b["active"]) for b in branches] == [(4, False), (6, True)]
    context = json.loads(_run(cli, "sessions", "context", "chatgpt-conv-harbour", "--json").out)
    assert context["used"] > 0  # measured at once, like any session
    again = _run(cli, "import", "chatgpt", str(export))
    assert again.code == 0 and "0 conversations (0 messages); 2 already imported before, skipped" in again.out
    listed = json.loads(_run(cli, "sessions", "list", "--json").out)
    assert sorted(s["id"] for s in listed) == ["chatgpt-conv-harbour", "chatgpt-conv-hi"]


def test_claude_import_reads_the_export_zip(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    archive = tmp_path / "data-2025.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("users.json", "[]")
        z.writestr("conversations.json", json.dumps(claude_export()))
    done = _run(cli, "import", "claude", str(archive))
    assert done.code == 0 and "Imported 2 conversations (9 messages)" in done.out
    assert "claude-conv-report" in _run(cli, "sessions", "search", "Quarterly").out
    shown = json.loads(_run(cli, "sessions", "show", "claude-conv-report", "--json").out)
    assert [m["content"] for m in shown["messages"]][1:] == ["Revenue rose by twelve percent.", "Thanks"]


def test_a_malformed_file_is_refused_with_the_position_and_nothing_is_imported(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    export = chatgpt_export()
    export[1]["mapping"]["r"]["message"]["content"] = "not an object"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(export), encoding="utf-8")
    refused = _run(cli, "import", "chatgpt", str(bad))
    assert refused.code != 0 and "Traceback" not in refused.err
    assert "conversations[1].mapping['r'].message.content" in refused.err and "Nothing was imported" in refused.err
    broken = tmp_path / "broken.json"
    broken.write_text('[{"uuid": "c", "chat_messages": [}]', encoding="utf-8")
    syntax = _run(cli, "import", "claude", str(broken))
    assert syntax.code != 0 and "line 1, column 34" in syntax.err
    assert json.loads(_run(cli, "sessions", "list", "--json").out) == []
    assert _run(cli, "import", "claude", str(tmp_path / "missing.json")).code != 0


def _compacted_import(tmp_path: Path) -> tuple[Cli, str]:
    """A store holding the ChatGPT sample's harbour conversation with a checkpoint over its first exchange."""
    source = _cli(tmp_path)
    export = tmp_path / "c.json"
    export.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    assert _run(source, "import", "chatgpt", str(export)).code == 0
    sid = "chatgpt-conv-harbour"
    _compact_on_the_side(source, sid)
    return source, sid


def test_palimpsest_json_export_round_trips_every_branch_and_the_summary(tmp_path: Path) -> None:
    source, sid = _compacted_import(tmp_path)
    assert _run(source, "sessions", "prompt", sid, "Answer in French.").code == 0
    first = _run(source, "sessions", "export", sid, "--format", "json")
    assert first.code == 0
    saved = tmp_path / "palimpsest.json"
    saved.write_text(first.out, encoding="utf-8")
    target = _cli(tmp_path, "other-home")
    done = _run(target, "import", "palimpsest", str(saved))
    assert done.code == 0 and "Imported 1 conversation (8 messages)" in done.out, done.err
    second = _run(target, "sessions", "export", sid, "--format", "json")
    assert json.loads(second.out) == json.loads(first.out)
    assert json.loads(second.out)["compacted_summary"] == "A checkpoint of the photo question."
    assert json.loads(second.out)["reasoning"] == "high"
    assert json.loads(second.out)["system_prompt"] == "Answer in French."
    assert json.loads(second.out)["messages"][-1]["thinking_ms"] == 1_500
    assert "0 conversations" in _run(target, "import", "palimpsest", str(saved)).out


def _compact_on_the_side(cli: Cli, session_id: str) -> None:
    """A checkpoint covering the first exchange, written straight through the store as a compaction would."""
    from dataclasses import replace

    from data.storage import Storage
    from domain.chat.paths import BranchSwitcher
    from domain.models import CompactionRecord

    storage = Storage.open(cli.home)
    try:
        path = storage.messages.snapshot(session_id)
        through = path[1]
        record = CompactionRecord(session_id, path[-1].created_at, through.seq + 1, 900, 300, 40, "manual",  # type: ignore[arg-type]
                                  through_id=through.id)
        storage.sessions.apply_compaction(session_id, summary="A checkpoint of the photo question.",
                                          boundary=through.seq + 1, record=replace(record))
        BranchSwitcher(storage.unit_of_work, storage.sessions, storage.messages).switch(session_id, path[-1].id)
        storage.messages.update(replace(path[-1], reasoning_tokens=40, thinking_ms=1_500))
        session = storage.sessions.get(session_id)
        assert session is not None
        storage.sessions.update(replace(session, reasoning="high"))
    finally:
        storage.close()


def test_a_reset_context_survives_export_and_import(tmp_path: Path) -> None:
    source, sid = _compacted_import(tmp_path)
    assert _run(source, "sessions", "reset-context", sid).code == 0
    first = _run(source, "sessions", "export", sid, "--format", "json")
    assert json.loads(first.out)["compacted_summary"] is None
    assert json.loads(first.out)["compactions"][-1]["trigger"] == "reset"
    saved = tmp_path / "palimpsest.json"
    saved.write_text(first.out, encoding="utf-8")
    target = _cli(tmp_path, "other-home")
    assert _run(target, "import", "palimpsest", str(saved)).code == 0
    second = _run(target, "sessions", "export", sid, "--format", "json")
    assert json.loads(second.out)["compacted_summary"] is None  # the checkpoint before the reset does not return
    assert json.loads(second.out) == json.loads(first.out)


def test_reimporting_a_newer_export_applies_its_new_checkpoints(tmp_path: Path) -> None:
    source = _cli(tmp_path)
    export = tmp_path / "c.json"
    export.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    assert _run(source, "import", "chatgpt", str(export)).code == 0
    sid = "chatgpt-conv-harbour"
    older = tmp_path / "older.json"
    older.write_text(_run(source, "sessions", "export", sid, "--format", "json").out, encoding="utf-8")
    _compact_on_the_side(source, sid)  # the conversation was compacted after the first export
    newer_text = _run(source, "sessions", "export", sid, "--format", "json").out
    newer = tmp_path / "newer.json"
    newer.write_text(newer_text, encoding="utf-8")

    target = _cli(tmp_path, "other-home")
    assert _run(target, "import", "palimpsest", str(older)).code == 0
    again = _run(target, "import", "palimpsest", str(newer))
    assert again.code == 0, again.err
    assert "1 imported before gained new" in again.out
    got = json.loads(_run(target, "sessions", "export", sid, "--format", "json").out)
    assert got["compacted_summary"] == "A checkpoint of the photo question."
    assert got["compactions"] == json.loads(newer_text)["compactions"]
    third = _run(target, "import", "palimpsest", str(newer))  # nothing new the second time
    assert "1 already imported before, skipped" in third.out
    assert json.loads(_run(target, "sessions", "export", sid, "--format", "json").out)["compactions"] == got[
        "compactions"]
