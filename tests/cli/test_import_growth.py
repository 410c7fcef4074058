"""Importing again after a conversation grew adds what is new; a repeated id in one file is merged and said, not
dropped as "already imported"; JSON nested absurdly deep and duplicate message ids are refused in plain words; a
large export is streamed (bounded memory) with the same results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.importing import sources
from tests.cli.harness import Cli
from tests.importers.samples import T, _msg, _node, _text, chatgpt_export, claude_export


def _cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _grown() -> list[dict]:  # type: ignore[type-arg]
    """The ChatGPT sample after two more turns on its open branch (4 new messages)."""
    export = chatgpt_export()
    mapping = export[0]["mapping"]
    mapping["a2b"]["children"] = ["q3"]
    parent = "a2b"
    for n, (role, text) in enumerate((("user", "And the gulls?"), ("assistant", "Eleven gulls."),
                                      ("user", "Any cormorants?"), ("assistant", "Two cormorants."))):
        nid = f"new{n}"
        mapping[nid] = _node(nid, parent, [], _msg(nid, role, _text(text), T + 30 + n))
        parent = nid
    export[0]["current_node"] = parent
    return export


@pytest.fixture(params=["whole", "streamed"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "streamed":
        monkeypatch.setattr(sources, "STREAM_FROM", 0)
    return str(request.param)


def test_a_conversation_that_grew_gains_its_new_messages_on_reimport(tmp_path: Path, mode: str) -> None:
    cli = _cli(tmp_path)
    first = cli.run("import", "chatgpt", str(_write(tmp_path / "old.json", chatgpt_export())), subprocess_run=False)
    assert first.code == 0, first.err
    again = cli.run("import", "chatgpt", str(_write(tmp_path / "new.json", _grown())), subprocess_run=False)
    assert again.code == 0, again.err
    assert again.out.strip() == ("Imported 0 conversations (4 messages); 1 imported before gained new messages; "
                                 "1 already imported before, skipped.")
    shown = json.loads(cli.run("sessions", "show", "chatgpt-conv-harbour", "--json", subprocess_run=False).out)
    assert [m["content"] for m in shown["messages"]][-5:] == [
        "There are 7 boats.", "And the gulls?", "Eleven gulls.", "Any cormorants?", "Two cormorants."]
    third = cli.run("import", "chatgpt", str(tmp_path / "new.json"), subprocess_run=False)
    assert "(0 messages); 2 already imported before, skipped." in third.out


def test_two_conversations_with_one_id_are_merged_and_said(tmp_path: Path, mode: str) -> None:
    cli = _cli(tmp_path)
    export = chatgpt_export()
    twin = _grown()[0]
    done = cli.run("import", "chatgpt", str(_write(tmp_path / "twins.json", [*export, twin])), subprocess_run=False)
    assert done.code == 0, done.err
    lines = done.out.strip().splitlines()
    assert lines[0] == "Imported 2 conversations (14 messages)."
    assert lines[1] == ("1 id appeared more than once in the file (chatgpt-conv-harbour): each was stored as one "
                        "session holding the messages of every copy.")
    assert "already imported" not in done.out
    shown = json.loads(cli.run("sessions", "show", "chatgpt-conv-harbour", "--json", subprocess_run=False).out)
    assert shown["messages"][-1]["content"] == "Two cormorants."


def test_json_nested_200000_deep_is_refused_in_plain_words(tmp_path: Path, mode: str) -> None:
    depth = 200_000
    deep = tmp_path / "deep.json"
    deep.write_text('[{"uuid": "c", "chat_messages": [], "extra": ' + "[" * depth + "]" * depth + "}]")
    done = _cli(tmp_path).run("import", "claude", str(deep), subprocess_run=False)
    assert done.code != 0 and "RecursionError" not in done.err and "unexpected" not in done.err
    assert "JSON nested deeper than 500 levels" in done.err and "Nothing was imported" in done.err


def test_duplicate_claude_message_uuids_are_called_duplicates_not_a_cycle(tmp_path: Path, mode: str) -> None:
    export = claude_export()
    export[0]["chat_messages"][3]["uuid"] = "h1"
    done = _cli(tmp_path).run("import", "claude", str(_write(tmp_path / "dup.json", export)), subprocess_run=False)
    assert done.code != 0 and "cycle" not in done.err
    assert "conversations[0].chat_messages[3].uuid" in done.err and "'h1'" in done.err
    assert "an earlier message has too" in done.err


def test_the_code_in_an_imported_tool_call_is_found_by_search(tmp_path: Path) -> None:
    export = claude_export()
    export[0]["chat_messages"][1]["content"][2]["input"] = {"code": "def frobnicate_ledger(rows): return rows"}
    cli = _cli(tmp_path)
    done = cli.run("import", "claude", str(_write(tmp_path / "c.json", export)), subprocess_run=False)
    assert done.code == 0, done.err
    found = cli.run("sessions", "search", "frobnicate_ledger", subprocess_run=False)
    assert "claude-conv-report" in found.out, found.out + found.err
