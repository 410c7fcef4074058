"""The chat screen's reducer, as plain unit tests over event sequences (no Qt): a table of sequences, the races of a
real event loop among them, and the rule that sends or returns a queued message when a turn ends."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest

from domain.attachment import Attachment, AttachmentKind
from domain.models import Session, SessionId
from ui.attachments_backend import AttachmentPreview
from ui.backend_types import Selection
from ui.state import chat_events as ev
from ui.state.chat_reducer import initial, reduce
from ui.state.chat_state import (
    ChatState,
    Compacting,
    Edit,
    Empty,
    Failed,
    Failing,
    Idle,
    Loading,
    ModelChoice,
    Queued,
    ReadingBack,
    Ready,
    Sending,
    Stopping,
    Streaming,
)
from ui.viewmodels.chat_queue import after_turn

NOW = datetime(2026, 1, 1, tzinfo=UTC)
CHOICE = ModelChoice(Selection("p", "m"), "m", "P")
PICKED = ev.ChoicesOffered((CHOICE,), (), None)


def session(sid: str = "s1", **changes: object) -> Session:
    """A stored session."""
    return dataclasses.replace(Session(SessionId(sid), "A chat", None, NOW, NOW, message_count=4), **changes)


def opened(sid: str = "s1", **changes: object) -> ev.PageOpened:
    """A page of a session read."""
    fields = {"summarized_count": 0, "total_count": 4, "has_older": False, "has_newer": False, **changes}
    return ev.PageOpened(session(sid), **fields)  # type: ignore[arg-type]


def preview(name: str = "a.png") -> AttachmentPreview:
    """A file taken in."""
    return AttachmentPreview(Attachment("0" * 64, name, "image/png", AttachmentKind.IMAGE, 10))


def run(events: Sequence[ev.ChatEvent], start: ChatState | None = None) -> ChatState:
    """The state after the events, from a screen whose pickers are filled and a session opened."""
    state = start if start is not None else reduce(reduce(initial(), PICKED), opened())
    for event in events:
        state = reduce(state, event)
    return state


STREAMING = (ev.TurnStarted(), ev.StreamActive())
EDIT = Edit("m1", "old")  # what EditStarted("m1", "old") opens in an empty composer
Check = Callable[[ChatState], bool]

SEQUENCES: list[tuple[str, Sequence[ev.ChatEvent], type, Check]] = [
    ("a send shows at once as Sending", [ev.TurnStarted()], Sending,
     lambda s: s.streaming and not s.can_send and s.error is None),
    ("the first event of the stream makes it Streaming", STREAMING, Streaming, lambda s: s.streaming),
    ("a reply that ends is read back, then idle", [*STREAMING, ev.StreamEnded(), ev.ReadBackDone()], Idle,
     lambda s: s.can_send and not s.streaming),
    ("during the read-back Send is on (the message is queued)", [*STREAMING, ev.StreamEnded()], ReadingBack,
     lambda s: s.can_send and s.reading_back),
    ("a compaction inside the turn, then the reply goes on",
     [*STREAMING, ev.CompactionStarted(), ev.CompactionEnded()], Streaming, lambda s: not s.compacting),
    ("race: the reply ends while a compaction starts",
     [*STREAMING, ev.CompactionStarted(), ev.StreamEnded()], ReadingBack,
     lambda s: not s.compacting and not s.streaming),
    ("race: the compaction's end arrives after the read-back began",
     [*STREAMING, ev.CompactionStarted(), ev.StreamEnded(), ev.CompactionEnded(), ev.ReadBackDone()], Idle,
     lambda s: not s.compacting),
    ("race: a compaction start arriving after the stream ended is not shown",
     [*STREAMING, ev.StreamEnded(), ev.CompactionStarted()], ReadingBack, lambda s: not s.compacting),
    ("Stop while streaming: Stopping, still offering nothing but Stop", [*STREAMING, ev.StopRequested()], Stopping,
     lambda s: s.streaming and not s.can_send),
    ("race: Stop during a read-back changes nothing",
     [*STREAMING, ev.StreamEnded(), ev.StopRequested(), ev.ReadBackDone()], Idle, lambda s: s.error is None),
    ("race: an error arriving after Stop is not shown",
     [*STREAMING, ev.StopRequested(), ev.ReplyFailed("cut"), ev.StreamEnded("cut")], ReadingBack,
     lambda s: s.error is None),
    ("race: Stop during a compaction inside the turn", [*STREAMING, ev.CompactionStarted(), ev.StopRequested()],
     Stopping, lambda s: not s.compacting),
    ("a failure shows at once and stays through the read-back",
     [*STREAMING, ev.ReplyFailed("boom"), ev.StreamEnded(), ev.ReadBackDone()], Failed, lambda s: s.error == "boom"),
    ("while the failed stream winds down Send waits", [*STREAMING, ev.ReplyFailed("boom")], Failing,
     lambda s: not s.can_send and s.error == "boom"),
    ("a stream that raises is read back with its error", [*STREAMING, ev.StreamEnded("lost")], ReadingBack,
     lambda s: s.error == "lost" and s.can_send),
    ("race: a turn asked for during the read-back (files alone, a regenerate) does not start",
     [*STREAMING, ev.StreamEnded(), ev.TurnStarted(files_sent=True)], ReadingBack,
     lambda s: not s.can_start_turn and s.can_send),
    ("a turn may start again once the read-back ended", [*STREAMING, ev.StreamEnded(), ev.ReadBackDone()], Idle,
     lambda s: s.can_start_turn),
    ("race: a send while an older page loads", [ev.TurnStarted(), ev.OlderPaged(has_older=False)], Sending,
     lambda s: not s.has_older),
    ("race: a send while another session loads is not taken", [ev.OpenStarted(), ev.TurnStarted()], Loading,
     lambda s: not s.streaming and not s.can_send),
    ("opening another session leaves the turn, the edit and the queue",
     [*STREAMING, ev.EditStarted("m1"), ev.MessageQueued("later"), ev.OpenStarted()], Loading,
     lambda s: s.editing is None and s.queued is None and s.session is not None),
    ("a page opened after leaving is idle", [*STREAMING, ev.OpenStarted(), opened("s2")], Idle,
     lambda s: s.session is not None and s.session.id == "s2"),
    ("a failed read keeps the conversation shown, with the error",
     [ev.OpenStarted(), ev.VerbFailed("disk")], Failed, lambda s: s.error == "disk" and s.session is not None),
    ("a failed verb while a turn streams leaves the turn alone", [*STREAMING, ev.VerbFailed("disk")], Streaming,
     lambda s: s.error is None),
    ("the provider's silence is counted, then data resets it", [ev.TurnStarted(), ev.ProviderWaiting(5)],
     Streaming, lambda s: s.waiting == 5),
    ("data after a silence", [ev.TurnStarted(), ev.ProviderWaiting(5), ev.StreamActive()], Streaming,
     lambda s: s.waiting == 0),
    ("a compaction the user asked for: Send waits, nothing to stop", [ev.CompactionStarted(in_turn=False)],
     Compacting, lambda s: s.compacting and not s.streaming and not s.can_send),
    ("a compaction the user asked for ends idle",
     [ev.CompactionStarted(in_turn=False), ev.CompactionEnded()], Idle, lambda s: s.can_send),
    ("a too-long message refused while idle shows why", [ev.Refused("too long")], Failed,
     lambda s: s.error == "too long"),
    ("a too-long message refused while streaming leaves the turn alone", [*STREAMING, ev.Refused("too long")],
     Streaming, lambda s: s.error is None),
    ("a new turn clears the error", [ev.Refused("too long"), ev.TurnStarted()], Sending, lambda s: s.error is None),
    ("an edit lasts until the composer's text is taken", [ev.EditStarted("m1"), ev.TurnStarted(), ev.DraftSent()],
     Sending, lambda s: s.editing is None),
    ("an edit is cancelled", [ev.EditStarted("m1"), ev.EditCancelled()], Idle, lambda s: s.editing is None),
    ("an edit shows", [ev.EditStarted("m1")], Idle, lambda s: s.editing == "m1"),
    ("files taken in and one refused", [ev.AttachStarted(), ev.AttachStarted(), ev.AttachEnded(preview()),
                                        ev.AttachEnded(None)], Idle,
     lambda s: s.attaching == 0 and len(s.pending) == 1),
    ("files sent with the message leave the composer",
     [ev.AttachStarted(), ev.AttachEnded(preview()), ev.TurnStarted(files_sent=True)], Sending,
     lambda s: s.pending == ()),
    ("the running turn's messages are counted, then read back",
     [*STREAMING, ev.LiveCounted(2), ev.StreamEnded(), ev.ReadBackDone()], Idle, lambda s: s.live_messages == 0),
    ("a window around a search hit cut by a new branch", [opened(has_newer=True), ev.PathCut(3)], Idle,
     lambda s: not s.has_newer and s.message_count == 3),
    # an edit and the queue: the queued message stays a new message, an edit stays an edit of its own target
    ("race: an edit started during a read-back while a message is queued leaves both as they are",
     [*STREAMING, ev.MessageQueued("later"), ev.StreamEnded(), ev.EditStarted("m1", "old"), ev.ReadBackDone()],
     Idle, lambda s: queue_is(s, "later", None) and s.editing == "m1" and s.draft == "old"),
    ("race: Stop, then an edit during the read-back while a message is queued",
     [*STREAMING, ev.MessageQueued("later"), ev.StopRequested(), ev.StreamEnded(), ev.EditStarted("m1", "old"),
      ev.ReadBackDone()], Idle, lambda s: queue_is(s, "later", None) and s.editing == "m1"),
    ("race: an edit during a compaction the user asked for while a message is queued",
     [ev.CompactionStarted(in_turn=False), ev.MessageQueued("later"), ev.EditStarted("m1", "old"),
      ev.CompactionEnded()], Idle, lambda s: queue_is(s, "later", None) and s.editing == "m1"),
    ("an edit sent during a read-back is queued as an edit of its target, and the edit bar closes",
     [*STREAMING, ev.StreamEnded(), ev.EditStarted("m1", "old"), ev.MessageQueued("new version", EDIT), ev.DraftSent(),
      ev.ReadBackDone()], Idle, lambda s: queue_is(s, "new version", "m1") and s.editing is None),
    ("an edit sent while a regenerated reply streams is queued as that edit",
     [ev.EditStarted("m1", "old"), *STREAMING, ev.MessageQueued("new version", EDIT), ev.DraftSent()], Streaming,
     lambda s: queue_is(s, "new version", "m1") and s.composer.queued.unseen),
    ("race: an edit sent while another message waits is not joined to it (it stays in the composer, an edit)",
     [*STREAMING, ev.MessageQueued("later"), ev.StreamEnded(), ev.EditStarted("m1", "old"),
      ev.MessageQueued("new version", EDIT)], ReadingBack, lambda s: queue_is(s, "later", None) and s.editing == "m1"),
    ("race: a message sent while an edit waits is not joined to the edit",
     [*STREAMING, ev.StreamEnded(), ev.EditStarted("m1", "old"), ev.MessageQueued("new version", EDIT), ev.DraftSent(),
      ev.MessageQueued("another")], ReadingBack, lambda s: queue_is(s, "new version", "m1")),
    ("race: a second edit of the same message sent while the first waits replaces nothing",
     [*STREAMING, ev.StreamEnded(), ev.EditStarted("m1", "old"), ev.MessageQueued("v2", EDIT), ev.DraftSent(),
      ev.EditStarted("m1", "old"), ev.MessageQueued("v3", EDIT)], ReadingBack,
     lambda s: queue_is(s, "v2", "m1") and s.editing == "m1"),
]


def queue_is(state: ChatState, text: str, edit_of: str | None) -> bool:
    """Whether the queue holds `text`, as a new message (`edit_of` None) or as an edit of that message."""
    queued = state.composer.queued
    edit = getattr(queued, "edit", "(the queue does not say)")
    return queued is not None and queued.text == text and (
        edit.message_id if isinstance(edit, Edit) else edit) == edit_of


@pytest.mark.parametrize(("name", "events", "turn", "check"), SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_sequences(name: str, events: Sequence[ev.ChatEvent], turn: type, check: Check) -> None:
    state = run(events)
    current = state.current_turn if isinstance(state, Ready) else None
    assert isinstance(state, Loading) if turn is Loading else isinstance(current, turn), (name, state)
    assert check(state), (name, state)


def test_a_first_message_whose_session_was_never_created_fails_without_a_read_back() -> None:
    state = run([ev.TurnStarted(), ev.StreamEnded("no key")], start=reduce(initial(), PICKED))
    assert isinstance(state, Ready) and state.turn == Failed("no key") and state.session is None


def test_a_failed_open_with_nothing_shown_is_an_empty_screen_with_the_error() -> None:
    state = run([ev.OpenStarted(), ev.VerbFailed("gone")], start=reduce(initial(), PICKED))
    assert isinstance(state, Empty) and state.error == "gone" and state.can_send


def test_a_new_chat_forgets_the_error_the_edit_and_the_reasoning_level() -> None:
    state = run([ev.Picked(reasoning="high", set_reasoning=True), ev.EditStarted("m1"), ev.Refused("x"),
                 ev.Cleared()])
    assert isinstance(state, Empty) and state.error is None and state.editing is None and state.reasoning is None


def test_a_page_read_before_the_newest_reasoning_choice_was_stored_keeps_that_choice() -> None:
    state = run([ev.Picked(reasoning="high", set_reasoning=True), opened(keep_reasoning=True)])
    assert state.reasoning == "high"
    assert run([ev.Picked(reasoning="high", set_reasoning=True), opened()]).reasoning is None


def test_a_message_typed_while_the_turn_ran_is_not_sent_behind_its_failure() -> None:
    state = run([*STREAMING, ev.MessageQueued("next"), ev.ReplyFailed("boom"), ev.StreamEnded(), ev.ReadBackDone()])
    assert state.composer.queued == Queued("next", unseen=True)
    assert not after_turn(state.composer.queued, failed=True, unsent=False)


def test_a_message_sent_after_the_error_was_on_screen_is_sent_once_the_read_back_ends() -> None:
    """Stop 22's race: Send comes back on as soon as the error shows, while the turn is still read back."""
    state = run([*STREAMING, ev.ReplyFailed("boom"), ev.StreamEnded(), ev.MessageQueued("next"), ev.ReadBackDone()])
    assert isinstance(state, Ready) and isinstance(state.turn, Failed)
    assert state.composer.queued == Queued("next", unseen=False)
    assert after_turn(state.composer.queued, failed=True, unsent=False)


