"""A JSON array read item by item with the standard library's decoder (json.JSONDecoder.raw_decode over a buffered
read of the bytes), so memory holds one item and the text read ahead of it, whatever the array's length; syntax errors
are placed at the line and column of the whole text, as json.loads places them."""

from __future__ import annotations

import codecs
import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from domain.importers.model import MalformedExport, too_deep

CHUNK = 1 << 20  # bytes read at a time (more while one item is larger than what is buffered)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_NEAR_END = 16  # an error this close to the end of the buffered text may only mean the item is not all read yet


class JsonItems:
    """The items of the top-level JSON array (or the one top-level value, when it may be something else) of the
    bytes `read` returns; `where_of(i)` names item i in a nesting refusal."""

    def __init__(self, read: Callable[[int], bytes], chunk: int = CHUNK) -> None:
        self._read, self._chunk = read, chunk
        self._decode_bytes = codecs.getincrementaldecoder("utf-8")()
        self._text, self._pos, self._eof = "", 0, False
        self._line, self._column = 1, 0  # where self._text starts in the whole text (column: characters into its line)

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end), left to be read."""
        while True:
            self._pos = _WHITESPACE.match(self._text, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._text) or self._eof:
                return self._text[self._pos:self._pos + 1]
            self._fill()

    def items(self, where: Callable[[int], str]) -> Iterator[Any]:
        """Each item of the array the text holds (its first character is "[") in turn."""
        if self.peek() != "[":
            raise self._error("Expecting '['", self._pos)
        self._pos += 1
        if self.peek() == "]":
            self._pos += 1
        else:
            for i in itertools.count():
                yield self.value(where(i))
                following = self.peek()
                self._pos += 1
                if following == "]":
                    break
                if following != ",":
                    self._pos -= 1
                    raise self._error("Expecting ',' delimiter", self._pos)
        self.end()

    def value(self, where: str) -> Any:
        """The next value, whole."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._text, self._pos)
            except json.JSONDecodeError as err:
                if self._eof or not (err.pos >= len(self._text) - _NEAR_END or err.msg.startswith("Unterminated")):
                    raise self._error(err.msg, err.pos) from None
            except RecursionError:
                raise too_deep(where) from None
            else:
                if end <= len(self._text) - _NEAR_END or self._eof:  # one ending near the end may be a cut number
                    self._pos = end
                    return value
            self._fill(max(self._chunk, 2 * (len(self._text) - self._pos)))

    def end(self) -> None:
        """MalformedExport unless only whitespace is left."""
        if self.peek():
            raise self._error("Extra data", self._pos)

    def _fill(self, size: int | None = None) -> None:
        """Drops the text already read and reads `size` more bytes (a chunk by default)."""
        done = self._text[:self._pos]
        lines = done.count("\n")
        self._line += lines
        self._column = len(done) - done.rfind("\n") - 1 if lines else self._column + len(done)
        data = self._read(size or self._chunk)
        self._eof = not data
        try:
            self._text = self._text[self._pos:] + self._decode_bytes.decode(data, final=self._eof)
        except UnicodeDecodeError:
            where = f"about line {self._line + self._text.count(chr(10), self._pos)}"
            raise MalformedExport(where, "text that is not UTF-8") from None
        self._pos = 0

    def _error(self, problem: str, pos: int) -> MalformedExport:
        line = self._line + self._text.count("\n", 0, pos)
        start = self._text.rfind("\n", 0, pos)
        column = pos - start if start >= 0 else self._column + pos + 1
        return MalformedExport(f"line {line}, column {column}", f"invalid JSON ({problem})")
