"""Audio a tool returned, planned like an image: sent natively only to a Gemini model whose capabilities say it
takes audio, priced at Gemini's 32 tokens a second; any other model gets its description line."""

from __future__ import annotations

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind, placeholder
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import TokenEstimator
from domain.models import Message, MessageType, ModelCapabilities, ProviderType, ToolStatus

CLIP = Attachment("b" * 64, "say-audio-1.wav", "audio/wav", AttachmentKind.AUDIO, 64_044, duration_ms=2000)
AUDIO = ModelCapabilities(audio_input=True)


def _planned(target: AttachmentTarget) -> Attachment:
    result = Message("t1", "s1", MessageType.TOOL_RESULT, seq=1, tool_call_id="c1", tool_name="tts__say",
                     tool_output="[audio: audio/wav, 64,044 bytes, 2.0 s]", tool_status=ToolStatus.SUCCESS,
                     attachments=(CLIP,))
    (planned,) = plan_attachments([result], target=target, protected_tokens=None,
                                  estimator=TokenEstimator(rules=PROVIDER_RULES))
    return planned.attachments[0]


def test_a_gemini_model_taking_audio_is_sent_the_clip_priced_by_its_length() -> None:
    clip = _planned(AttachmentTarget(ProviderType.GEMINI, "gemini-2.5-flash", AUDIO))
    assert not clip.omitted and clip.tokens == 64  # 2 s at 32 tokens a second


def test_a_model_without_audio_input_gets_the_description_line() -> None:
    for target in (AttachmentTarget(ProviderType.ANTHROPIC, "claude-sonnet-4-6", ModelCapabilities(vision=True)),
                   AttachmentTarget(ProviderType.GEMINI, "unknown-model", None)):
        clip = _planned(target)
        assert clip.omitted and placeholder(clip) == (f"[Attachment say-audio-1.wav (audio, 64.0 KB, 2.0 s): not sent: "
                                                      f"{target.model_id} takes no audio]")


def test_openai_audio_models_are_not_sent_audio_yet() -> None:
    clip = _planned(AttachmentTarget(ProviderType.OPENAI, "gpt-4o-audio-preview", AUDIO))
    assert clip.omitted and clip.note == "not sent: Palimpsest sends audio only to Gemini so far"
