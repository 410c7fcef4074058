"""A stored session with every part the gauge counts: a compaction summary, tool results old enough to be pruned,
reasoning the next request sends back, an image and a PDF, the built-in tools, and a learned calibration ratio."""

from __future__ import annotations

from dataclasses import replace

from app.container import Container
from domain.context.estimator import attachment_calibration_key, calibration_key
from domain.models import Message, MessageType, ReasoningBlock, ReasoningKind, ToolStatus
from tests.attachment_samples import pdf, png

PROVIDER, MODEL = "anthropic", "claude-sonnet-4-6"
RATIO = 0.73  # a learned calibration ratio: the provider counts fewer tokens than the estimate
MEDIA_RATIO = 1.28  # and the rule-priced attachments' own ratio (the rule counts fewer than the provider)


def rich_session(container: Container, *, rounds: int = 9, page_chars: int = 9_000) -> str:
    """Creates the session and returns its id; its stored messages end with a tool result (a tool loop goes on)."""
    session = container.create_session(provider_id=PROVIDER, model_id=MODEL)
    sid = session.id
    add = container.storage.messages.add
    add(Message("old-q", sid, MessageType.USER, "What did we decide about the harbour schedule? " * 20))
    old = add(Message("old-a", sid, MessageType.AI_RESPONSE, "We moved the 7:10 ferry to berth 7. " * 20))
    stored = container.storage.sessions.get(sid)
    assert stored is not None
    container.storage.sessions.update(replace(stored, compacted_summary="FACT: the 7:10 ferry uses berth 7. " * 30,
                                              compact_boundary=old.seq))
    files = (container.attachments.from_bytes("chart.png", png(640, 480)),
             container.attachments.from_bytes("timetable.pdf", pdf(["Ferry timetable", "Winter sailings"])))
    add(Message("q", sid, MessageType.USER, "Read the berth logs and compare them with these files.",
                attachments=files))
    thought = ReasoningBlock(ReasoningKind.THINKING, "The logs are long; read them one by one. " * 12,
                             signature="sig", provider_id=PROVIDER, model_id=MODEL)
    for i in range(rounds):
        page = f"berth log {i}: " + "\n".join(f"{i:02d}:{m:02d} vessel {m % 7} moored at berth {m % 9}"
                                                for m in range(page_chars // 38))
        add(Message(f"call{i}", sid, MessageType.TOOL_CALL, tool_call_id=f"t{i}", tool_name="http_request",
                    tool_input=f'{{"url": "http://logs.example/berth/{i}"}}', reasoning=(thought,),
                    provider_id=PROVIDER, model_id=MODEL))
        add(Message(f"result{i}", sid, MessageType.TOOL_RESULT, tool_call_id=f"t{i}", tool_name="http_request",
                    tool_output=page, tool_status=ToolStatus.SUCCESS))
    key = calibration_key(PROVIDER, MODEL)
    container.storage.calibration.put(key, RATIO)
    container.storage.calibration.put(attachment_calibration_key(key), MEDIA_RATIO)
    return sid
