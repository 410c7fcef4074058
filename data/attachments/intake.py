"""Taking a file in as an attachment: its type from its bytes, checked readable (Pillow, pypdf), stored once."""

from __future__ import annotations

import io
import logging
import mimetypes
import os
import stat
from pathlib import Path

from data.attachments.audio import sniff_audio, wav_seconds
from data.attachments.files import AttachmentFiles
from data.attachments.png_bands import banded, bands
from data.attachments.quiet import quiet_decoders
from domain.attachment import PDF_TYPE, Attachment, AttachmentKind, human_size
from domain.errors import InvalidInput

log = logging.getLogger(__name__)
MAX_BYTES = 50_000_000  # the largest file taken in (50 MB): over every provider's PDF limit but Gemini's upload
MAX_TEXT_CHARS = 2_000_000
MAX_PIXELS = 100_000_000
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"%PDF-", PDF_TYPE),
)
BMP_HEADERS = (12, 40, 52, 56, 64, 108, 124)  # the sizes of the BMP info headers (BITMAPCOREHEADER to V5)
SUPPORTED = "images (PNG, JPEG, GIF, WebP, BMP, TIFF), PDFs, DOCX and EPUB files, and text or code files"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
EPUB_TYPE = "application/epub+zip"
CONVERTED = {".docx": DOCX_TYPE, ".epub": EPUB_TYPE}  # taken in as their text (kept beside the original)


class AttachmentRejected(InvalidInput):
    """A file that cannot be attached; the message says which and why."""


def sniff(data: bytes) -> str | None:
    """The media type of an image or PDF from its first bytes, or None."""
    for magic, media_type in _SIGNATURES:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if _is_bmp(data):
        return "image/bmp"
    head = data[:1024]
    at = head.find(b"%PDF-")
    return PDF_TYPE if 0 <= at < 1024 else None


def _is_bmp(data: bytes) -> bool:
    """A BMP file header ("BM", reserved zeros, a known info header size): a text starting "BM" is not one."""
    return (len(data) >= 26 and data[:2] == b"BM" and data[6:10] == b"\x00" * 4
            and int.from_bytes(data[14:18], "little") in BMP_HEADERS)


