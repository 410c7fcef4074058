"""Each SDK adapter asks its provider's count endpoint for an attachment's tokens through the real SDK (Anthropic
messages.count_tokens, Gemini countTokens, Responses input_tokens): the file with a one-character question, less
the question alone (asked once per model); a refused count gives None and is not asked again in the process; Chat
Completions has no count endpoint and asks nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake
from data.attachments.media import MediaSource
from data.providers.factory import SdkAdapterFactory
from data.providers.retry import RetryPolicy
from domain.models import Provider, ProviderApi, ProviderType
from tests.attachment_samples import pdf, png
from tests.fakeservers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer
from tests.fakeservers.responses_server import FakeResponsesServer
from tests.fakeservers.server import FakeProviderServer
from tests.providers.helpers import KEY, RecordingSleep

FLAVOURS: dict[str, tuple[type[FakeProviderServer], ProviderType, ProviderApi]] = {
    "anthropic": (FakeAnthropicServer, ProviderType.ANTHROPIC, ProviderApi.AUTO),
    "gemini": (FakeGeminiServer, ProviderType.GEMINI, ProviderApi.AUTO),
    "responses": (FakeResponsesServer, ProviderType.OPENAI, ProviderApi.RESPONSES),
}


def _adapter(kind: ProviderType, api: ProviderApi, url: str, files: AttachmentFiles, key: str = KEY):
    factory = SdkAdapterFactory(timeout=10.0, env={}, retry=RetryPolicy(max_retries=0, sleep=RecordingSleep()))
    adapter = factory.create(Provider(id=kind.value, name=kind.value.title(), type=kind, base_url=url, api=api), key)
    adapter.media = MediaSource(files)  # type: ignore[attr-defined]
    return adapter


@pytest.mark.parametrize("flavour", list(FLAVOURS))
async def test_an_attachment_is_counted_by_the_providers_endpoint_as_it_bills_it(flavour: str, tmp_path: Path):
    server_type, kind, api = FLAVOURS[flavour]
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))
    image = intake.from_bytes("chart.png", png(900, 600))
    manual = intake.from_bytes("manual.pdf", pdf([f"Page {n}: the boot loader is configured here." for n in range(3)]))
    with server_type(api_key=KEY) as fake:
        adapter = _adapter(kind, api, fake.base_url, intake.files)
        image_tokens = await adapter.count_attachment_tokens("test-model", image)
        pdf_tokens = await adapter.count_attachment_tokens("test-model", manual)
        await adapter.aclose()
        assert len(fake.counted) == 3  # the image, the question alone (once per model), the PDF
        billed = {part.sha256: part.tokens for request in fake.counted for part in request.media}
    assert image_tokens is not None and pdf_tokens is not None
    # the provider's figure for the file itself, plus the short heading line each file is sent with
    assert billed[image.sha256] <= image_tokens <= billed[image.sha256] + 60
    assert billed[manual.sha256] <= pdf_tokens <= billed[manual.sha256] + 60
    assert not fake.requests  # counting generates nothing


async def test_a_refused_count_gives_none_and_is_not_asked_again(tmp_path: Path):
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))
    image = intake.from_bytes("chart.png", png(300, 200))
    with FakeAnthropicServer(api_key=KEY) as fake:
        adapter = _adapter(ProviderType.ANTHROPIC, ProviderApi.AUTO, fake.base_url, intake.files, key="sk-wrong")
        assert await adapter.count_attachment_tokens("test-model", image) is None
        asked = len(fake.log)
        assert await adapter.count_attachment_tokens("test-model", image) is None
        assert len(fake.log) == asked == 1
        await adapter.aclose()


async def test_chat_completions_has_no_count_endpoint_and_asks_nothing(tmp_path: Path):
    intake = AttachmentIntake(AttachmentFiles(tmp_path / "attachments"))
    image = intake.from_bytes("chart.png", png(300, 200))
    with FakeOpenAIServer(api_key=KEY) as fake:
        adapter = _adapter(ProviderType.OPENAI_COMPATIBLE, ProviderApi.AUTO, fake.base_url, intake.files)
        assert await adapter.count_attachment_tokens("llava:7b", image) is None
        assert fake.log == []
        await adapter.aclose()
