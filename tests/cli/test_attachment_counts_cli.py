"""A 36-page PDF and a photo, sent through the real SDKs to fakes that bill them as their providers do (each page's
image and text; Gemini 258 a page; images by their tile rules) and serve the count endpoints: the app counts each
attachment once (kept across processes), the gauge shows the provider's figure, no cut is guessed, the window stays
the registry's, and every turn sends the files once while no flush or summary request carries them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from data.registry import load_registry
from tests.attachment_samples import jpeg, pdf
from tests.cli.harness import Cli, unretired
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, Reply, ScriptedBrain
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.server import FakeProviderServer

KEY = "sk-count-test-key"
PAGE = ("Section {n}. The installer copies the base system, then configures the boot loader, the network and "
        "the package sources; each step logs to the console and can be repeated. ") * 12


def _files(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True)
    manual, photo = folder / "manual.pdf", folder / "photo.jpg"
    manual.write_bytes(pdf([PAGE.format(n=n) for n in range(1, 37)]))
    photo.write_bytes(jpeg(1600, 1200))
    return manual, photo


def _anthropic(fake: FakeProviderServer) -> tuple[str, dict[str, str]]:
    return "anthropic", {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": KEY}


def _gemini(fake: FakeProviderServer) -> tuple[str, dict[str, str]]:
    return "gemini", {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GEMINI_API_KEY": KEY}


def _openai(fake: FakeProviderServer) -> tuple[str, dict[str, str]]:
    return "openai", {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": KEY}


Setup = Callable[[FakeProviderServer], tuple[str, dict[str, str]]]
# flavour: the fake, how the app reaches it, the model, whether the files' size (at a 30% threshold) makes the turn
# run the memory flush and compact (not in a 1M window), and how many count requests the first turn makes (the PDF,
# the photo, the question alone; Chat Completions has no count endpoint: the published rules price the files there)
CASES: dict[str, tuple[type[FakeProviderServer], Setup, str, bool, int]] = {
    "anthropic": (FakeAnthropicServer, _anthropic, "claude-haiku-4-5-20251001", True, 3),
    "gemini": (FakeGeminiServer, _gemini, "gemini-2.5-flash", False, 3),
    "openai-responses": (FakeResponsesServer, _openai, "gpt-4o", True, 3),
    "openai-chat-completions": (FakeOpenAIServer, _openai, "gpt-4o", True, 0),
}


def _media_per_request(fake: FakeProviderServer) -> list[int]:
    return [len(r.media) for r in fake.requests]


@pytest.mark.parametrize("case", list(CASES))
def test_a_36_page_pdf_and_a_photo_are_counted_once_and_change_no_window(tmp_path: Path, case: str) -> None:
    manual, photo = _files(tmp_path / "files")
    server_type, setup, model, compacts, counts = CASES[case]
    with server_type(ScriptedBrain(default=Reply.of_text("It is an installation manual.")), api_key=KEY) as fake:
        provider, env = setup(fake)
        cli = Cli(tmp_path / "home", tmp_path / "keys.json", env)
        if case == "openai-responses":
            assert cli.run("providers", "set", "openai", "--api", "responses", subprocess_run=False).code == 0
        assert cli.run("agents", "set", "general-assistant", "threshold=30%", subprocess_run=False).code == 0
        first = cli.run("chat", "-p", provider, "-m", model, "--jsonl", "-a", str(manual), "-a", str(photo),
                        "What does this manual cover?")
        assert first.code == 0, first.err
        events = [json.loads(line) for line in first.out.splitlines()]
        session = events[0]["session_id"]
        counted_after_first = len(fake.counted)
        for question in ("Which step configures the network?", "And the package sources?"):
            turn = cli.run("chat", "-s", session, "--jsonl", question)
            assert turn.code == 0, turn.err
            events += [json.loads(line) for line in turn.out.splitlines()]
        context = json.loads(cli.run("sessions", "context", session, "--json").out)
    # counted once: the PDF, the photo and the question alone, in the first process; never again
    assert counted_after_first == counts and len(fake.counted) == counts
    assert not [e for e in unretired(events) if e["type"] in ("warning", "error")], events
    registry = load_registry()
    assert context["window"] == registry.guess_window(context["model"]) and context["window_source"] == "registry"
    # the gauge's attachment row is the provider's own figure: what it bills for the files, plus the heading line
    # each is sent with (the count endpoint counts the form sent); where the provider has no count endpoint, its
    # published rules come within 10% (the 3,000 tokens a page guessed before were 2.3 times the bill)
    billed = sum(part.tokens for part in fake.requests[0].media)
    shown = context["breakdown"]["attachments"]
    assert billed <= shown <= billed + 100 if counts else abs(shown - billed) <= 0.1 * billed
    turns = [r for r in fake.requests if r.tool_names and "NO_REPLY" not in r.last_user_text]
    others = [r for r in fake.requests if r not in turns]
    assert len(turns) == 3 and all(len(r.media) == 2 for r in turns)  # both files, once, every turn
    assert others and all(not r.media for r in others), _media_per_request(fake)  # no flush, summary or title does
    if compacts:  # the flush and the summarizer ran, and neither was sent the files
        assert {"memory_flush", "compact_completed"} <= {e["type"] for e in events}
