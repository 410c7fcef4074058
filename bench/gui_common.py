"""Shared helpers of the GUI benchmarks: a seeded data folder, resident memory, percentiles, result files."""

from __future__ import annotations

import asyncio
import json
import os
import random
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

from app.container import Container
from domain.events import TextDelta
from domain.models import Message, MessageType, ToolStatus

OUT = Path(__file__).resolve().parent / "out"

PARAGRAPHS = [
    "Here is how the compaction boundary works: every message keeps its sequence number, and the summary stands in "
    "for everything before the boundary. Nothing is deleted.",
    "```python\ndef fit(messages, budget):\n    kept = []\n    for m in reversed(messages):\n"
    "        budget -= cost(m)\n"
    "        if budget < 0:\n            break\n        kept.append(m)\n    return kept[::-1]\n```",
    "- estimate the request\n- prune old tool results\n- summarize when the estimate passes **85%** of the window",
    "The request failed with `429 Too Many Requests`; the client retried after 2 s and succeeded.",
]


def isolated_home() -> Path:
    """A fresh PALIMPSEST_HOME in a temp folder, with the in-process memory keyring when available."""
    home = Path(tempfile.mkdtemp(prefix="palimpsest-bench-"))
    os.environ["PALIMPSEST_HOME"] = str(home)
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "tests.memory_keyring.MemoryKeyring")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return home


def seed_session(count: int, seed: int = 7) -> str:
    """Stores a session of `count` messages (users, replies with Markdown and code, tool rounds); returns its id."""
    rng = random.Random(seed)
    container = Container.build()
    try:
        session = container.create_session(
            title=f"{count:,}-message session", provider_id="anthropic", model_id="claude-sonnet-4-5-20250929"
        )
        n = 0
        while n < count:
            sid = session.id
            container.messages.add(Message(f"u{n}", sid, MessageType.USER, f"Question {n}: " + rng.choice(PARAGRAPHS)))
            n += 1
            if n % 10 == 5 and n + 2 <= count:
                container.messages.add(Message(f"c{n}", sid, MessageType.TOOL_CALL, tool_call_id=f"k{n}",
                                               tool_name="http_request", tool_input='{"url": "https://example.com"}'))
                container.messages.add(Message(f"r{n}", sid, MessageType.TOOL_RESULT, tool_call_id=f"k{n}",
                                               tool_name="http_request", tool_output="<html>" + "x" * 2000,
                                               tool_status=ToolStatus.SUCCESS, tool_output_original_chars=2006))
                n += 2
            if n < count:
                reply = "\n\n".join(rng.sample(PARAGRAPHS, 2))
                container.messages.add(Message(f"a{n}", sid, MessageType.AI_RESPONSE, reply,
                                               model_id="claude-sonnet-4-5-20250929", input_tokens=1200,
                                               output_tokens=300))
                n += 1
        return session.id
    finally:
        container.close()


def rss_mb() -> float:
    """Resident memory of this process in MB (Linux /proc; ru_maxrss elsewhere)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def write_result(name: str, result: Mapping[str, object]) -> Path:
    """Writes bench/out/<name>.json and returns its path."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(result, indent=2))
    return path


def seeded_home(count: int) -> tuple[Path, str]:
    """A temp PALIMPSEST_HOME holding one `count`-message session, copied from a cached seed (built once)."""
    import shutil

    cache = OUT / f"gui-seed-{count}"
    marker = cache / "session_id"
    if not marker.exists():
        shutil.rmtree(cache, ignore_errors=True)
        home = isolated_home()
        session_id = seed_session(count)
        shutil.copytree(home, cache)
        marker.write_text(session_id)
    home = isolated_home()
    shutil.rmtree(home)
    shutil.copytree(cache, home)
    return home, marker.read_text().strip()


TOKENS_PER_SECOND = 200  # the pace of the benchmarks' scripted replies


def scripted_reply(repeats: int, seconds: float) -> list[str]:
    """The chunks (about a token each) of a Markdown reply streamed for `seconds` at TOKENS_PER_SECOND."""
    text = ("\n\n".join(PARAGRAPHS) + "\n\n") * repeats
    return [text[i * 4:(i + 1) * 4] for i in range(int(TOKENS_PER_SECOND * seconds))]


async def paced(chunks: list[str]) -> AsyncIterator[TextDelta]:
    """The chunks as text deltas, each at its time on the TOKENS_PER_SECOND clock."""
    start = time.perf_counter()
    for n, chunk in enumerate(chunks):
        delay = start + n / TOKENS_PER_SECOND - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        yield TextDelta(chunk)
