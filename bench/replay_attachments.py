"""Attachment replay: 100 turns with a 20-page PDF and a dozen screenshots, through the real container, SDK adapter
and the fake provider (which bills images by the provider's formula and enforces the window).

Run from the repository root: `.venv/bin/python -m bench.replay_attachments` (`--quick` for a short smoke run,
`--provider openai|gemini` for another flavour, `--heavy` for a 36-page PDF of dense pages and a 200K window). The fakes
bill like their providers (each PDF page's image plus its text; Gemini 258 a page; images by their tile rules) and
Anthropic's and Gemini's serve their count endpoints; the OpenAI flavour is Chat Completions, which has none (the app
prices by the published rule there). Writes bench/results/replay_attachments[_heavy]_PROVIDER.md.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

from app.container import Container
from bench.replay_script import _prose
from bench.replay_strategies import BenchKeys
from domain.attachment import Attachment
from domain.events import ChatError, ChatEvent, CompactCompleted, Notice
from domain.models import AiModel, CapabilitySource, ModelCapabilities, ModelSource, WindowSource
from tests.attachment_samples import pdf
from tests.cli.brain import SimulatedBrain
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, o200k_counter
from tests.fakeservers.brain import NormalizedRequest
from tests.fakeservers.media_rules import MediaPart

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-bench-attachments"
SERVERS = {"anthropic": (FakeAnthropicServer, "ANTHROPIC_BASE_URL"), "openai": (FakeOpenAIServer, "OPENAI_BASE_URL"),
           "gemini": (FakeGeminiServer, "GOOGLE_GEMINI_BASE_URL")}
MODEL = "bench-vision-64k"


@dataclass(frozen=True)
class Options:
    """What to run."""

    turns: int = 100
    window: int = 64_000
    screenshots: int = 12
    pdf_pages: int = 8
    provider: str = "anthropic"
    out: Path | None = None
    dense: bool = False  # pages of about 2,000 characters (a manual), not one line each


@dataclass
class Report:
    """What the run measured."""

    turns: int
    window: int
    protected: int
    errors: list[str] = field(default_factory=list)
    compactions: int = 0
    requests: int = 0
    largest_input: int = 0
    input_tokens: int = 0
    media_tokens: int = 0
    naive_media_tokens: int = 0  # had every attachment been resent on every later turn
    sent_turns: dict[str, list[int]] = field(default_factory=dict)  # attachment name -> turns it went natively
    deepest: dict[str, int] = field(default_factory=dict)  # attachment name -> most tokens after it when sent
    outside: int = 0  # attachments sent natively from deeper than the protected window (older than the newest)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # warnings the user was shown
    window_before: tuple[int | None, str] = (None, "")  # the model's window and its source, before and after
    window_after: tuple[int | None, str] = (None, "")
    counted: int = 0  # requests to the provider's count endpoint
    bytes_per_turn: list[int] = field(default_factory=list)  # attachment bytes each turn's request carried


def screenshot(index: int, width: int = 1920, height: int = 1080) -> bytes:
    """A synthetic screenshot: a title bar, a sidebar and text-like stripes (PNG)."""
    from PIL import Image, ImageDraw

    rng = random.Random(index)
    image = Image.new("RGB", (width, height), (246, 247, 249))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 48), fill=(60 + index * 9 % 120, 90, 160))
    draw.rectangle((0, 48, 280, height), fill=(232, 234, 240))
    for row in range(60, height - 20, 26):
        draw.rectangle((300, row, 300 + rng.randint(200, width - 340), row + 12), fill=(120, 124, 134))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


DENSE_PAGE = ("Section {n}. The sync job reads the queue, retries each failed upload with exponential backoff, logs "
              "the attempt and its status code, and marks the item done only after the server confirms it. ") * 10


def plan_files(turns: int, screenshots: int, pages: int, dense: bool = False) -> dict[int, tuple[str, bytes]]:
    """Which turn attaches which file: the PDF on the first turn, screenshots spread over the rest."""
    texts = [DENSE_PAGE.format(n=n) if dense else f"Section {n}: the sync job retries with backoff, page {n}"
             for n in range(pages)]
    plan = {0: ("spec.pdf", pdf(texts))}
    step = max(1, (turns - 4) // max(1, screenshots))
    for n in range(screenshots):
        plan[2 + n * step] = (f"screen{n + 1:02d}.png", screenshot(n))
    return plan


def measure(report: Report, requests: Sequence[NormalizedRequest], attached: dict[str, tuple[int, str]],
            counter: Callable[[str], int]) -> None:
    """Which attachments each chat request (one per turn) carried natively and how deep in it each one lay (tokens
    of the messages after it, as the server counts them); `attached`: sha256 -> (turn attached, name)."""
    prices = {part.sha256: part.tokens for request in requests for part in request.media}
    for turn, request in enumerate(requests):
        report.bytes_per_turn.append(sum(part.size for part in request.media))
        newest = max((i for i, m in enumerate(request.messages) if m.role == "user" and m.text), default=-1)
        after = 0
        for index in range(len(request.messages) - 1, -1, -1):
            message = request.messages[index]
            for part in message.parts:
                if not isinstance(part, MediaPart):
                    continue
                name = attached.get(part.sha256, (0, part.sha256[:8]))[1]
                report.sent_turns.setdefault(name, []).append(turn)
                report.media_tokens += part.tokens
                if index != newest:
                    report.deepest[name] = max(report.deepest.get(name, 0), after)
                    report.outside += after > report.protected
            after += sum(p.tokens if isinstance(p, MediaPart) else counter(getattr(p, "text", "") or "")
                         for p in message.parts)
        report.naive_media_tokens += sum(prices.get(sha, 0) for sha, (t, _) in attached.items() if t <= turn)


async def drive(c: Container, session_id: str, opts: Options, files: dict[int, Attachment],
                report: Report) -> None:
    """Runs the turns; every event is kept for the report."""
    rng = random.Random(11)
    for turn in range(opts.turns):
        attached = (files[turn],) if turn in files else ()
        ask = "What does this show, and what changed?" if attached else "Go on with the review."
        text = f"Turn {turn}. {ask} " + _prose(rng, 1_800)
        events: list[ChatEvent] = []
        async for event in c.send_message(session_id, text, provider_id=opts.provider, model_id=MODEL,
                                          attachments=attached):
            events.append(event)
        report.errors += [f"turn {turn}: {e.message}" for e in events if isinstance(e, ChatError)]
        report.warnings += [f"turn {turn}: {e.message}" for e in events if isinstance(e, Notice) and e.warning]
        report.compactions += sum(1 for e in events if isinstance(e, CompactCompleted) and e.did_compact)


def run(opts: Options) -> Report:
    """The whole run in a temporary data folder."""
    server_class, variable = SERVERS[opts.provider]
    brain = SimulatedBrain()
    report = Report(opts.turns, opts.window, opts.window // 4)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home, server_class(brain, api_key=KEY, counter=o200k_counter,
                                                             context_windows={MODEL: opts.window}) as server:
        os.environ[variable] = server.base_url
        c = Container.build(Path(home), keys=BenchKeys({opts.provider: KEY}))
        try:
            # a model that reads images and PDFs (one the registry does not know gets a PDF's text), its window as
            # the provider lists it: not the user's, so a guess from usage could change it (the run checks it never
            # does)
            c.models.upsert(AiModel(
                MODEL, MODEL, opts.provider, source=ModelSource.FETCHED, context_window_size=opts.window,
                window_source=WindowSource.PROVIDER_API, capabilities=ModelCapabilities(vision=True, pdf_input=True,
                sources=(("vision", CapabilitySource.USER), ("pdf_input", CapabilitySource.USER)))))
            session = c.create_session(provider_id=opts.provider, model_id=MODEL)
            planned = plan_files(opts.turns, opts.screenshots, opts.pdf_pages, opts.dense)
            files = {turn: c.attachments.from_bytes(name, data) for turn, (name, data) in planned.items()}
            sent_as = {_sent_digest(c, a, opts.provider): (turn, a.name) for turn, a in files.items()}
            report.window_before = _window(c, opts.provider)
            asyncio.run(drive(c, session.id, opts, files, report))
            report.window_after = _window(c, opts.provider)
        finally:
            c.close()
            os.environ.pop(variable, None)
        chats = brain.chat_requests
        measure(report, chats, sent_as, server.counter)
        report.requests = len(server.stats)
        report.counted = len(server.counted)
        report.largest_input = max((s.input_tokens for s in server.stats), default=0)
        report.input_tokens = sum(s.input_tokens for s in server.stats)
    report.seconds = time.perf_counter() - started
    return report


def _window(c: Container, provider: str) -> tuple[int | None, str]:
    """The bench model's window and where it comes from, as stored now."""
    model = c.models.resolve(provider, MODEL)
    return model.context_window_size, model.window_source.value


