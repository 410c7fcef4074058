"""100 turns with 20 screenshots through the real container, SDK adapter and fake Anthropic server with a 16K window:
no request overflows, and no image is resent once the conversation after it passes the protected recent window."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.container import Container
from domain.events import ChatError, CompactCompleted, Notice
from tests.aiohttp_sessions import closing_adapters
from tests.attachment_samples import png
from tests.cli.brain import SimulatedBrain
from tests.fakes import FakeApiKeyStorage
from tests.fakeservers import FakeAnthropicServer
from tests.fakeservers.brain import MediaPart, NormalizedRequest

KEY = "sk-ant-attach-100"
MODEL = "claude-vision-16k"
WINDOW = 16_000
PROTECTED = WINDOW // 4  # ContextSettings.protected_window_ratio
TURNS, EVERY = 100, 5


def _after(request: NormalizedRequest, index: int, counter: Any) -> int:
    """Tokens the server counts in the messages after message `index` (text and media)."""
    total = 0
    for message in request.messages[index + 1 :]:
        for part in message.parts:
            total += part.tokens if isinstance(part, MediaPart) else counter(getattr(part, "text", "") or "")
    return total


def test_a_hundred_turns_with_twenty_images_never_overflow_nor_resend_old_images(tmp_path: Path, monkeypatch) -> None:
    brain = SimulatedBrain()
    with FakeAnthropicServer(brain, api_key=KEY, context_windows={MODEL: WINDOW}) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        c = Container.build(tmp_path / "home", keys=FakeApiKeyStorage({"anthropic": KEY}))
        try:
            c.add_model("anthropic", MODEL, WINDOW)
            session = c.create_session(provider_id="anthropic", model_id=MODEL)
            images = [c.attachments.from_bytes(f"screen{n:02d}.png", png(1280 + 8 * n, 800)) for n in range(20)]

            async def run() -> list[object]:
                events: list[object] = []
                for turn in range(TURNS):
                    files = (images[turn // EVERY],) if turn % EVERY == 0 else ()
                    words = "look at this screen, what changed? " if files else "go on with the log, please. "
                    text = f"Turn {turn}: " + words * 14
                    async for event in c.send_message(session.id, text, provider_id="anthropic", model_id=MODEL,
                                                      attachments=files):
                        events.append(event)
                return events

            events = asyncio.run(closing_adapters(c, run()))
        finally:
            c.close()
    assert [e for e in events if isinstance(e, ChatError)] == []
    assert any(isinstance(e, CompactCompleted) and e.did_compact for e in events)
    chats = brain.chat_requests
    assert len(chats) == TURNS
    sent_in: dict[str, int] = {}
    for request in chats:
        newest_user = max(i for i, m in enumerate(request.messages) if m.role == "user" and m.text)
        for index, message in enumerate(request.messages):
            for part in message.parts:
                if not isinstance(part, MediaPart):
                    continue
                sent_in[part.sha256] = sent_in.get(part.sha256, 0) + 1
                if index != newest_user:  # an older image goes only while it is inside the recent window
                    assert _after(request, index, server.counter) <= PROTECTED, (index, len(request.messages))
    assert set(sent_in) == {i.sha256 for i in images}  # every image was sent, in its own turn at least
    assert max(sent_in.values()) <= 2 * EVERY  # and then only for a few turns, never to the end
    placeholders = sum(m.text.count("original kept — ask to see it again") for m in chats[-1].messages)
    assert placeholders >= 1  # older screenshots still named in the request, as one line each
    assert max(s.input_tokens for s in server.stats) <= WINDOW
    assert not [e for e in events if isinstance(e, Notice) and "PDF" in e.message]
