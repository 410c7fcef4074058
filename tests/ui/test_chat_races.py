"""The reducer's races, end to end through ChatViewModel on the real worker thread: a send while an older page loads,
Stop during a read-back, a reply that ends while a compaction starts."""

from __future__ import annotations

from domain.events import CompactStarted, TextDelta
from tests.ui.fake_backend import FakeChatBackend
from tests.ui.gate import Gate
from tests.ui.test_chat_viewmodel import make_vm, opened
from ui.backend import ConversationPage
from ui.state.chat_state import Idle, ReadingBack, Ready


class SlowOlderBackend(FakeChatBackend):
    """Reads older pages slowly (a cold disk): a turn can start and stream meanwhile (until `older` opens)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.older = Gate()

    async def load_older(self, session_id: str, before_seq: int, limit: int) -> ConversationPage:
        await self.older.passed()
        return await super().load_older(session_id, before_seq, limit)


def settled(vm) -> bool:
    state = vm.state
    return isinstance(state, Ready) and isinstance(state.turn, Idle)


def test_a_send_while_an_older_page_loads_keeps_both(qtbot, worker) -> None:
    backend = SlowOlderBackend(keys={"anthropic": "sk-test"})
    texts = [f"message {i}" for i in range(260)]
    session = backend.add_session("Long", texts)
    gate = Gate()
    backend.scripts.append([TextDelta("Sure"), gate])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    assert vm.model.rowCount() == 121 and vm.state.has_older  # the newest page and "load older" above it
    vm.load_older()
    assert vm.send("new question")  # the older page is still on its way
    qtbot.waitUntil(lambda: vm.model.rows()[-1].text == "Sure")
    backend.older.open()  # and arrives while the reply streams
    qtbot.waitUntil(lambda: vm.model.rowCount() >= 240, timeout=3000)  # it arrived while the reply streams
    rows = vm.model.rows()
    assert vm.state.streaming and [r.text for r in rows[-2:]] == ["new question", "Sure"]
    assert rows[-2].message_id is None  # still the live rows, below the older page
    gate.open()
    qtbot.waitUntil(lambda: settled(vm), timeout=5000)
    rows = vm.model.rows()
    assert [r.text for r in rows[-2:]] == ["new question", "Sure"] and rows[-1].message_id is not None
    keys = [r.key for r in rows]
    assert len(keys) == len(set(keys)) and vm.state.message_count == 262


def test_stop_during_a_read_back_changes_nothing(qtbot, backend, worker) -> None:
    session = backend.add_session("Chat", ["Hi", "Hello"])
    backend.scripts.append([TextDelta("Done.")])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    backend.load_gate = read_back = Gate()  # the read-back is slow
    vm.send("One more")
    qtbot.waitUntil(lambda: isinstance(vm.state, Ready) and isinstance(vm.state.turn, ReadingBack), timeout=3000)
    vm.stop()  # nothing streams any more: nothing to stop
    assert isinstance(vm.state, Ready) and isinstance(vm.state.turn, ReadingBack)
    read_back.open()
    qtbot.waitUntil(lambda: settled(vm), timeout=3000)
    assert vm.state.error is None
    assert [r.text for r in vm.model.rows()] == ["Hi", "Hello", "One more", "Done."]
    assert not any(r.incomplete for r in vm.model.rows())


def test_a_reply_that_ends_while_a_compaction_starts_leaves_no_compaction_shown(qtbot, backend, worker) -> None:
    session = backend.add_session("Chat", ["Hi", "Hello"])
    backend.scripts.append([TextDelta("ok"), CompactStarted()])  # the stream ends before the compaction's end
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    seen: list[bool] = []
    vm.state_changed.connect(lambda state: seen.append(state.compacting))
    vm.send("Go")
    qtbot.waitUntil(lambda: settled(vm), timeout=3000)
    assert True in seen  # the compaction showed while the stream ran
    assert not vm.state.compacting and vm.state.error is None
    assert [r.text for r in vm.model.rows()][-2:] == ["Go", "ok"]


def test_an_error_arriving_after_stop_is_not_shown(qtbot, backend, worker) -> None:
    """The failure follows the first text at once, so it is usually already on its way to the GUI when Stop is
    pressed (from the state change the first text causes): either way the user stopped the reply, and no error
    shows."""
    from domain.events import ChatError
    from ui.models.chat_rows import RowKind
    from ui.state.chat_state import Streaming

    session = backend.add_session("Chat", ["Hi", "Hello"])
    backend.scripts.append([TextDelta("Part"), ChatError("server_error", "The provider failed.", True)])
    vm = make_vm(backend, worker)
    opened(qtbot, vm, session.id)
    vm.state_changed.connect(lambda state: vm.stop() if isinstance(state.current_turn, Streaming) else None)
    errors: list[str | None] = []
    vm.state_changed.connect(lambda state: errors.append(state.error))
    vm.send("Go")
    qtbot.waitUntil(lambda: settled(vm), timeout=3000)
    assert not any(errors) and vm.state.error is None
    assert not any(r.kind is RowKind.ERROR for r in vm.model.rows())
