"""Reduces HTML to readable text in bounded memory: a small scanner that never keeps attributes or whole text nodes."""

from __future__ import annotations

import html as html_lib
import re

_SKIP = frozenset({"svg", "template", "math"})  # hidden, with nested markup
_RAW_SKIP = frozenset({"script", "style", "noscript", "xmp", "iframe", "noembed", "noframes"})  # hidden raw text
_BLOCK = frozenset({
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header", "footer", "nav",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr", "main", "aside", "dd", "dt", "title", "form",
})
_NAME = re.compile(r"([a-zA-Z][a-zA-Z0-9]{0,15})([^\s/>]?)")
# The rest of a tag up to its `>`, quoted values may hold `>`; possessive, so a million attributes cost no memory.
_TAG_REST = re.compile(r"""[^"'>]*+(?:(?:"[^"]*+"|'[^']*+')[^"'>]*+)*+>""")
_RAW_END = {name: re.compile(rf"</{name}[\s/>]", re.IGNORECASE) for name in (*_RAW_SKIP, "title")}
_SPACES = re.compile(r"[^\S\n]+")
_WINDOW = 64 * 1024
_TITLE_MAX = 1000
_PARTS_PER_CHUNK = 512


class _Writer:
    """Collects output text with whitespace collapsed as it goes; small pieces are appended in batches."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._parts_chars = 0
        self._done = ""
        self._newlines = 0
        self._space = False
        self._started = False

    def newline(self) -> None:
        self._newlines += 1
        self._space = False

    def text(self, text: str) -> None:
        for i, line in enumerate(text.split("\n")):
            if i:
                self.newline()
            collapsed = _SPACES.sub(" ", line)
            words = collapsed.strip(" ")
            if not words:
                self._space = self._space or bool(collapsed)
                continue
            self._space = self._space or collapsed[0] == " "
            self._emit(words)
            self._space = collapsed[-1] == " "

    def _emit(self, words: str) -> None:
        if self._started and self._newlines:
            self._parts.append("\n" * min(self._newlines, 2))
        elif self._started and self._space:
            self._parts.append(" ")
        self._parts.append(words)
        self._parts_chars += len(words)
        self._started, self._newlines, self._space = True, 0, False
        if len(self._parts) >= _PARTS_PER_CHUNK or self._parts_chars >= _WINDOW:
            self._flush()

    def _flush(self) -> None:
        # `done` is the only reference while it grows, so CPython extends it in place instead of copying it
        done, self._done = self._done, ""
        done += "".join(self._parts)
        self._done = done
        self._parts.clear()
        self._parts_chars = 0

    def result(self) -> str:
        self._flush()
        return self._done


class _Scanner:
    """Walks the document once, tag by tag; text is read in windows of at most 64 KiB."""

    def __init__(self, document: str) -> None:
        self.doc = document
        self.out = _Writer()
        self.title = ""
        self._skip_depth = 0

    def run(self) -> None:
        doc, pos, end = self.doc, 0, len(self.doc)
        while pos < end:
            lt = doc.find("<", pos)
            if lt < 0:
                lt = end
            if lt > pos and not self._skip_depth:
                self._text(pos, lt)
            pos = self._markup(lt) if lt < end else end

    def _text(self, start: int, stop: int) -> None:
        while start < stop:
            cut = min(start + _WINDOW, stop)
            if cut < stop:  # do not cut a character reference in two
                amp = self.doc.rfind("&", max(start, cut - 32), cut)
                if amp > start and ";" not in self.doc[amp:cut]:
                    cut = amp
            piece = self.doc[start:cut]
            self.out.text(html_lib.unescape(piece) if "&" in piece else piece)
            start = cut

    def _markup(self, lt: int) -> int:
        """Handles the markup at `lt` (a `<`); returns where scanning goes on."""
        doc = self.doc
        if doc.startswith("<!--", lt):
            close = doc.find("-->", lt + 4)
            return len(doc) if close < 0 else close + 3
        closing = doc.startswith("</", lt)
        name = _NAME.match(doc, lt + 2 if closing else lt + 1)
        if name is None:
            if doc.startswith(("<!", "<?", "</"), lt):  # declarations, processing instructions, bogus comments
                close = doc.find(">", lt)
                return len(doc) if close < 0 else close + 1
            if not self._skip_depth:
                self.out.text("<")
            return lt + 1
        tag = "" if name.group(2) else name.group(1).lower()  # longer names are none we know
        rest = _TAG_REST.match(doc, name.end(1))
        if rest is not None:
            after, self_closing = rest.end(), doc[rest.end() - 2] == "/"
        else:  # an unterminated quote: end at the next `>`, as lenient parsers do
            close = doc.find(">", name.end(1))
            after, self_closing = (len(doc) if close < 0 else close + 1), False
        if closing:
            self._end_tag(tag)
            return after
        return self._start_tag(tag, after, self_closing)

    def _start_tag(self, tag: str, after: int, self_closing: bool) -> int:
        if tag in _SKIP and not self_closing:
            self._skip_depth += 1
        if self._skip_depth:
            return after
        if tag in _BLOCK:
            self.out.newline()
        if tag in _RAW_SKIP or tag == "title":
            found = _RAW_END[tag].search(self.doc, after)
            stop = len(self.doc) if found is None else found.start()
            if tag == "title" and not self.title:
                self.title = " ".join(html_lib.unescape(self.doc[after:min(stop, after + _TITLE_MAX)]).split())
            return stop
        return after

    def _end_tag(self, tag: str) -> None:
        if tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        elif tag in _BLOCK and not self._skip_depth:
            self.out.newline()


def html_to_text(html: str) -> str:
    """The readable text of an HTML document: title first, whitespace collapsed, blank runs squeezed.

    Memory stays near the size of the text produced: attributes are skipped unread, text goes through in windows.
    """
    scanner = _Scanner(html)
    scanner.run()
    body = scanner.out.result()
    return f"{scanner.title}\n\n{body}" if scanner.title else body


def looks_like_html(content_type: str, text: str) -> bool:
    """True when the content type says HTML, or an untyped body starts like an HTML document."""
    if "html" in content_type.lower():
        return True
    if content_type.strip():
        return False
    head = text[:512].lstrip().lower()
    return head.startswith("<!doctype html") or head.startswith("<html")
