"""WAV clips for tests of audio from tools: silence of a given length, 16 kHz mono 16-bit."""

from __future__ import annotations

import io
import wave


def wav(seconds: float) -> bytes:
    """A clip of 16 kHz mono 16-bit silence."""
    clip = io.BytesIO()
    with wave.open(clip, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16_000)
        writer.writeframes(b"\x00\x00" * round(16_000 * seconds))
    return clip.getvalue()
