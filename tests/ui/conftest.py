"""Fixtures for UI tests: the real worker thread, the fake backend, a themed application."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.fake_backend import FakeChatBackend
from ui.math_images import MathImages, use_math_images
from ui.worker import AsyncWorker

ARTIFACTS = Path(__file__).resolve().parent.parent / "_artifacts"


@pytest.fixture(autouse=True)
def math_cache() -> Iterator[MathImages]:
    """A formula image cache of the test's own (what one test rendered does not change what the next one shows)."""
    images = MathImages()
    previous = use_math_images(images)
    yield images
    use_math_images(previous)
    images.shutdown()


@pytest.fixture
def worker(qapp: object) -> Iterator[AsyncWorker]:
    """A worker loop, shut down after the test so no callback outlives it."""
    w = AsyncWorker()
    yield w
    w.shutdown()


@pytest.fixture
def backend() -> FakeChatBackend:
    """A fake backend with an Anthropic key configured."""
    return FakeChatBackend(keys={"anthropic": "sk-test"})


@pytest.fixture
def artifacts() -> Path:
    """Where screenshots go (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