def test_queued_messages_join_and_remember_any_part_typed_before_the_outcome() -> None:
    state = run([*STREAMING, ev.MessageQueued("one"), ev.StreamEnded(), ev.MessageQueued("two")])
    assert state.composer.queued == Queued("one\n\ntwo", unseen=True)
    assert not after_turn(state.composer.queued, failed=False, unsent=True)  # its turn's own message was not stored
    assert after_turn(state.composer.queued, failed=False, unsent=False)
    assert run([ev.MessageQueued("idle")]).queued is None  # nothing runs: nothing to queue behind


def test_a_queued_edit_withdrawn_comes_back_as_that_edit_and_nothing_typed_is_lost() -> None:
    state = run([ev.DraftChanged("mine"), *STREAMING, ev.StreamEnded(), ev.EditStarted("m1", "old"),
                 ev.DraftChanged("new version"), ev.MessageQueued("new version", EDIT), ev.DraftSent()])
    queued = state.composer.queued
    assert queued is not None and state.draft == "mine" and state.editing is None
    back = reduce(reduce(state, ev.QueueEmptied()), ev.DraftReturned(queued.text, edit=queued.edit))
    assert back.editing == "m1" and back.draft == "new version"  # Send makes it a new version of m1 again
    assert reduce(back, ev.EditCancelled()).draft == "mine\n\nnew version"
    other = run([ev.EditStarted("m3", "three"), ev.DraftReturned(queued.text, edit=queued.edit)])
    assert other.editing == "m3" and other.draft == "new version\n\nthree"  # one edit at a time: the text above


