"""Real sample files for attachment tests, made on the fly: PNG, JPEG, GIF (still or animated), BMP and TIFF images
(Pillow), PDFs with text per page (hand-written, valid for pypdf and for any reader), a Python file."""

from __future__ import annotations

import io
from pathlib import Path


def png(width: int = 64, height: int = 48, color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A PNG of one colour with a diagonal line (so it is not trivially compressible to nothing)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), color)
    ImageDraw.Draw(image).line((0, 0, width, height), fill=(0, 0, 0), width=3)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def jpeg(width: int = 80, height: int = 60) -> bytes:
    """A JPEG photo-like gradient."""
    from PIL import Image

    image = Image.new("RGB", (width, height))
    image.putdata([((x * 255) // max(1, width), (y * 255) // max(1, height), 128)
                   for y in range(height) for x in range(width)])
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    return out.getvalue()


def gif(width: int = 60, height: int = 40, frames: int = 1) -> bytes:
    """A GIF of `frames` frames (red, then green, blue...): animated when frames > 1."""
    from PIL import Image

    colours = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (240, 200, 0)]
    images = [Image.new("RGB", (width, height), colours[i % len(colours)]) for i in range(frames)]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=frames > 1, append_images=images[1:], duration=100, loop=0)
    return out.getvalue()


def bmp(width: int = 50, height: int = 30) -> bytes:
    """A Windows bitmap (BMP) of one colour with a line."""
    return _saved(width, height, "BMP")


def tiff(width: int = 50, height: int = 30) -> bytes:
    """A TIFF of one colour with a line."""
    return _saved(width, height, "TIFF")


def _saved(width: int, height: int, kind: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png(width, height))).convert("RGB").save(out, format=kind)
    return out.getvalue()


def pdf(pages: list[str]) -> bytes:
    """A PDF whose page i shows the text pages[i] (Helvetica, one line); xref offsets computed exactly."""
    objects: list[bytes] = []
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    font_id = 3 + 2 * count
    for i, text in enumerate(pages):
        content_id = 4 + 2 * i
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
                       f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode())
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 18 Tf 72 700 Td ({escaped}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def docx(title: str, sections: list[tuple[int, str, str]], table: tuple[str, str] | None = None) -> bytes:
    """A real DOCX (python-docx): a Title paragraph, then each (level, heading, body) as a Heading N and a paragraph;
    `table`, a one-row two-cell table after the first section."""
    from docx import Document

    document = Document()
    document.add_heading(title, level=0)
    for index, (level, heading, body) in enumerate(sections):
        document.add_heading(heading, level=level)
        document.add_paragraph(body)
        if index == 0 and table is not None:
            row = document.add_table(rows=1, cols=2).rows[0]
            row.cells[0].text, row.cells[1].text = table
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def epub(title: str, chapters: list[tuple[str, str]], part: str | None = None) -> bytes:
    """A real EPUB (ebooklib): each (title, HTML body) a chapter in the spine, with an NCX and a nav document; every
    chapter but the first grouped in the table of contents under `part`, when given."""
    from ebooklib import epub as book_format

    book = book_format.EpubBook()
    book.set_identifier(f"id-{title}")
    book.set_title(title)
    book.set_language("en")
    items = []
    for number, (heading, body) in enumerate(chapters, start=1):
        item = book_format.EpubHtml(title=heading, file_name=f"ch{number}.xhtml", lang="en")
        item.content = f"<html><body><h1>{heading}</h1>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    links = [book_format.Link(item.file_name, heading, f"ch{n}")
             for n, (item, (heading, _)) in enumerate(zip(items, chapters, strict=True), start=1)]
    book.toc = links if part is None else [links[0], (book_format.Section(part), links[1:])]
    book.add_item(book_format.EpubNcx())
    book.add_item(book_format.EpubNav())
    book.spine = ["nav", *items]
    out = io.BytesIO()
    book_format.write_epub(out, book)
    return out.getvalue()


PYTHON_SOURCE = 'def greet(name: str) -> str:\n    """Says hello."""\n    return f"Hello, {name}!"\n'


def write_samples(folder: Path) -> dict[str, Path]:
    """shot.png, photo.jpg, report.pdf (2 pages) and greet.py in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"shot.png": png(), "photo.jpg": jpeg(), "report.pdf": pdf(["Quarterly revenue rose 12%", "Page two"]),
             "greet.py": PYTHON_SOURCE.encode()}
    paths = {}
    for name, data in files.items():
        (folder / name).write_bytes(data)
        paths[name] = folder / name
    return paths
