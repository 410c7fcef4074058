"""Attachments in the desktop app: the paperclip's files, a pasted image and dropped files show as removable
thumbnails in the composer; the sent message shows them (a PDF with its name and page count); a click opens the
stored copy full size; Reattach puts them back; a refused message keeps its text and its files."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QImage

from tests.attachment_samples import png, write_samples
from tests.ui.chat_helpers import click, hotspot, layout_of, row_of
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import demo_sessions, open_session, settle, themed_window
from ui.models.chat_rows import RowKind

SCREENSHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"


def _attach_samples(qtbot, window, folder: Path) -> dict[str, Path]:
    files = write_samples(folder)
    (folder / "screenshot.png").write_bytes(png(1280, 800, (40, 90, 160)))
    files["screenshot.png"] = folder / "screenshot.png"
    window.chat_vm.attach_paths([str(files[n]) for n in ("screenshot.png", "report.pdf", "greet.py")])
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 3 and not window.chat_vm.state.attaching)
    return files


def test_files_show_in_the_composer_removable_and_go_with_the_message(qtbot, backend, worker, tmp_path) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    _attach_samples(qtbot, window, tmp_path)
    strip = window.composer.strip
    assert strip.isVisible() and [c.preview.attachment.name for c in strip.chips] == [
        "screenshot.png", "report.pdf", "greet.py"]
    thumb_labels = [c.findChild(type(window.composer.queued_label), "AttachmentThumb") for c in strip.chips]
    assert thumb_labels[0].pixmap() is not None and not thumb_labels[0].pixmap().isNull()  # a real thumbnail
    assert thumb_labels[1].text() == "PDF\n2 p." and thumb_labels[2].text() == "PY"
    window.composer.edit.setPlainText("What do these show?")
    settle(qtbot, worker)
    window.raise_()
    saved(window, tmp_path / "composer.png")
    if SCREENSHOTS.is_dir():
        window.grab().save(str(SCREENSHOTS / "composer_attachments.png"))

    qtbot.mouseClick(strip.chips[2].remove_button, Qt.MouseButton.LeftButton)  # greet.py: not sent after all
    qtbot.waitUntil(lambda: [p.attachment.name for p in window.chat_vm.state.pending] == ["screenshot.png",
                                                                                          "report.pdf"])
    qtbot.waitUntil(lambda: backend.released == ["greet.py"])
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and row_of(window.chat_view, RowKind.USER)[1].message_id
                    is not None)  # read back from storage
    sent = [c for c in backend.calls if c[0] == "send"][-1]
    assert sent[2] == "What do these show?" and [a.name for a in sent[4]] == ["screenshot.png", "report.pdf"]
    assert window.chat_vm.state.pending == () and not strip.isVisible()

    position, row = row_of(window.chat_view, RowKind.USER)
    assert [a.name for a in row.attachments] == ["screenshot.png", "report.pdf"]
    qtbot.waitUntil(lambda: row.attachments[0].sha256 in window.chat_vm.thumbnails)
    layout, rect = layout_of(window.chat_view, position)
    assert len(layout.tiles) == 2 and layout.tiles[0].bottom() < layout.doc_pos.y()  # the files above the text
    settle(qtbot, worker)
    image = saved(window, tmp_path / "message.png")
    assert distinct_colors(image) > 5
    if SCREENSHOTS.is_dir():
        window.grab().save(str(SCREENSHOTS / "message_attachments.png"))

    opened: list[QUrl] = []
    window.chat_view.open_url = opened.append
    click(qtbot, window.chat_view, hotspot(layout, "open-attachment:1").center() + rect.topLeft())
    qtbot.waitUntil(lambda: bool(opened))
    assert opened[0].toLocalFile().endswith("/report.pdf")
    assert Path(opened[0].toLocalFile()).read_bytes()[:5] == b"%PDF-"  # the stored copy, under its own name

    click(qtbot, window.chat_view, hotspot(layout, "reattach").center() + rect.topLeft())
    qtbot.waitUntil(lambda: [p.attachment.name for p in window.chat_vm.state.pending] == ["screenshot.png",
                                                                                          "report.pdf"])


def test_a_pasted_image_and_dropped_files_are_attached(qtbot, backend, worker, tmp_path) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    clipboard = QMimeData()
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(0x3366CC)
    clipboard.setImageData(image)
    window.composer.edit.insertFromMimeData(clipboard)
    qtbot.waitUntil(lambda: [p.attachment.name for p in window.chat_vm.state.pending] == ["pasted image.png"])
    assert window.chat_vm.state.pending[0].attachment.width == 40
    files = write_samples(tmp_path)
    dropped = QMimeData()
    dropped.setUrls([QUrl.fromLocalFile(str(files["photo.jpg"])), QUrl.fromLocalFile(str(files["greet.py"]))])
    event = QDropEvent(QPointF(300, 300), Qt.DropAction.CopyAction, dropped, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    assert window.attachments.eventFilter(window, event)
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 3)
    assert sorted(p.attachment.name for p in window.chat_vm.state.pending) == [
        "greet.py", "pasted image.png", "photo.jpg"]
    assert window.composer.edit.toPlainText() == ""  # a pasted file is attached, never pasted as its path
    copied = QMimeData()
    copied.setUrls([QUrl.fromLocalFile(str(files["report.pdf"]))])  # a file copied in a file manager, then pasted
    window.composer.edit.insertFromMimeData(copied)
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 4)
    assert window.composer.edit.toPlainText() == ""


def test_the_paperclip_opens_a_file_dialog_and_attaches_the_chosen_files(qtbot, backend, worker, tmp_path,
                                                                         monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    files = write_samples(tmp_path)
    asked: list[str] = []

    def chosen(parent, title, folder, filters):  # the dialog, answered as a person would
        asked.append(filters)
        return [str(files["photo.jpg"]), str(files["report.pdf"])], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(chosen))
    qtbot.mouseClick(window.composer.clip, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 2)
    assert "*.pdf" in asked[0] and "*.png" in asked[0]


def test_a_bad_file_is_named_in_a_notice_and_a_refused_message_keeps_text_and_files(qtbot, backend, worker,
                                                                                      tmp_path) -> None:
    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    notices: list[str] = []
    window.chat_vm.notice.connect(notices.append)
    (tmp_path / "empty.png").write_bytes(b"")
    window.chat_vm.attach_paths([str(tmp_path / "empty.png")])
    qtbot.waitUntil(lambda: bool(notices))
    assert notices[0] == "empty.png is empty (0 bytes); there is nothing to attach."
    assert window.chat_vm.state.pending == ()
    backend.refuse_attachments = "gpt-text does not take images, so nothing was sent (shot.png). Choose a model " \
                                 "that reads images (the model picker, or -m MODEL), or remove the image."
    window.chat_vm.attach_paths([str(write_samples(tmp_path / "files")["shot.png"])])
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 1)
    window.composer.edit.setPlainText("what is this?")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and window.composer.edit.toPlainText() != "")
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 1)
    assert window.composer.edit.toPlainText() == "what is this?"
    assert window.chat_vm.state.pending[0].attachment.name == "shot.png"
    assert "does not take images" in (window.chat_vm.state.error or "")


def test_files_alone_are_sent_and_the_message_shows_only_their_tiles(qtbot, backend, worker, tmp_path) -> None:
    from ui.widgets.context_panel import panel_rows

    sid = demo_sessions(backend)
    window = themed_window(qtbot, backend, worker)
    open_session(qtbot, window, sid)
    window.chat_vm.attach_paths([str(write_samples(tmp_path)["report.pdf"])])
    qtbot.waitUntil(lambda: len(window.chat_vm.state.pending) == 1)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)  # nothing typed: the file alone is the message
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming and row_of(window.chat_view, RowKind.USER)[1].message_id
                    is not None)
    position, row = row_of(window.chat_view, RowKind.USER)
    assert row.text == "" and [a.name for a in row.attachments] == ["report.pdf"]
    layout, _ = layout_of(window.chat_view, position)
    assert layout.doc is None and len(layout.tiles) == 1
    assert layout.bubble.height() < 140  # the tile and padding, no empty text line below it
    assert ("Attachments", "0") in panel_rows(window.chat_vm.state.context)  # its own row in the context panel