class AttachmentIntake:
    """Checks files and stores them in AttachmentFiles; nothing is stored for a file that is refused."""

    def __init__(self, files: AttachmentFiles) -> None:
        self.files = files

    def from_path(self, path: Path) -> Attachment:
        """The file at `path` checked and stored; AttachmentRejected (a plain sentence) when it cannot be. Only a
        regular file is opened (a pipe or a device would block or never end), and at most MAX_BYTES are read."""
        name = path.name
        try:
            info = path.stat()
        except FileNotFoundError:
            raise AttachmentRejected(f"{path} does not exist (was it moved or deleted?).") from None
        except OSError as exc:
            raise AttachmentRejected(f"{path} cannot be read ({exc.strerror or exc}).") from None
        if stat.S_ISDIR(info.st_mode):
            raise AttachmentRejected(f"{path} is a folder; attach files one by one.")
        if not stat.S_ISREG(info.st_mode):
            raise AttachmentRejected(_not_regular(path))
        if info.st_size > MAX_BYTES:
            raise AttachmentRejected(
                f"{name} is {human_size(info.st_size)}; an attachment can be at most {human_size(MAX_BYTES)}.")
        try:
            data = _read_regular(path)
        except FileNotFoundError:
            raise AttachmentRejected(f"{path} does not exist (was it moved or deleted?).") from None
        except OSError as exc:
            raise AttachmentRejected(f"{path} cannot be read ({exc.strerror or exc}).") from None
        if data is None:
            raise AttachmentRejected(_not_regular(path))
        if len(data) > MAX_BYTES:
            raise AttachmentRejected(f"{name} grew past {human_size(MAX_BYTES)} while it was read; an attachment "
                                     f"can be at most {human_size(MAX_BYTES)}.")
        return self.from_bytes(name, data)

    def from_bytes(self, name: str, data: bytes) -> Attachment:
        """Bytes (a pasted image, a dropped file) checked and stored under `name`."""
        if not data:
            raise AttachmentRejected(f"{name} is empty (0 bytes); there is nothing to attach.")
        if len(data) > MAX_BYTES:
            raise AttachmentRejected(
                f"{name} is {human_size(len(data))}; an attachment can be at most {human_size(MAX_BYTES)}.")
        media_type = sniff(data)
        if media_type == PDF_TYPE:
            return self._pdf(name, data)
        if media_type is not None:
            return self._image(name, data, media_type)
        audio = sniff_audio(data)
        if audio is not None:
            return self._audio(name, data, audio)
        converted = CONVERTED.get(Path(name).suffix.lower())
        if converted is not None and data.startswith(b"PK\x03\x04"):
            return self._converted(name, data, converted)
        return self._text(name, data)

    def _audio(self, name: str, data: bytes, media_type: str) -> Attachment:
        """A sound clip, kept as it is (its length read from a WAV header); only a model taking audio is sent it."""
        seconds = wav_seconds(data)
        digest = self.files.put(data)
        return Attachment(digest, name, media_type, AttachmentKind.AUDIO, len(data),
                          duration_ms=round(seconds * 1000) if seconds is not None else None)

    def _converted(self, name: str, data: bytes, media_type: str) -> Attachment:
        """A DOCX or EPUB: its text extracted section by section, sent like a text file's; the original is kept."""
        try:
            text = converted_text(name, data)
        except InvalidInput as err:
            raise AttachmentRejected(err.message) from None
        if not text.strip():
            raise AttachmentRejected(f"{name} has no text to read.")
        if len(text) > MAX_TEXT_CHARS:
            raise AttachmentRejected(f"{name} has {len(text):,} characters of text; an attachment can have at most "
                                     f"{MAX_TEXT_CHARS:,}.")
        digest = self.files.put(data)
        self.files.put_text(digest, text)
        return Attachment(digest, name, media_type, AttachmentKind.TEXT, len(data), text_chars=len(text))

    def _image(self, name: str, data: bytes, media_type: str) -> Attachment:
        with quiet_decoders():
            return self._checked_image(name, data, media_type)

    def _checked_image(self, name: str, data: bytes, media_type: str) -> Attachment:
        from PIL import Image

        try:
            with Image.open(io.BytesIO(data)) as probe:
                probe.verify()
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise AttachmentRejected(f"{name} is {width}×{height} pixels; at most {MAX_PIXELS:,} pixels "
                                             "can be attached.")
                if image.format == "JPEG":  # decoded at an eighth of its size: enough to prove it decodes
                    image.draft(image.mode, (max(1, width // 8), max(1, height // 8)))
                layout = banded(data) if image.format == "PNG" else None
                if layout is not None:  # every row decoded, a band at a time (never the whole image at once)
                    for _band in bands(data, layout):
                        pass
                else:
                    image.load()
        except AttachmentRejected:
            raise
        except Exception as exc:  # Pillow raises many kinds for a broken file
            raise AttachmentRejected(f"{name} is not a readable image: it looks like {media_type} but cannot be "
                                     f"decoded ({type(exc).__name__}).") from None
        digest = self.files.put(data)
        return Attachment(digest, name, media_type, AttachmentKind.IMAGE, len(data), width=width, height=height)

    def _pdf(self, name: str, data: bytes) -> Attachment:
        with quiet_decoders():
            return self._checked_pdf(name, data)

    def _checked_pdf(self, name: str, data: bytes) -> Attachment:
        from pypdf import PdfReader

        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                raise AttachmentRejected(f"{name} is password-protected; remove the password and attach it again.")
            pages = len(reader.pages)
            size = _page_size(reader) if pages else None
        except AttachmentRejected:
            raise
        except Exception as exc:  # pypdf raises many kinds for a broken file
            raise AttachmentRejected(f"{name} is not a readable PDF ({type(exc).__name__}).") from None
        if pages == 0:
            raise AttachmentRejected(f"{name} is a PDF without pages.")
        text = extract_text(reader, name)
        digest = self.files.put(data)
        if text:
            self.files.put_text(digest, text)
        width, height = size or (None, None)
        return Attachment(digest, name, PDF_TYPE, AttachmentKind.PDF, len(data), pages=pages,
                          text_chars=len(text) or None, width=width, height=height)

    def _text(self, name: str, data: bytes) -> Attachment:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = None
        if text is None or "\x00" in text:
            raise AttachmentRejected(f"{name} is not a type Palimpsest can attach: it takes {SUPPORTED}.")
        if len(text) > MAX_TEXT_CHARS:
            raise AttachmentRejected(f"{name} has {len(text):,} characters; a text file can have at most "
                                     f"{MAX_TEXT_CHARS:,}.")
        guessed = mimetypes.guess_type(name)[0]
        media_type = guessed if guessed and guessed.startswith("text/") else "text/plain"
        digest = self.files.put(data)
        return Attachment(digest, name, media_type, AttachmentKind.TEXT, len(data), text_chars=len(text))


def converted_text(name: str, data: bytes) -> str:
    """A DOCX's or EPUB's text, its sections in order; InvalidInput when it cannot be read."""
    from data.documents.extract import extract

    return "\n\n".join(body for _, _, body in extract(name, data).passages)


def _page_size(reader: object) -> tuple[int, int] | None:
    """The first page's size in points (rotation applied), which the providers' page rules price; None if unread."""
    try:
        page = reader.pages[0]  # type: ignore[attr-defined]
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        if int(page.get("/Rotate", 0) or 0) % 180:
            width, height = height, width
    except Exception:  # a page box pypdf cannot read: the rule's default page size is used
        return None
    return (round(width), round(height)) if width > 0 and height > 0 else None


def extract_text(reader: object, name: str, limit: int = MAX_TEXT_CHARS) -> str:
    """The text of a PDF's pages (each headed by its number), cut at `limit` characters; "" when it has none."""
    parts: list[str] = []
    size = 0
    for number, page in enumerate(getattr(reader, "pages", ()), start=1):
        try:
            text = (page.extract_text() or "").strip()
        except Exception:  # one unreadable page does not lose the others
            log.warning("could not extract the text of page %d of %s", number, name, exc_info=True)
            continue
        if text:
            parts.append(f"--- page {number} ---\n{text}")
            size += len(parts[-1])
            if size >= limit:
                break
    return "\n\n".join(parts)[:limit]


def _not_regular(path: Path) -> str:
    """The refusal of a pipe, a device or a socket."""
    return f"{path} is not a regular file (a pipe, a device or a socket); only saved files can be attached."


def _read_regular(path: Path) -> bytes | None:
    """At most MAX_BYTES + 1 bytes of `path`, opened without blocking and checked a regular file once open (it may
    have been swapped for a pipe since it was looked at); None when it is not one."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as source:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return source.read(MAX_BYTES + 1)