def test_the_state_cannot_be_written_in_place() -> None:
    state = run(STREAMING)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.turn = Idle()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.streaming = False  # type: ignore[misc]


EVENTS: list[ev.ChatEvent] = [
    ev.TurnStarted(), ev.TurnStarted(files_sent=True), ev.StreamActive(), ev.ProviderWaiting(3),
    ev.ReplyFailed("boom"), ev.CompactionStarted(), ev.CompactionStarted(in_turn=False), ev.CompactionEnded(),
    ev.StopRequested(), ev.StreamEnded(), ev.StreamEnded("lost"), ev.ReadBackDone(), ev.OpenStarted(),
    ev.OpenStarted(leave=False), opened(), opened("s2", has_newer=True), ev.VerbFailed("disk"), ev.Refused("long"),
    ev.MessageQueued("q"), ev.MessageQueued("q", EDIT), ev.DraftReturned("back", EDIT), ev.QueueEmptied(),
    ev.EditStarted("m", "old"), ev.EditCancelled(), ev.AttachStarted(),
    ev.DraftChanged("typed"), ev.DraftSent(), ev.DraftReturned("back"),
    ev.AttachEnded(None), ev.Cleared(), ev.OlderPaged(True), ev.LiveCounted(2), ev.PathCut(1),
]


def test_any_sequence_of_events_ends_in_a_state_that_can_happen() -> None:
    """A thousand random walks: whatever the order, the views agree with each other (no Stop offered while idle,
    no Send while streaming, an error only with a failed turn)."""
    rng = random.Random(26)
    for _ in range(1000):
        state: ChatState = reduce(initial(), PICKED)
        for _step in range(30):
            state = reduce(state, rng.choice(EVENTS))
            assert not (state.streaming and state.can_send)
            assert not (state.loading and (state.streaming or state.compacting))
            turn = state.current_turn
            if state.error is not None:
                assert isinstance(turn, Failed | Failing | ReadingBack) or isinstance(state, Empty)
            assert state.attaching >= 0
            if isinstance(turn, Streaming | Sending | Stopping | Failing):
                assert state.streaming
