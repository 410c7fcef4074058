"""TeX math in Markdown prose, without a math renderer: inline math becomes a code span, display math a code box.

Delimiters: `$…$` and `\\(…\\)` inline, `$$…$$` and `\\[…\\]` for display. Like pandoc, an inline `$` must be followed
by a non-space, its closing `$` preceded by a non-space and not followed by a digit, so "$5 or $10" stays prose.
Code spans are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Placeholder = Callable[[str, str], "str | None"]  # (TeX, source as written) -> the text standing for its image

_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_DISPLAY = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|\\\[(.+?)\\\]", re.DOTALL)
_INLINE = re.compile(r"(?<![\\$\w])\$(?=[^\s$])((?:\\.|[^$\n])*?[^\s\\$])\$(?![\d$])|\\\((.+?)\\\)")


def code_span(text: str) -> str:
    """Text as a Markdown code span (enough backticks that any inside it stay literal)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _outside_code_spans(text: str) -> list[tuple[str, bool]]:
    """The text cut into (piece, is_code_span) runs."""
    pieces: list[tuple[str, bool]] = []
    position = 0
    for match in _CODE_SPAN.finditer(text):
        if match.start() > position:
            pieces.append((text[position:match.start()], False))
        pieces.append((match.group(0), True))
        position = match.end()
    if position < len(text):
        pieces.append((text[position:], False))
    return pieces


def inline_math_as_code(text: str, placeholder: Placeholder | None = None) -> str:
    """Prose with each inline formula turned into a code span (monospace, source kept), or into what `placeholder`
    returns for it (a mark replaced by the formula's image once the Markdown is laid out)."""
    if "$" not in text and "\\(" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        tex = (match.group(1) or match.group(2)).strip()
        mark = placeholder(tex, match.group(0)) if placeholder is not None else None
        return mark if mark is not None else code_span(tex)

    out = []
    for piece, is_code in _outside_code_spans(text):
        out.append(piece if is_code else _INLINE.sub(replace, piece))
    return "".join(out)


def split_display_math(text: str) -> list[tuple[str, bool]]:
    """Prose cut into (prose, False) and (formula, True) runs at display-math delimiters outside code spans."""
    if "$$" not in text and "\\[" not in text:
        return [(text, False)]
    runs: list[tuple[str, bool]] = []
    prose = ""
    for piece, is_code in _outside_code_spans(text):
        if is_code:
            prose += piece
            continue
        position = 0
        for match in _DISPLAY.finditer(piece):
            prose += piece[position:match.start()]
            runs.append((prose, False))
            runs.append(((match.group(1) or match.group(2) or "").strip(), True))
            prose = ""
            position = match.end()
        prose += piece[position:]
    runs.append((prose, False))
    return [(t, formula) for t, formula in runs if formula or t.strip()]
