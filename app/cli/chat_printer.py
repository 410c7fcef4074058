"""How a chat turn appears: the reply on standard output, notices on standard error, or JSON lines."""

from __future__ import annotations

from typing import TextIO

from app.cli.error_text import cli_text
from app.cli.jsonl import dumps, event_record, session_record
from app.cli.web_cmd import citation_records, sources_block
from domain.errors import ModelRetired
from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    MemoryFlushed,
    Notice,
    ResponseComplete,
    SourcesCited,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolProgress,
    ToolResultStored,
    ToolRoundLimitReached,
    Waiting,
)

DIM, RESET, CLEAR_LINE = "\x1b[2m", "\x1b[0m", "\r\x1b[2K"
WAITING_LINE_EVERY_S = 30  # without a terminal, a wait is reported at once, then at most every this many seconds


class JsonlChatPrinter:
    """Writes every event as one JSON object per line, flushed at once."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def session(self, session_id: str) -> None:
        """The first line: the session of the turn."""
        self._write(dumps(session_record(session_id)))

    def event(self, event: ChatEvent) -> None:
        """One event line (a reply's sources: one `citation` line each)."""
        if isinstance(event, SourcesCited):
            for record in citation_records(event.message_id, event.record):
                self._write(dumps(record))
            return
        self._write(dumps(event_record(event)))

    def interrupted(self) -> None:
        """Nothing to add: the stream simply ends."""

    def _write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()


class TextChatPrinter:
    """Streams the reply text to `out`; tool calls, compactions and errors go to `err` as short notices."""

    def __init__(self, out: TextIO, err: TextIO, *, show_thinking: bool = False) -> None:
        self._out = out
        self._err = err
        self._show_thinking = show_thinking  # the model's reasoning on stderr (dimmed on a terminal)
        self._thinking_open = False
        self._at_line_start = True
        self._terminal = err.isatty()
        self._reply_on_terminal = out.isatty()  # then the reply and the status share the screen
        self._waiting_shown: int | None = None  # seconds of the silence last reported
        self._status_line = False  # a dimmed "waiting" line is on the terminal, to be cleared
        self._reply_printed = False  # text of the reply under way was printed (an error then cut it off)
        self._session_id: str | None = None

    def session(self, session_id: str) -> None:
        """Prints nothing (the command prints the session line); kept for the commands an error suggests."""
        self._session_id = session_id

    def event(self, event: ChatEvent) -> None:
        """Renders one event."""
        if isinstance(event, Waiting):
            self._waiting(event.seconds)
            return
        self._clear_status()
        if isinstance(event, ThinkingDelta):
            if self._show_thinking and event.text:
                self._thinking(event.text)
            return
        if self._thinking_open:
            self._err.write((RESET if self._terminal else "") + "\n")
            self._thinking_open = False
        match event:
            case TextDelta(text=text):
                self._reply_printed = self._reply_printed or bool(text.strip())
                self._out.write(text)
                self._out.flush()
                if text:
                    self._at_line_start = text.endswith("\n")
            case ToolCallStarted(name=name):
                self._reply_printed = False
                self._notice(f"[tool: {name}]")
            case ToolProgress(name=name):
                self._notice(f"[tool {name}: {event.text}]")
            case ToolResultStored(name=name, chars=chars, truncated=truncated, is_error=is_error):
                what = "failed" if is_error else f"{chars} characters" + (", truncated" if truncated else "")
                if event.images:
                    what += f", {event.images} image{'s' if event.images != 1 else ''}"
                self._notice(f"[tool {name}: {what}]")
            case CompactCompleted(did_compact=True, tokens_before=before, tokens_after=after):
                self._notice(f"[context compacted: {before} → {after} tokens]")
            case CompactCompleted(fallback=True):
                self._notice("[context compaction failed; the conversation continues unchanged]")
            case MemoryFlushed(saved_count=saved) if saved:
                self._notice(f"[saved {saved} memor{'y' if saved == 1 else 'ies'}]")
            case ToolRoundLimitReached(rounds=rounds):
                self._notice(f"[stopped after {rounds} tool rounds; send another message to continue]")
            case Notice(message=message, warning=True, guessed_window_of=str(model_id)):
                self._notice(f"palimpsest: warning: {message} Undo with: palimpsest models set-window {model_id} auto")
            case Notice(message=message, warning=True):
                self._notice(f"palimpsest: warning: {message}")
            case Notice(message=message):
                self._notice(f"[{message}]")
            case ChatError(message=message, error=error):
                self._end_reply()
                text = cli_text(error, cut_off=self._reply_printed) if error is not None else message
                if isinstance(error, ModelRetired) and self._session_id:
                    model = error.successor or "MODEL"
                    text += f" Retry with: palimpsest chat -s {self._session_id} -m {model} --retry"
                    if not error.successor:  # the vendor named none here: its live models, from its own list
                        text += f" (models: palimpsest models list -p {error.provider_id} --refresh)"
                self._err.write(f"palimpsest: {text}\n")
                self._err.flush()
            case ResponseComplete():
                self._reply_printed = False
                self._end_reply()
            case SourcesCited(record=record) if sources_block(record):
                self._end_reply()
                self._out.write("\n" + sources_block(record) + "\n")
                self._out.flush()

    def _thinking(self, text: str) -> None:
        if not self._thinking_open:
            self._err.write((DIM if self._terminal else "") + "[thinking] ")
            self._thinking_open = True
        self._err.write(text)
        self._err.flush()

    def interrupted(self) -> None:
        """Ends the line and says the partial reply was kept."""
        self._clear_status()
        self._end_reply()
        self._err.write("palimpsest: interrupted; the partial reply was kept.\n")
        self._err.flush()

    def _end_reply(self) -> None:
        if not self._at_line_start:
            self._out.write("\n")
            self._out.flush()
            self._at_line_start = True

    def _waiting(self, seconds: int) -> None:
        """Says the provider has been silent for `seconds` (0: data arrives again). On a terminal, one dimmed line
        on standard error, updated in place and cleared when data arrives, never in the middle of a line of the
        reply on the same screen; without a terminal, a plain line at once and then every 30 s of the silence."""
        if seconds <= 0:
            self._clear_status()
            return
        text = f"waiting for the provider… {seconds} s"
        if self._terminal:
            if self._at_line_start or not self._reply_on_terminal:
                self._err.write(f"{CLEAR_LINE}{DIM}{text}{RESET}")
                self._err.flush()
                self._status_line = True
        elif self._waiting_shown is None or _period(seconds) > _period(self._waiting_shown):
            self._err.write(f"[{text}]\n")
            self._err.flush()
        self._waiting_shown = seconds

    def _clear_status(self) -> None:
        self._waiting_shown = None
        if self._status_line:
            self._err.write(CLEAR_LINE)
            self._err.flush()
            self._status_line = False

    def _notice(self, text: str) -> None:
        self._end_reply()
        self._err.write(text + "\n")
        self._err.flush()


def _period(seconds: int) -> int:
    return seconds // WAITING_LINE_EVERY_S
