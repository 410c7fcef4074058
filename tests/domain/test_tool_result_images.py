"""Images a tool returned, planned like attachments: a model without vision gets their description line, and those
deeper than the protected window become placeholders (the newest tool results go natively)."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind, placeholder
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import TokenEstimator
from domain.models import Message, MessageType, ModelCapabilities, ProviderType, ToolStatus

SHOT = Attachment("a" * 64, "screenshot-image-1.png", "image/png", AttachmentKind.IMAGE, 90_000, width=1280,
                  height=800)


def _result(i: int, *files: Attachment) -> Message:
    return Message(f"t{i}", "s1", MessageType.TOOL_RESULT, seq=i, tool_call_id=f"c{i}", tool_name="web__screenshot",
                   tool_output="A screenshot.", tool_status=ToolStatus.SUCCESS, attachments=files)


def _turn(i: int, words: int) -> list[Message]:
    return [Message(f"u{i}", "s1", MessageType.USER, "look", seq=i),
            Message(f"c{i}", "s1", MessageType.TOOL_CALL, seq=i, tool_call_id=f"c{i}", tool_name="web__screenshot"),
            _result(i, replace(SHOT, sha256=f"{i:064x}")),
            Message(f"r{i}", "s1", MessageType.AI_RESPONSE, "word " * words, seq=i)]


def test_a_tools_image_for_a_model_without_vision_goes_as_its_description() -> None:
    target = AttachmentTarget(ProviderType.OPENAI, "text-only", ModelCapabilities(vision=False))
    (planned,) = plan_attachments([_result(1, SHOT)], target=target, protected_tokens=None,
                                  estimator=TokenEstimator(rules=PROVIDER_RULES))
    [shot] = planned.attachments
    assert shot.omitted and placeholder(shot) == ("[Attachment screenshot-image-1.png (image, 90.0 KB, 1280×800): "
                                                  "not sent: text-only takes no images]")


def test_tool_images_deeper_than_the_protected_window_become_placeholders() -> None:
    history = _turn(1, 3000) + _turn(2, 3000) + _turn(3, 10)
    planned = plan_attachments(history, target=AttachmentTarget(ProviderType.ANTHROPIC, "m", None),
                               protected_tokens=2000, estimator=TokenEstimator(rules=PROVIDER_RULES))
    states = [m.attachments[0].omitted for m in planned if m.attachments]
    assert states == [True, True, False]  # the newest screenshot goes as an image, the older ones as a line
