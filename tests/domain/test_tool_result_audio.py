"""Audio a tool returned, planned like an image: sent natively only to a model whose capabilities say it takes audio
on an API that takes it (Gemini; OpenAI Chat Completions, WAV and MP3 only; not the Responses API), priced at
Gemini's 32 tokens a second; any other model gets its description line."""

from __future__ import annotations

from dataclasses import replace

from data.providers.rules import PROVIDER_RULES
from domain.attachment import Attachment, AttachmentKind, placeholder
from domain.context.attachment_plan import AttachmentTarget, plan_attachments
from domain.context.estimator import TokenEstimator
from domain.models import Message, MessageType, ModelCapabilities, Provider, ProviderApi, ProviderType, ToolStatus
from domain.provider_models import speaks_responses

CLIP = Attachment("b" * 64, "say-audio-1.wav", "audio/wav", AttachmentKind.AUDIO, 64_044, duration_ms=2000)
AUDIO = ModelCapabilities(audio_input=True)


def _planned(target: AttachmentTarget, clip: Attachment = CLIP) -> Attachment:
    result = Message("t1", "s1", MessageType.TOOL_RESULT, seq=1, tool_call_id="c1", tool_name="tts__say",
                     tool_output="[audio: audio/wav, 64,044 bytes, 2.0 s]", tool_status=ToolStatus.SUCCESS,
                     attachments=(clip,))
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


def test_an_openai_audio_model_on_chat_completions_is_sent_a_wav_or_mp3_clip() -> None:
    for provider_type in (ProviderType.OPENAI, ProviderType.OPENAI_COMPATIBLE):
        target = AttachmentTarget(provider_type, "gpt-4o-audio-preview", AUDIO)
        assert not _planned(target).omitted
        assert not _planned(target, replace(CLIP, name="a.mp3", media_type="audio/mpeg")).omitted


def test_chat_completions_gets_the_description_of_a_clip_it_takes_no_format_of() -> None:
    ogg = replace(CLIP, name="say-audio-1.ogg", media_type="audio/ogg", duration_ms=None)
    clip = _planned(AttachmentTarget(ProviderType.OPENAI, "gpt-audio", AUDIO), ogg)
    assert clip.omitted and clip.note == "not sent: Chat Completions takes only WAV and MP3 audio"


def test_the_responses_api_gets_the_description_line() -> None:
    clip = _planned(AttachmentTarget(ProviderType.OPENAI, "gpt-4o-audio-preview", AUDIO, responses_api=True))
    assert clip.omitted and clip.note == "not sent: the Responses API takes no audio input"


def test_which_openai_providers_speak_the_responses_api() -> None:
    def provider(kind: ProviderType, url: str | None, api: ProviderApi = ProviderApi.AUTO) -> Provider:
        return Provider("p", "P", kind, url, api=api)

    assert speaks_responses(provider(ProviderType.OPENAI, None))
    assert speaks_responses(provider(ProviderType.OPENAI, "https://api.openai.com/v1"))
    chat = ProviderApi.CHAT_COMPLETIONS
    assert not speaks_responses(provider(ProviderType.OPENAI, "https://api.openai.com/v1", chat))
    assert not speaks_responses(provider(ProviderType.OPENAI_COMPATIBLE, "http://localhost:11434/v1"))
    assert speaks_responses(provider(ProviderType.OPENAI_COMPATIBLE, "http://proxy/v1", ProviderApi.RESPONSES))
    assert not speaks_responses(provider(ProviderType.GEMINI, None, ProviderApi.RESPONSES))
