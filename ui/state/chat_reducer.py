"""The chat screen's one pure function: `reduce(state, event) -> state` (no Qt, no timers, no I/O).

An event that does not apply to the state it meets (a late stream event after Stop, a compaction's end after the
turn ended) leaves the state as it is: the races of a real event loop end in a state that can happen."""

from __future__ import annotations

from dataclasses import replace

from ui.attachments_backend import AttachmentPreview
from ui.backend_types import Selection
from ui.state.chat_events import (
    AttachEnded,
    AttachStarted,
    ChatEvent,
    ChoicesOffered,
    Cleared,
    CompactionEnded,
    CompactionStarted,
    DraftChanged,
    DraftReturned,
    DraftSent,
    EditCancelled,
    EditStarted,
    IndexingChanged,
    LiveCounted,
    Measured,
    MessageQueued,
    NewerPaged,
    OlderPaged,
    OpenStarted,
    OriginalsShown,
    PageOpened,
    PathCut,
    PendingChanged,
    Picked,
    ProviderWaiting,
    QueueEmptied,
    ReadBackDone,
    Refused,
    ReplyFailed,
    SessionUpdated,
    StopRequested,
    StreamActive,
    StreamEnded,
    TurnStarted,
    VerbFailed,
)
from ui.state.chat_state import (
    RUNNING,
    ChatState,
    Compacting,
    Composer,
    Conversation,
    Edit,
    Empty,
    Failed,
    Failing,
    Header,
    Idle,
    Loading,
    Queued,
    ReadingBack,
    Ready,
    Sending,
    Stopping,
    Turn,
)
from ui.state.chat_turn import next_turn

__all__ = ["initial", "reduce"]


def initial() -> ChatState:
    """The screen before anything happened: a new chat, no pickers filled."""
    return Empty()


def reduce(state: ChatState, event: ChatEvent) -> ChatState:
    """The state after `event`."""
    match event:
        case ChoicesOffered() | Picked():
            return replace(state, header=_header(state.header, event))
        case Cleared():
            header = replace(state.header, reasoning=None, web_search=None)
            return Empty(header=header, composer=replace(_edit_ended(state.composer), queued=None))
        case OpenStarted(leave=leave):
            previous = state.shown
            if leave and previous is not None:
                previous = replace(previous, show_originals=False)
            composer = replace(_edit_ended(state.composer), queued=None) if leave else state.composer
            return Loading(header=state.header, composer=composer, previous=previous)
        case PageOpened():
            return _opened(state, event)
        case VerbFailed(error=error):
            return _failed(state, error)
        case Refused(error=error):
            return _refused(state, error)
        case TurnStarted(files_sent=files_sent):
            return _turn_started(state, files_sent)
        case MessageQueued(text=text, edit=edit):
            return _queued(state, text, edit)
        case QueueEmptied():
            return replace(state, composer=replace(state.composer, queued=None))
        case DraftChanged(text=text):
            return state if text == state.composer.draft else replace(state, composer=replace(state.composer,
                                                                                             draft=text))
        case DraftSent():
            edit = state.composer.edit
            draft = edit.before if edit is not None else ""
            return replace(state, composer=replace(state.composer, draft=draft, edit=None))
        case DraftReturned(text=text, edit=edit):
            return replace(state, composer=_returned(state.composer, text, edit))
        case EditStarted(message_id=message_id, text=text):
            composer = state.composer
            before = composer.edit.before if composer.edit is not None else composer.draft
            return replace(state, composer=replace(composer, draft=text, edit=Edit(message_id, text, before)))
        case EditCancelled():
            return replace(state, composer=_edit_ended(state.composer))
        case AttachStarted():
            return replace(state, composer=replace(state.composer, attaching=state.composer.attaching + 1))
        case AttachEnded(preview=preview):
            return replace(state, composer=_attached(state.composer, preview))
        case IndexingChanged(name=name, started=started):
            indexing = state.composer.indexing
            indexing = (*indexing, name) if started else tuple(n for n in indexing if n != name)
            return replace(state, composer=replace(state.composer, indexing=indexing))
        case PendingChanged(pending=pending):
            return replace(state, composer=replace(state.composer, pending=pending))
        case SessionUpdated(session=session, reasoning=reasoning):
            header = replace(state.header, reasoning=session.reasoning) if reasoning else state.header
            return replace(_conversation(state, session=session), header=header)
        case Measured(context=context, usage=usage, mcp_servers=servers):
            changes = {name: value for name, value in (("context", context), ("usage", usage),
                                                       ("mcp_servers", servers)) if value is not None}
            return _conversation(state, **changes)
        case OlderPaged(has_older=has_older):
            return _conversation(state, has_older=has_older)
        case NewerPaged(has_newer=has_newer, total_count=total):
            return _conversation(state, has_newer=has_newer, path_messages=total)
        case OriginalsShown(show=show):
            return _conversation(state, show_originals=show)
        case PathCut(path_messages=path):
            return _conversation(state, has_newer=False, path_messages=path)
        case LiveCounted(count=count):
            return _conversation(state, live_messages=count)
        case StreamEnded(error=error) if isinstance(state, Ready):
            return _stream_ended(state, error)
        case ReadBackDone() if isinstance(state, Ready) and isinstance(state.turn, ReadingBack):
            error = state.turn.error
            return replace(state, turn=Failed(error) if error else Idle(),
                           conversation=replace(state.conversation, live_messages=0))
        case StreamActive() | ProviderWaiting() | ReplyFailed() | CompactionStarted() | CompactionEnded() | \
                StopRequested() if isinstance(state, Ready):
            turn = next_turn(state.turn, event)
            return state if turn == state.turn else replace(state, turn=turn)
    return state


