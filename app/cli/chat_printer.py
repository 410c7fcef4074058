"""How a chat turn appears: the reply on standard output, notices on standard error, or JSON lines."""

from __future__ import annotations

from typing import TextIO

from app.cli.jsonl import dumps, event_record, session_record
from domain.events import (
    ChatError,
    ChatEvent,
    CompactCompleted,
    MemoryFlushed,
    ResponseComplete,
    TextDelta,
    ToolCallStarted,
    ToolResultStored,
    ToolRoundLimitReached,
)


class JsonlChatPrinter:
    """Writes every event as one JSON object per line, flushed at once."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def session(self, session_id: str) -> None:
        """The first line: the session of the turn."""
        self._write(dumps(session_record(session_id)))

    def event(self, event: ChatEvent) -> None:
        """One event line."""
        self._write(dumps(event_record(event)))

    def interrupted(self) -> None:
        """Nothing to add: the stream simply ends."""

    def _write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()


class TextChatPrinter:
    """Streams the reply text to `out`; tool calls, compactions and errors go to `err` as short notices."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out = out
        self._err = err
        self._at_line_start = True

    def session(self, session_id: str) -> None:
        """Nothing: the session line is printed by the command."""

    def event(self, event: ChatEvent) -> None:
        """Renders one event."""
        match event:
            case TextDelta(text=text):
                self._out.write(text)
                self._out.flush()
                if text:
                    self._at_line_start = text.endswith("\n")
            case ToolCallStarted(name=name):
                self._notice(f"[tool: {name}]")
            case ToolResultStored(name=name, chars=chars, truncated=truncated, is_error=is_error):
                what = "failed" if is_error else f"{chars} characters" + (", truncated" if truncated else "")
                self._notice(f"[tool {name}: {what}]")
            case CompactCompleted(did_compact=True, tokens_before=before, tokens_after=after):
                self._notice(f"[context compacted: {before} → {after} tokens]")
            case CompactCompleted(fallback=True):
                self._notice("[context compaction failed; the conversation continues unchanged]")
            case MemoryFlushed(saved_count=saved) if saved:
                self._notice(f"[saved {saved} memor{'y' if saved == 1 else 'ies'}]")
            case ToolRoundLimitReached(rounds=rounds):
                self._notice(f"[stopped after {rounds} tool rounds; send another message to continue]")
            case ChatError(message=message):
                self._end_reply()
                self._err.write(f"palimpsest: {message}\n")
                self._err.flush()
            case ResponseComplete():
                self._end_reply()

    def interrupted(self) -> None:
        """Ends the line and says the partial reply was kept."""
        self._end_reply()
        self._err.write("palimpsest: interrupted; the partial reply was kept.\n")
        self._err.flush()

    def _end_reply(self) -> None:
        if not self._at_line_start:
            self._out.write("\n")
            self._out.flush()
            self._at_line_start = True

    def _notice(self, text: str) -> None:
        self._end_reply()
        self._err.write(text + "\n")
        self._err.flush()