def _sent_digest(c: Container, attachment: Attachment, provider: str) -> str:
    """The sha256 of the bytes the provider receives for an attachment (an image may be downscaled first)."""
    import hashlib

    from data.providers.rules import LIMITS
    from domain.attachment import AttachmentKind

    if attachment.kind is not AttachmentKind.IMAGE:
        return attachment.sha256
    return hashlib.sha256(c.media.image(attachment, LIMITS[provider])[0]).hexdigest()


def _pages(opts: Options) -> str:
    return "dense pages" if opts.dense else "a line a page"


def _median(values: Sequence[int]) -> int:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0


def markdown(opts: Options, r: Report) -> str:
    """The report as Markdown."""
    native = sum(len(v) for v in r.sent_turns.values())
    lines = [
        "# Attachment replay", "",
        f"`python -m bench.replay_attachments --provider {opts.provider}`: {r.turns} turns, a "
        f"{opts.pdf_pages}-page PDF ({_pages(opts)}) on the first turn and {opts.screenshots} screenshots "
        f"(1920×1080 PNG) spread over the rest, through the real container, SDK adapter and the fake {opts.provider} "
        "server "
        f"(o200k_base for text, the provider's formula for images and pages), window {r.window:,} tokens, "
        f"protected recent window {r.protected:,} tokens.", "",
        "| measure | result |", "|---|--:|",
        f"| errors the user saw | {len(r.errors)} |",
        f"| warnings the user saw | {len(r.warnings)} |",
        f"| model window before → after | {r.window_before[0]:,} ({r.window_before[1]}) → "
        f"{r.window_after[0]:,} ({r.window_after[1]}) |",
        f"| requests to the count endpoint | {r.counted} |",
        f"| attachment bytes sent per turn: median / max / total | {_median(r.bytes_per_turn):,} / "
        f"{max(r.bytes_per_turn, default=0):,} / {sum(r.bytes_per_turn):,} |",
        f"| requests (chat, summaries, titles, memory flush) | {r.requests} |",
        f"| compactions | {r.compactions} |",
        f"| largest request / window | {r.largest_input:,} / {r.window:,} ({100 * r.largest_input / r.window:.0f}%) |",
        f"| attachments sent natively, in total (attachment × request) | {native} |",
        f"| ... of them from deeper than the protected window (not in the newest message) | {r.outside} |",
        f"| attachment tokens sent | {r.media_tokens:,} |",
        f"| attachment tokens had every attachment been resent on every later turn | {r.naive_media_tokens:,} |",
        f"| input tokens of all requests | {r.input_tokens:,} |",
        f"| wall time | {r.seconds:.1f} s |", "",
        "| attachment | attached at turn | sent natively at turns | deepest when resent (tokens after it) |",
        "|---|--:|---|--:|",
    ]
    for name, turns in r.sent_turns.items():
        lines.append(f"| {name} | {turns[0]} | {', '.join(map(str, turns))} | {r.deepest.get(name, 0):,} |")
    lines += ["", "Errors: " + ("; ".join(r.errors) if r.errors else "none") + ".",
              "Warnings: " + ("; ".join(r.warnings) if r.warnings else "none") + "."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the benchmark and writes the report."""
    p = argparse.ArgumentParser(prog="python -m bench.replay_attachments", description=__doc__)
    p.add_argument("--provider", choices=list(SERVERS), default="anthropic")
    p.add_argument("--turns", type=int, default=100)
    p.add_argument("--quick", action="store_true", help="24 turns, 4 screenshots, a 16K window")
    p.add_argument("--heavy", action="store_true", help="a 36-page PDF of dense pages, 12 screenshots, a 200K window")
    p.add_argument("--out", type=Path, default=None, help="where replay_attachments.md goes (default bench/results)")
    a = p.parse_args(argv)
    if a.quick:
        opts = Options(turns=24, window=16_000, screenshots=4, pdf_pages=2, provider=a.provider, out=a.out)
    elif a.heavy:
        opts = Options(turns=a.turns, window=200_000, screenshots=12, pdf_pages=36, provider=a.provider, out=a.out,
                       dense=True)
    else:
        opts = Options(turns=a.turns, provider=a.provider, out=a.out)
    report = run(opts)
    text = markdown(opts, report)
    out = opts.out or (REPO / "bench" / "results")
    out.mkdir(parents=True, exist_ok=True)
    name = "replay_attachments" + ("_heavy" if opts.dense else "")
    name += "" if a.quick or opts.provider == "anthropic" else f"_{opts.provider}"
    (out / f"{name}.md").write_text(text, encoding="utf-8")
    print(text)
    changed = report.window_before != report.window_after
    return 1 if report.errors or report.outside or report.warnings or changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
