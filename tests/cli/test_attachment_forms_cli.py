"""`palimpsest chat -a` with files the target does not take as they are: a PDF to an Ollama model the registry does
not know goes as its extracted text (Ollama refuses a `file` part), a GIF to Gemini as a PNG, an animated GIF to
OpenAI as its first frame; each time the user is told once, and not again on the next turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.attachment_samples import gif, write_samples
from tests.cli.harness import Cli
from tests.fakeservers import Reply, ScriptedBrain, fake_provider_servers
from tests.fakeservers.ollama_server import FakeOllamaServer

KEY = "sk-forms-test-key"


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _notices(events: list[dict[str, Any]]) -> list[str]:
    return [e["message"] for e in events if e["type"] == "notice"]


def test_a_pdf_to_an_ollama_model_not_known_to_read_pdfs_goes_as_its_text_and_the_user_is_told_once(tmp_path: Path):
    report = write_samples(tmp_path / "files")["report.pdf"]
    with FakeOllamaServer(ScriptedBrain(default=Reply.of_text("It says revenue rose."))) as server:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json")
        assert cli.run("providers", "add", "Ollama", "--type", "openai_compatible", "--base-url", server.base_url,
                       subprocess_run=False).code == 0
        first = cli.run("chat", "-p", "ollama", "-m", "llava:7b", "--jsonl", "-a", str(report), "What does it say?",
                        subprocess_run=False)
        events = _events(first.out)
        session = events[0]["session_id"]
        second = cli.run("chat", "-s", session, "--jsonl", "And on page two?", subprocess_run=False)
    assert first.code == 0 and second.code == 0, first.err + second.err
    assert not [e for e in events + _events(second.out) if e["type"] == "error"]
    (notice,) = _notices(events)
    assert "llava:7b is not known to read PDFs" in notice and "report.pdf" in notice
    assert _notices(_events(second.out)) == []  # told once, not on every turn
    turns = [r for r in server.requests if "What does it say?" in r.serialized()]
    assert turns and all(r.media == [] for r in turns)  # no file part: Ollama would answer "invalid message format"
    text = turns[-1].serialized()
    assert "Text extracted from report.pdf" in text and "Quarterly revenue rose 12%" in text


def test_a_gif_to_gemini_goes_as_png_and_an_animated_one_to_openai_as_its_first_frame_each_said_once(tmp_path: Path):
    (tmp_path / "files").mkdir()
    spinner = tmp_path / "files" / "spinner.gif"
    spinner.write_bytes(gif(60, 40, frames=3))
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("A spinner.")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        runs = {}
        for provider in ("gemini", "openai"):
            first = cli.run("chat", "-p", provider, "--jsonl", "-a", str(spinner), "What moves?", subprocess_run=False)
            session = _events(first.out)[0]["session_id"]
            again = cli.run("chat", "-s", session, "--jsonl", "And its colour?", subprocess_run=False)
            runs[provider] = (first, again)
    for provider, (first, again) in runs.items():
        assert first.code == 0 and again.code == 0, first.err + again.err
        assert not [e for e in _events(first.out) + _events(again.out) if e["type"] == "error"], provider
        assert _notices(_events(again.out)) == []
    (gemini,) = _notices(_events(runs["gemini"][0].out))
    assert "does not take GIF images: only the first frame of spinner.gif is sent, as a PNG" in gemini
    (openai,) = _notices(_events(runs["openai"][0].out))
    assert "does not take animated GIF images: only the first frame of spinner.gif is sent" in openai
    for fake in (fakes.gemini, fakes.openai):
        turns = [r for r in fake.requests if "And its colour?" in r.serialized()]
        assert turns and [m.media_type for m in turns[-1].media] == ["image/png"]  # resent converted on later turns


def test_a_model_only_its_family_describes_still_gets_pdfs_natively_and_no_reasoning_claim(tmp_path: Path) -> None:
    report = write_samples(tmp_path / "files")["report.pdf"]
    with fake_provider_servers(ScriptedBrain(default=Reply.of_text("Read it.")), api_key=KEY) as fakes:
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", fakes.env(KEY))
        shown = {}
        for provider, model in (("gemini", "gemini-9-flash"), ("openai", "gpt-5.9"), ("anthropic", "claude-nova-7")):
            assert cli.run("models", "add", provider, model, "--context-window", "200000",
                           subprocess_run=False).code == 0
            first = cli.run("chat", "-p", provider, "-m", model, "--jsonl", "-a", str(report), "What is it?",
                            subprocess_run=False)
            assert first.code == 0, first.err
            assert _notices(_events(first.out)) == []  # the registry's family says it reads PDFs: sent as a file
            session = _events(first.out)[0]["session_id"]
            shown[provider] = cli.run("sessions", "reasoning", session, subprocess_run=False).out
    for fake in (fakes.gemini, fakes.openai, fakes.anthropic):
        turn = next(r for r in fake.requests if "What is it?" in r.serialized())
        assert [m.media_type for m in turn.media] == ["application/pdf"]
    assert "offers" not in shown["gemini"] and "offers" not in shown["openai"]  # thinking not known: nothing claimed
