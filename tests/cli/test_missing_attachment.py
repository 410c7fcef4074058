"""A stored attachment file deleted from the data folder does not break its conversation: later turns send a
placeholder in its place (one notice), --reattach of it says what to do, and every export form still works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attachment_samples import write_samples
from tests.cli.harness import Cli
from tests.fakeservers import Reply, ScriptedBrain, fake_provider_servers

KEY = "sk-missing-attachment-key"


def _delete_stored(home: Path, data: bytes) -> None:
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    (home / "attachments" / digest[:2] / digest).unlink()


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_turns_after_a_file_is_deleted_send_a_placeholder_with_one_notice(tmp_path: Path, provider: str) -> None:
    files = write_samples(tmp_path / "files")
    home = tmp_path / "home"
    brain = ScriptedBrain(default=Reply.of_text("Noted."))
    with fake_provider_servers(brain, api_key=KEY) as fakes:
        cli = Cli(home, tmp_path / "keys.json", fakes.env(KEY))
        first = cli.run("chat", "-p", provider, "--jsonl", "-a", str(files["shot.png"]), "-a",
                        str(files["greet.py"]), "Look", subprocess_run=False)
        assert first.code == 0, first.err
        session = json.loads(first.out.splitlines()[0])["session_id"]
        _delete_stored(home, files["shot.png"].read_bytes())
        _delete_stored(home, files["greet.py"].read_bytes())
        second = cli.run("chat", "-s", session, "And now?")  # a process of its own: its one notice
        assert second.code == 0, second.err
        assert second.err.count("shot.png is missing from the data folder") == 1
        third = cli.run("chat", "-s", session, "Once more", subprocess_run=False)
        assert third.code == 0, third.err
        reattached = cli.run("chat", "-s", session, "--reattach", "shot.png", "Again?", subprocess_run=False)
    assert reattached.code != 0 and "The file of shot.png is missing from the data folder" in reattached.err
    assert "attach it again with -a PATH" in reattached.err
    fake = {"anthropic": fakes.anthropic, "openai": fakes.openai, "gemini": fakes.gemini}[provider]
    last = [r for r in fake.requests if "Once more" in r.last_user_text][-1]
    assert "[Attachment shot.png" in last.serialized() and "its file is missing from the data folder" in \
        last.serialized()
    assert "[Attachment greet.py" in last.serialized()


def test_every_export_form_works_with_a_missing_file(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    home = tmp_path / "home"
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Noted.")), api_key=KEY) as fakes:
        cli = Cli(home, tmp_path / "keys.json", fakes.env(KEY))
        first = cli.run("chat", "-p", "anthropic", "--jsonl", "-a", str(files["shot.png"]), "-a",
                        str(files["photo.jpg"]), "Look", subprocess_run=False)
    session = json.loads(first.out.splitlines()[0])["session_id"]
    _delete_stored(home, files["shot.png"].read_bytes())
    for name, extra in (("a.md", ["--format", "markdown"]), ("b.json", ["--format", "json"]),
                        ("c.json", ["--format", "json", "--embed-attachments"])):
        done = cli.run("sessions", "export", session, *extra, "-o", str(tmp_path / name), subprocess_run=False)
        assert done.code == 0, done.err
        assert "1 attachment file(s) are missing from the data folder and are only named in the export: shot.png" \
            in done.err
        assert "shot.png" in (tmp_path / name).read_text() and "photo.jpg" in (tmp_path / name).read_text()
    assert (tmp_path / "a_attachments" / "photo.jpg").exists()
    assert not (tmp_path / "a_attachments" / "shot.png").exists()


def test_a_missing_file_is_priced_as_the_placeholder_that_is_sent(tmp_path: Path) -> None:
    files = write_samples(tmp_path / "files")
    home = tmp_path / "home"
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Noted.")), api_key=KEY) as fakes:
        cli = Cli(home, tmp_path / "keys.json", fakes.env(KEY))
        first = cli.run("chat", "-p", "anthropic", "--jsonl", "-a", str(files["report.pdf"]), "Read it",
                        subprocess_run=False)
        assert first.code == 0, first.err
        session = json.loads(first.out.splitlines()[0])["session_id"]
        before = json.loads(cli.run("sessions", "context", session, "--json", subprocess_run=False).out)
        _delete_stored(home, files["report.pdf"].read_bytes())
        after = json.loads(cli.run("sessions", "context", session, "--json", subprocess_run=False).out)
    assert before["breakdown"]["attachments"] > 1_000  # two pages at the provider's rule
    assert 0 < after["breakdown"]["attachments"] < 100  # what the one line sent in its place costs, not the pages
    assert after["used"] < before["used"] - 1_000
