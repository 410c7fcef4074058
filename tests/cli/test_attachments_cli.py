"""`palimpsest chat -a PATH`: a PNG, a JPEG, a PDF and a Python file reach each provider's fake in its native form,
in one session; a bad file is refused with a sentence naming it, before anything is stored or sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attachment_samples import PYTHON_SOURCE, png, write_samples
from tests.cli.harness import Cli
from tests.fakeservers import Reply, ScriptedBrain, fake_provider_servers
from tests.fakeservers.responses_server import FakeResponsesServer

KEY = "sk-attach-test-key"


def _stored_files(home: Path) -> list[Path]:
    folder = home / "attachments"
    return [p for p in folder.rglob("*") if p.is_file() and p.parent != folder] if folder.exists() else []


def test_one_session_sends_png_jpeg_pdf_and_python_to_each_provider_natively(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    brain = ScriptedBrain(default=Reply.of_text("Seen them."))
    with fake_provider_servers(brain, api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        names = ("shot.png", "photo.jpg", "report.pdf", "greet.py")
        attach = [arg for name in names for arg in ("-a", str(files[name]))]
        first = cli.run("chat", "-p", "anthropic", "--jsonl", *attach, "What are these?", subprocess_run=False)
        assert first.code == 0, first.err
        session = json.loads(first.out.splitlines()[0])["session_id"]
        for provider in ("openai", "gemini"):
            result = cli.run("chat", "-s", session, "-p", provider, *attach, f"And for {provider}?",
                             subprocess_run=False)
            assert result.code == 0, result.err
        shown = cli.run("sessions", "show", session, "--json", subprocess_run=False)
    for fake in (fakes.anthropic, fakes.openai, fakes.gemini):
        chats = [r for r in fake.requests if r.tool_names and "NO_REPLY" not in r.last_user_text]  # turns only
        assert chats, f"{type(fake).__name__} got no chat request"
        media = [(p.kind, p.media_type) for p in chats[-1].messages[-1].parts if hasattr(p, "sha256")]
        assert media == [("image", "image/png"), ("image", "image/jpeg"), ("pdf", "application/pdf")]
        sent = {p.sha256 for p in chats[-1].media}
        assert {hashlib_of(files[n]) for n in ("shot.png", "photo.jpg", "report.pdf")} <= sent
        assert PYTHON_SOURCE in chats[-1].last_user_text
    anthropic = [b["type"] for b in fakes.anthropic.requests[0].raw["messages"][0]["content"]]
    assert anthropic == ["text", "image", "text", "image", "document", "text", "text"]
    turn = next(r for r in fakes.openai.requests if r.last_user_text.endswith("And for openai?"))
    openai = [p["type"] for m in turn.raw["messages"] if m["role"] == "user" and isinstance(m["content"], list)
              for p in m["content"]]
    assert openai.count("image_url") == 4 and openai.count("file") == 2  # the first message's files too
    turn = next(r for r in fakes.gemini.requests if r.last_user_text.endswith("And for gemini?"))
    gemini = [next(iter(p)) for c in turn.raw["contents"] for p in c["parts"]]
    # the newest two messages' files natively; the first one's too unless a compaction (on the switch of model) has
    # put it behind the boundary, or it lies outside the protected window (then it goes as its placeholder line)
    assert gemini.count("inlineData") == 9 or (gemini.count("inlineData") == 6 and (
        "original kept" in turn.serialized() or "Previous conversation summary" in turn.system))
    messages = json.loads(shown.out)["messages"]
    users = [m for m in messages if m["type"] == "user"]
    assert [[a["name"] for a in m["attachments"]] for m in users] == [["shot.png", "photo.jpg", "report.pdf",
                                                                        "greet.py"]] * 3
    assert len(_stored_files(tmp_path / "home")) == 5  # four files stored once (sent 3 times) + the PDF's text


def test_openai_on_the_responses_api_gets_input_image_and_input_file_parts_the_fake_accepts(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    names = ("shot.png", "photo.jpg", "report.pdf", "greet.py")
    with FakeResponsesServer(ScriptedBrain(default=Reply.of_text("Seen them.")), api_key=KEY) as fake:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url})
        assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
        attach = [arg for name in names for arg in ("-a", str(files[name]))]
        result = cli.run("chat", "-p", "openai", *attach, "What are these?", subprocess_run=False)
    assert result.code == 0, result.err
    assert "Seen them." in result.out and fake.refusals == [] and fake.failures == []
    turn = next(r for r in fake.requests if r.tool_names)
    (item,) = turn.raw["input"]
    assert [p["type"] for p in item["content"]] == ["input_text", "input_image", "input_text", "input_image",
                                                    "input_file", "input_text", "input_text"]
    assert item["content"][4]["filename"] == "report.pdf" and item["content"][1]["detail"] == "auto"
    media = [(p.kind, p.media_type, p.sha256) for p in turn.media]  # as the fake decoded and checked them
    assert media == [("image", "image/png", hashlib_of(files["shot.png"])),
                     ("image", "image/jpeg", hashlib_of(files["photo.jpg"])),
                     ("pdf", "application/pdf", hashlib_of(files["report.pdf"]))]
    assert PYTHON_SOURCE in turn.last_user_text and turn.last_user_text.endswith("What are these?")


def hashlib_of(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("name", "data", "says"), [
    ("empty.png", b"", "empty.png is empty (0 bytes); there is nothing to attach."),
    ("broken.png", png()[:50], "broken.png is not a readable image"),
    ("broken.pdf", b"%PDF-1.7\nnot really", "broken.pdf is not a readable PDF"),
    ("tool.exe", b"MZ\x90\x00\x03\x00\x00\x00", "tool.exe is not a type Palimpsest can attach"),
])
def test_a_bad_file_is_refused_by_name_and_nothing_is_stored_or_sent(tmp_path: Path, name: str, data: bytes,
                                                                     says: str) -> None:
    good = write_samples(tmp_path / "files")["shot.png"]
    bad = tmp_path / "files" / name
    bad.write_bytes(data)
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("unused")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        result = cli.run("chat", "-p", "anthropic", "-a", str(good), "-a", str(bad), "hello", subprocess_run=False)
        listed = cli.run("sessions", "list", "--json", subprocess_run=False)
    assert result.code != 0 and says in result.err and "Traceback" not in result.err
    assert fakes.anthropic.log == [] and json.loads(listed.out) == []
    assert _stored_files(tmp_path / "home") == []  # the good file taken in first is not kept either


def test_a_vanished_file_and_a_500_mb_file_are_named(tmp_path: Path) -> None:
    huge = tmp_path / "huge.pdf"
    with huge.open("wb") as out:
        out.truncate(500 * 1000 * 1000)
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("unused")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        gone = cli.run("chat", "-p", "openai", "-a", str(tmp_path / "gone.png"), "hello", subprocess_run=False)
        big = cli.run("chat", "-p", "openai", "-a", str(huge), "hello", subprocess_run=False)
    assert "gone.png does not exist (was it moved or deleted?)" in gone.err
    assert "huge.pdf is 500.0 MB; an attachment can be at most 50.0 MB." in big.err
    assert gone.code != 0 and big.code != 0 and fakes.openai.log == []


def test_reattach_puts_an_earlier_attachment_back_into_the_next_message(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Ok.")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        first = cli.run("chat", "-p", "openai", "--jsonl", "-a", str(files["shot.png"]), "look", subprocess_run=False)
        session = json.loads(first.out.splitlines()[0])["session_id"]
        files["shot.png"].unlink()  # the original file may be gone: the stored copy is sent
        again = cli.run("chat", "-s", session, "--reattach", "shot.png", "look again", subprocess_run=False)
        unknown = cli.run("chat", "-s", session, "--reattach", "nope.png", "x", subprocess_run=False)
        no_session = cli.run("chat", "--reattach", "shot.png", "x", subprocess_run=False)
        shown = cli.run("sessions", "show", session, subprocess_run=False)
    assert again.code == 0, again.err
    assert shown.out.count("[attached: shot.png (image, 332 B, 64×48)]") == 2  # the first message and the reattach
    last = [r for r in fakes.openai.requests if r.tool_names][-1]
    newest = [p for p in last.messages[-1].parts if hasattr(p, "sha256")]
    assert [p.sha256 for p in newest] == [hashlib_of_bytes(png())]
    assert "This conversation has no attachment 'nope.png'; its attachments: shot.png." in unknown.err
    assert unknown.code != 0 and "give the session with -s ID" in no_session.err


def hashlib_of_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_export_links_attachments_from_a_folder_beside_and_json_embeds_or_references_them(tmp_path: Path) -> None:
    import base64

    files = write_samples(tmp_path / "files")
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Seen.")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        first = cli.run("chat", "-p", "gemini", "--jsonl", "-a", str(files["shot.png"]), "-a",
                        str(files["report.pdf"]), "look", subprocess_run=False)
        session = json.loads(first.out.splitlines()[0])["session_id"]
        (tmp_path / "out").mkdir()
        md = cli.run("sessions", "export", session, "-o", str(tmp_path / "out" / "trip.md"), subprocess_run=False)
        ref = cli.run("sessions", "export", session, "--format", "json", "-o", str(tmp_path / "out" / "trip.json"),
                      subprocess_run=False)
        embedded = cli.run("sessions", "export", session, "--format", "json", "--embed-attachments",
                           subprocess_run=False)
        bad = cli.run("sessions", "export", session, "--embed-attachments", subprocess_run=False)
    assert md.code == 0 and ref.code == 0, md.err + ref.err
    text = (tmp_path / "out" / "trip.md").read_text()
    assert "![shot.png](trip_attachments/shot.png)" in text
    assert "[report.pdf](trip_attachments/report.pdf) — report.pdf (pdf, " in text and "2 pages)" in text
    assert (tmp_path / "out" / "trip_attachments" / "shot.png").read_bytes() == files["shot.png"].read_bytes()
    assert (tmp_path / "out" / "trip_attachments" / "report.pdf").read_bytes() == files["report.pdf"].read_bytes()
    assert "attachments in" in md.err
    referenced = json.loads((tmp_path / "out" / "trip.json").read_text())["messages"][0]["attachments"]
    assert [(a["name"], a["path"]) for a in referenced] == [("shot.png", "trip_attachments/shot.png"),
                                                            ("report.pdf", "trip_attachments/report.pdf")]
    assert referenced[0]["sha256"] == hashlib_of(files["shot.png"]) and "data_base64" not in referenced[0]
    inline = json.loads(embedded.out)["messages"][0]["attachments"]
    assert base64.b64decode(inline[1]["data_base64"]) == files["report.pdf"].read_bytes()
    assert bad.code != 0 and "--embed-attachments is for --format json" in bad.err


def test_deleting_the_last_session_that_has_a_file_permanently_deletes_the_file(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Ok.")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        ids = []
        for _ in range(2):
            done = cli.run("chat", "-p", "anthropic", "--jsonl", "-a", str(files["shot.png"]), "look",
                           subprocess_run=False)
            ids.append(json.loads(done.out.splitlines()[0])["session_id"])
        stored = _stored_files(tmp_path / "home")
        assert len(stored) == 1  # the same bytes, stored once for both sessions
        soft = cli.run("sessions", "delete", ids[0], subprocess_run=False)
        first = cli.run("sessions", "delete", ids[0], "--permanently", subprocess_run=False)
        assert soft.code == 0 and first.code == 0 and "permanently" in first.out
        assert _stored_files(tmp_path / "home") == stored  # the other session still has it
        last = cli.run("sessions", "delete", ids[1], "--permanently", subprocess_run=False)
    assert last.code == 0 and _stored_files(tmp_path / "home") == []
