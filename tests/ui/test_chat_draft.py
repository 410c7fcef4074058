"""The composer's draft lives in the chat state (issue 26): what is typed, an edit taking the box and giving the draft
back, a message given back above it, and the draft kept while other conversations open. Plain reducer tests."""

from __future__ import annotations

from tests.ui.test_chat_reducer import STREAMING, opened, run
from ui.state import chat_events as ev
from ui.state.chat_reducer import reduce


def test_the_draft_is_what_was_typed_and_typing_the_same_text_changes_nothing() -> None:
    state = run([ev.DraftChanged("He"), ev.DraftChanged("Hello")])
    assert state.draft == "Hello" and state.composer.draft == "Hello"
    assert reduce(state, ev.DraftChanged("Hello")) is state  # the box set to the state's draft: no state emitted


def test_a_message_taken_from_the_composer_empties_the_draft() -> None:
    assert run([ev.DraftChanged("Hi"), ev.TurnStarted(), ev.DraftSent()]).draft == ""
    assert run([*STREAMING, ev.DraftChanged("next"), ev.MessageQueued("next"), ev.DraftSent()]).draft == ""


def test_an_edit_takes_the_box_and_cancelling_it_untouched_brings_the_draft_back() -> None:
    editing = run([ev.DraftChanged("half a thought"), ev.EditStarted("m1", "Plan four days in Lisbon")])
    assert editing.editing == "m1" and editing.draft == "Plan four days in Lisbon"
    cancelled = reduce(editing, ev.EditCancelled())
    assert cancelled.editing is None and cancelled.draft == "half a thought"


def test_text_typed_into_a_cancelled_edit_is_kept_below_the_draft_from_before() -> None:
    events = [ev.EditStarted("m1", "Plan four days"), ev.DraftChanged("Something else"), ev.EditCancelled()]
    assert run(events).draft == "Something else"
    assert run([ev.DraftChanged("half a thought"), *events]).draft == "half a thought\n\nSomething else"


def test_sending_an_edit_brings_back_the_draft_from_before_it() -> None:
    state = run([ev.DraftChanged("half a thought"), ev.EditStarted("m1", "Plan four days"),
                 ev.DraftChanged("Plan five days"), ev.TurnStarted(), ev.DraftSent()])
    assert state.editing is None and state.draft == "half a thought"


def test_a_second_edit_keeps_the_draft_from_before_the_first() -> None:
    state = run([ev.DraftChanged("mine"), ev.EditStarted("m1", "one"), ev.EditStarted("m3", "three"),
                 ev.EditCancelled()])
    assert state.draft == "mine"


def test_a_message_given_back_goes_above_what_was_typed_since() -> None:
    assert run([ev.DraftChanged("typed since"), ev.DraftReturned("refused")]).draft == "refused\n\ntyped since"
    assert run([ev.DraftChanged("  "), ev.DraftReturned("refused")]).draft == "refused"


def test_the_draft_survives_opening_another_conversation_and_coming_back() -> None:
    state = run([ev.DraftChanged("not sent yet"), ev.OpenStarted(), opened("s2"), ev.OpenStarted(), opened("s1")])
    assert state.draft == "not sent yet" and state.session is not None and state.session.id == "s1"
    assert run([ev.DraftChanged("not sent yet"), ev.Cleared()]).draft == "not sent yet"


def test_leaving_a_conversation_mid_edit_ends_the_edit_like_a_cancel() -> None:
    state = run([ev.DraftChanged("mine"), ev.EditStarted("m1", "old"), ev.OpenStarted(), opened("s2")])
    assert state.editing is None and state.draft == "mine"