def _header(header: Header, event: ChoicesOffered | Picked) -> Header:
    if isinstance(event, Picked):
        return replace(
            header,
            selection=event.selection if event.selection is not None else header.selection,
            agent_id=event.agent_id if event.agent_id is not None else header.agent_id,
            reasoning=event.reasoning if event.set_reasoning else header.reasoning,
            web_search=event.web_search if event.set_web_search else header.web_search,
        )
    selection = header.selection
    if selection is None or all(c.selection != selection for c in event.choices):
        selection = event.default if event.default is not None else (
            event.choices[0].selection if event.choices else None)
    agent_id = header.agent_id or (event.agents[0].id if event.agents else None)
    return replace(header, choices=event.choices, agents=event.agents, selection=selection, agent_id=agent_id)


def _opened(state: ChatState, event: PageOpened) -> Ready:
    session = event.session
    header = state.header
    if session.current_provider_id and session.current_model_id:
        header = replace(header, selection=Selection(session.current_provider_id, session.current_model_id))
    header = replace(header, agent_id=session.current_agent_id or header.agent_id,
                     reasoning=header.reasoning if event.keep_reasoning else session.reasoning)
    shown = state.shown or Conversation()
    conversation = replace(shown, session=session, summarized_count=event.summarized_count,
                           path_messages=event.total_count, has_older=event.has_older, has_newer=event.has_newer)
    turn: Turn = state.turn if isinstance(state, Ready) else Idle()
    return Ready(header=header, conversation=conversation, turn=turn, composer=state.composer)


def _failed(state: ChatState, error: str) -> ChatState:
    if isinstance(state, Loading):
        if state.previous is None:
            return Empty(header=state.header, composer=state.composer, failure=error)
        return Ready(header=state.header, conversation=state.previous, turn=Failed(error), composer=state.composer)
    if isinstance(state, Empty):
        return replace(state, failure=error)
    turn = state.turn
    if isinstance(turn, Idle | Failed) or (isinstance(turn, Compacting) and not turn.in_turn):
        return replace(state, turn=Failed(error))
    return state  # a turn runs: it keeps the screen (the error is told in the snackbar)


def _refused(state: ChatState, error: str) -> ChatState:
    if isinstance(state, Empty):
        return replace(state, failure=error)
    if isinstance(state, Ready) and isinstance(state.turn, Idle | Failed):
        return replace(state, turn=Failed(error))
    return state


def _turn_started(state: ChatState, files_sent: bool) -> ChatState:
    if isinstance(state, Loading) or (isinstance(state, Ready) and not isinstance(state.turn, Idle | Failed)):
        return state
    composer = replace(state.composer, pending=() if files_sent else state.composer.pending)
    conversation = state.conversation if isinstance(state, Ready) else Conversation()
    return Ready(header=state.header, conversation=replace(conversation, live_messages=0), turn=Sending(),
                 composer=composer)


def _queued(state: ChatState, text: str, edit: Edit | None) -> ChatState:
    if not isinstance(state, Ready) or isinstance(state.turn, Idle | Failed):
        return state
    running = isinstance(state.turn, RUNNING)
    before = state.composer.queued
    if before is None:
        queued = Queued(text, running, edit)
    elif before.edit is None and edit is None:
        queued = Queued(f"{before.text}\n\n{text}", before.unseen or running)
    else:  # an edit and another message are two turns: the second stays in the composer until the first has gone
        return state
    return replace(state, composer=replace(state.composer, queued=queued))


def _above(text: str, draft: str) -> str:
    """A message put back above what the box holds now (nothing typed is lost)."""
    return f"{text}\n\n{draft}" if draft.strip() else text


def _returned(composer: Composer, text: str, edit: Edit | None) -> Composer:
    """A message given back: an edit reopens (the draft typed since comes back after it), else the text goes above."""
    if edit is not None and composer.edit is None:
        return replace(composer, draft=text, edit=replace(edit, before=composer.draft))
    return replace(composer, draft=_above(text, composer.draft))


def _edit_ended(composer: Composer) -> Composer:
    """An edit cancelled: the draft from before comes back; text typed into the edit is kept below it."""
    edit = composer.edit
    if edit is None:
        return composer
    if composer.draft == edit.text:  # left untouched: nothing of the edit stays to be sent by mistake
        draft = edit.before
    else:
        draft = _above(edit.before, composer.draft) if edit.before.strip() else composer.draft
    return replace(composer, draft=draft, edit=None)


def _attached(composer: Composer, preview: AttachmentPreview | None) -> Composer:
    attaching = max(0, composer.attaching - 1)
    if preview is None:
        return replace(composer, attaching=attaching)
    return replace(composer, attaching=attaching, pending=(*composer.pending, preview))


def _conversation(state: ChatState, **changes: object) -> ChatState:
    shown = state.shown
    if shown is None or all(getattr(shown, name) == value for name, value in changes.items()):
        return state  # nothing changes: the same state (the view model emits nothing)
    if isinstance(state, Ready):
        return replace(state, conversation=replace(state.conversation, **changes))  # type: ignore[arg-type]
    if isinstance(state, Loading) and state.previous is not None:
        return replace(state, previous=replace(state.previous, **changes))  # type: ignore[arg-type]
    return state


def _stream_ended(state: Ready, error: str | None) -> ChatState:
    turn = state.turn
    if not isinstance(turn, RUNNING):
        return state
    if isinstance(turn, Stopping):
        error = None  # what a stopped stream still reports is not shown
    elif isinstance(turn, Failing):
        error = turn.error
    if state.conversation.session is None:  # the session was never created: nothing to read back
        return replace(state, turn=Failed(error) if error else Idle())
    return replace(state, turn=ReadingBack(error))

