"""The desktop app after a stored attachment file was deleted: the next turn goes with a placeholder in its place and
the chat screen says so once, as a notice (real Container and SQLite, the fake Anthropic server, offscreen Qt)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.gui.application import wait_until
from tests.attachment_samples import write_samples
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.ui.live_window import live_window


def test_a_deleted_attachment_file_is_a_notice_in_the_chat_screen_once(
    qapp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    files = write_samples(tmp_path / "files")
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with live_window(brain, monkeypatch) as (app, running, _servers):
        vm = running.window.chat_vm
        vm.select_model(next(c for c in vm.state.choices if c.selection.provider_id == "anthropic").selection)
        vm.attach_paths([str(files["shot.png"])])
        assert wait_until(app, lambda: len(vm.state.pending) == 1 and not vm.state.attaching, timeout=30)
        brain.push(Reply.of_text("A screenshot."))
        assert vm.send("What is this?")
        assert wait_until(app, lambda: not vm.state.streaming and vm.model.rows()[-1].message_id is not None,
                          timeout=30), vm.state.error
        container = running.container or (running.holder or {})["container"]
        digest = hashlib.sha256(files["shot.png"].read_bytes()).hexdigest()
        (container.storage.path.parent / "attachments" / digest[:2] / digest).unlink()
        notices: list[str] = []
        vm.notice.connect(notices.append)
        for question, answer in (("And now?", "Noted."), ("Once more?", "Noted again.")):
            brain.push(Reply.of_text(answer))
            assert vm.send(question)
            assert wait_until(app, lambda a=answer: not vm.state.streaming and vm.model.rows()[-1].text == a,
                              timeout=30), vm.state.error
    missing = [n for n in notices if "shot.png is missing from the data folder" in n]
    assert len(missing) == 1, notices
    assert "a placeholder is sent in its place" in missing[0]
    last = [r for r in brain.seen if r.stream][-1]
    assert "its file is missing from the data folder" in str(last.raw)
