"""Taking files in: the type comes from the bytes, and every bad file is refused with a sentence that names it and
says why, storing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from data.attachments import intake as intake_module
from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake, AttachmentRejected
from domain.attachment import AttachmentKind
from tests.attachment_samples import PYTHON_SOURCE, jpeg, pdf, png


@pytest.fixture
def intake(tmp_path: Path) -> AttachmentIntake:
    return AttachmentIntake(AttachmentFiles(tmp_path / "store"))


def _stored(intake: AttachmentIntake) -> list[Path]:
    return [p for p in intake.files.folder.rglob("*") if p.is_file()] if intake.files.folder.exists() else []


def test_images_pdfs_and_code_are_recognised_from_their_bytes(intake: AttachmentIntake, tmp_path: Path) -> None:
    (tmp_path / "no_extension").write_bytes(png(40, 30))
    (tmp_path / "photo.jpg").write_bytes(jpeg(80, 60))
    (tmp_path / "report.pdf").write_bytes(pdf(["one", "two", "three"]))
    (tmp_path / "greet.py").write_text(PYTHON_SOURCE)
    shot = intake.from_path(tmp_path / "no_extension")
    photo = intake.from_path(tmp_path / "photo.jpg")
    report = intake.from_path(tmp_path / "report.pdf")
    code = intake.from_path(tmp_path / "greet.py")
    assert (shot.kind, shot.media_type, shot.width, shot.height) == (AttachmentKind.IMAGE, "image/png", 40, 30)
    assert (photo.kind, photo.media_type, photo.width) == (AttachmentKind.IMAGE, "image/jpeg", 80)
    assert (report.kind, report.media_type, report.pages) == (AttachmentKind.PDF, "application/pdf", 3)
    assert intake.files.text(report.sha256) == "--- page 1 ---\none\n\n--- page 2 ---\ntwo\n\n--- page 3 ---\nthree"
    assert (code.kind, code.media_type, code.text_chars) == (AttachmentKind.TEXT, "text/x-python", len(PYTHON_SOURCE))
    assert intake.files.read(code.sha256) == PYTHON_SOURCE.encode()


@pytest.mark.parametrize(("name", "data", "says"), [
    ("empty.png", b"", "empty.png is empty (0 bytes)"),
    ("broken.png", png()[:60], "broken.png is not a readable image"),
    ("broken.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 200, "broken.jpg is not a readable image"),
    ("broken.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog", "broken.pdf is not a readable PDF"),
    ("program.exe", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff", "program.exe is not a type Palimpsest can"),
    ("clip.mp4", b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00", "clip.mp4 is not a type Palimpsest can attach"),
])
def test_a_bad_file_is_refused_by_name_and_nothing_is_stored(intake: AttachmentIntake, tmp_path: Path, name: str,
                                                            data: bytes, says: str) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(AttachmentRejected) as caught:
        intake.from_path(tmp_path / name)
    assert str(caught.value).startswith(says)
    assert "Traceback" not in str(caught.value)
    assert _stored(intake) == []


def test_a_file_over_the_limit_is_refused_before_it_is_read(intake: AttachmentIntake, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "huge.pdf"
    with big.open("wb") as out:  # a sparse 500 MB file: its size is checked, its bytes are never read
        out.truncate(500 * 1000 * 1000)
    reads: list[Path] = []
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or b"")
    with pytest.raises(AttachmentRejected, match=r"huge.pdf is 500.0 MB; an attachment can be at most 50.0 MB"):
        intake.from_path(big)
    assert reads == [] and _stored(intake) == []


def test_a_missing_file_or_a_folder_is_named(intake: AttachmentIntake, tmp_path: Path) -> None:
    with pytest.raises(AttachmentRejected, match=r"gone.png does not exist \(was it moved or deleted\?\)"):
        intake.from_path(tmp_path / "gone.png")
    with pytest.raises(AttachmentRejected, match="is a folder"):
        intake.from_path(tmp_path)


def test_a_password_protected_pdf_is_refused(intake: AttachmentIntake, tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(pdf(["secret"]))).pages:
        writer.add_page(page)
    writer.encrypt("pw")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(AttachmentRejected, match=r"locked\.pdf is password-protected"):
        intake.from_bytes("locked.pdf", out.getvalue())


def test_an_image_with_too_many_pixels_is_refused(intake: AttachmentIntake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake_module, "MAX_PIXELS", 1000)
    with pytest.raises(AttachmentRejected, match=r"wide.png is 100×20 pixels"):
        intake.from_bytes("wide.png", png(100, 20))
