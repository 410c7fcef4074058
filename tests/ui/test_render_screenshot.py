"""render_screenshot: the real Container against the real database under PALIMPSEST_HOME, into a 1280x800 PNG."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage

from app.container import Container
from app.gui import render_screenshot
from tests.fakes_turn import FakeAdapterFactory


def seeded_session() -> str:
    container = Container.build(adapter_factory=FakeAdapterFactory())
    try:
        session = container.create_session(title="Screenshot session")
        return session.id
    finally:
        container.close()


def test_render_screenshot_writes_a_1280x800_png_of_a_stored_session(qapp, tmp_path: Path) -> None:
    session_id = seeded_session()
    target = tmp_path / "shot.png"
    assert render_screenshot(str(target), session_id) == 0
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1280, 800)


def test_render_screenshot_of_an_unknown_session_fails_with_a_message(qapp, tmp_path: Path, capsys) -> None:
    seeded_session()
    assert render_screenshot(str(tmp_path / "x.png"), "no-such-session") == 1
    assert "No session named 'no-such-session'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_render_screenshot_into_a_missing_folder_says_so(qapp, tmp_path: Path, capsys) -> None:
    assert render_screenshot(str(tmp_path / "missing" / "x.png"), None) == 1
    assert "does not exist" in capsys.readouterr().err
