"""Sound clips by their first bytes (WAV, MP3, Ogg, FLAC), and a WAV clip's length from its header."""

from __future__ import annotations

import io
import wave


def sniff_audio(data: bytes) -> str | None:
    """The media type of a WAV, MP3, Ogg or FLAC clip from its first bytes, or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"ID3") or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"fLaC"):
        return "audio/flac"
    return None


def wav_seconds(data: bytes) -> float | None:
    """The length of a PCM WAV clip in seconds; None for any other format or a broken header."""
    if not (data[:4] == b"RIFF" and data[8:12] == b"WAVE"):
        return None
    try:
        with wave.open(io.BytesIO(data), "rb") as clip:
            rate = clip.getframerate()
            return clip.getnframes() / rate if rate else None
    except (wave.Error, EOFError, ValueError):
        return None
