"""The window: clicking a search hit scrolls the conversation to the framed match; the sidebar archives and shows
the archived list (screenshots search_hit.png and sidebar_archived.png)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractSlider

from domain.events import TextDelta
from domain.ports import SessionSearchHit
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_screenshots import distinct_colors, saved
from tests.ui.window_helpers import demo_sessions, migration_log, settle, themed_window
from ui.models.session_list import WHEN_ROLE
from ui.widgets.chat_view import ChatView

SHOTS = Path(__file__).resolve().parents[2] / "ui" / "screenshots"


def keep(image_path: Path) -> None:
    shutil.copyfile(image_path, SHOTS / image_path.name)


def on_screen(view: ChatView, message_id: str) -> bool:
    model = view._vm.model
    row = next((i for i, r in enumerate(model.rows()) if r.message_id == message_id), None)
    return row is not None and view.viewport().rect().intersects(view.visualRect(model.index(row)))


def test_clicking_a_hit_far_back_scrolls_to_it_and_frames_it(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    session_id, hit_id = migration_log(backend, 150, 20)
    window = themed_window(qtbot, backend, worker)
    window.sidebar.search.setText("staging albatross")
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 1)
    index = window.sidebar.model.index(0)
    qtbot.mouseClick(window.sidebar.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.sidebar.list.visualRect(index).center())
    view = window.chat_view
    qtbot.waitUntil(lambda: view.delegate.highlighted == hit_id)
    qtbot.waitUntil(lambda: window.chat_vm.state.context is not None)  # the gauge shows its measure in the picture
    settle(qtbot, worker)
    assert on_screen(view, hit_id)
    assert not on_screen(view, backend.messages[session_id][-1].id)  # not the usual bottom of the conversation
    shot = saved(window, artifacts / "search_hit.png")
    assert distinct_colors(shot) > 5
    keep(artifacts / "search_hit.png")
    frame = view.visualRect(view._vm.model.index(
        next(i for i, r in enumerate(view._vm.model.rows()) if r.message_id == hit_id)))
    view.highlight(None)
    settle(qtbot, worker)
    plain = view.grab().toImage()
    framed = QImage(str(artifacts / "search_hit.png"))
    offset = view.mapTo(window, QPoint(0, 0))
    changed = [(x, y) for x in range(frame.left(), frame.right(), 3) for y in range(frame.top(), frame.bottom(), 3)
               if framed.pixel(offset.x() + x, offset.y() + y) != plain.pixel(x, y)]
    assert len(changed) > 100  # the frame and its tint, drawn only while highlighted
    view.show_message(hit_id)
    qtbot.waitUntil(lambda: view.delegate.highlighted is None, timeout=4000)  # the frame goes after a while


def test_a_hit_in_the_newest_page_stays_in_view_when_opened_again(qtbot, worker) -> None:
    """A scroll to the bottom asked for while the page was still being laid out (the scroll bar appearing resizes the
    view) used to run after the hit was centred and leave the view at the bottom."""
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    texts = []
    for i in range(60):
        texts += [f"Question {i}: what about step {i}?", "\n\n".join([f"Step {i} is done."] * 6)]
    texts[70] = "Which port does the staging albatross service listen on?"
    session = backend.add_session("Staging migration log", texts, minutes_ago=30)
    hit_id = backend.messages[session.id][70].id
    window = themed_window(qtbot, backend, worker)
    view = window.chat_view
    for _ in range(3):
        window.sessions_vm.new_chat()
        qtbot.waitUntil(lambda: window.chat_vm.state.session is None)
        window.sessions_vm.open_hit(SessionSearchHit(session.id, session.title, "", message_id=hit_id))
        qtbot.waitUntil(lambda: view.delegate.highlighted == hit_id)
        settle(qtbot, worker)  # the page settles: row heights refined, the context measured
        assert on_screen(view, hit_id)
        assert not on_screen(view, backend.messages[session.id][-1].id)
    qtbot.waitUntil(lambda: view.delegate.highlighted is None, timeout=4000)  # the frame goes; the hit stays held
    window.resize(window.width() - 120, window.height())  # rows wrap anew: the hit is centred again
    settle(qtbot, worker)
    assert on_screen(view, hit_id)
    view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)  # the user scrolls down
    settle(qtbot, worker)
    assert on_screen(view, backend.messages[session.id][-1].id) and not on_screen(view, hit_id)
    window.sessions_vm.new_chat()
    qtbot.waitUntil(lambda: window.chat_vm.state.session is None)
    window.sessions_vm.select(session.id)  # opened the usual way: at its newest message
    qtbot.waitUntil(lambda: on_screen(view, backend.messages[session.id][-1].id))


def test_archive_from_the_menu_and_the_archived_list(qtbot, worker, artifacts) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    old = backend.add_session("Tax return 2024", ["Which forms do I need?", "Form A and schedule C."],
                              minutes_ago=9000)
    window = themed_window(qtbot, backend, worker)
    sidebar, vm = window.sidebar, window.sessions_vm
    qtbot.waitUntil(lambda: sidebar.model.row_of(old.id) >= 0)
    menu = sidebar.menu_for(old.id, "Tax return 2024")
    archive = next(a for a in menu.actions() if a.text() == "Archive")
    archive.trigger()
    qtbot.waitUntil(lambda: sidebar.model.row_of(old.id) < 0)
    assert not backend.sessions[old.id].is_active
    qtbot.mouseClick(sidebar.archived_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: sidebar.model.row_of(old.id) == 0 and sidebar.model.rowCount() == 1)
    assert sidebar.archived_title.isVisible() and vm.state.show_archived
    assert sidebar.archived_button.text() == "‹ Conversations"
    assert distinct_colors(saved(window, artifacts / "sidebar_archived.png")) > 5
    keep(artifacts / "sidebar_archived.png")
    sidebar.search.setText("schedule")  # an archived session's hit says so, and its menu offers Unarchive
    qtbot.waitUntil(lambda: vm.state.hits is not None)
    assert sidebar.model.index(0).data(WHEN_ROLE) == "archived"
    assert "Unarchive" in [a.text() for a in sidebar.menu_for(old.id, "Tax return 2024").actions()]
    sidebar.search.setText("")
    qtbot.waitUntil(lambda: vm.state.hits is None)
    unarchive = next(a for a in sidebar.menu_for(old.id, "Tax return 2024").actions() if a.text() == "Unarchive")
    unarchive.trigger()
    qtbot.waitUntil(lambda: sidebar.model.rowCount() == 0)
    assert sidebar.empty.text() == "No archived conversations."
    qtbot.mouseClick(sidebar.archived_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: sidebar.model.row_of(old.id) >= 0)
    assert not sidebar.archived_title.isVisible()


def test_sending_from_the_hit_follows_the_reply_again(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    texts = [f"line {i}" for i in range(200)]
    texts[10] = "the kestrel question"
    session = backend.add_session("Birds", texts)
    hit = backend.messages[session.id][10].id
    window = themed_window(qtbot, backend, worker)
    window.sessions_vm.open_hit(SessionSearchHit(session.id, "Birds", "kestrel", hit))
    view = window.chat_view
    qtbot.waitUntil(lambda: view.delegate.highlighted == hit)
    settle(qtbot, worker)
    assert on_screen(view, hit)
    gate = Gate()
    backend.scripts.append([TextDelta("Falcons "), gate, TextDelta("stoop.")])  # held mid-reply until looked at
    assert window.chat_vm.send("and the falcon?")
    qtbot.waitUntil(lambda: window.chat_vm.model.rows()[-1].text.startswith("Falcons"))
    settle(qtbot, worker)
    bar = view.verticalScrollBar()
    assert window.chat_vm.state.streaming  # while the reply streams, the view follows it, not the hit
    assert bar.value() >= bar.maximum() - 40 and not on_screen(view, hit)
    gate.open()
    qtbot.waitUntil(lambda: not window.chat_vm.state.streaming)


def test_enter_on_a_search_result_opens_it_at_the_hit_like_a_click(qtbot, worker) -> None:
    backend = FakeChatBackend(keys={"anthropic": "sk-test"})
    demo_sessions(backend)
    session = backend.add_session("Harbour notes", ["When does the ferry to Ons leave?", "At 09:40 from Bueu."],
                                  minutes_ago=30)
    hit_id = backend.messages[session.id][0].id
    window = themed_window(qtbot, backend, worker)
    window.sidebar.search.setText("ferry to Ons")
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 1)
    window.sidebar.list.setFocus()
    window.sidebar.list.setCurrentIndex(window.sidebar.model.index(0))
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.chat_view.delegate.highlighted == hit_id)
    assert window.chat_vm.state.session is not None and window.chat_vm.state.session.id == session.id
