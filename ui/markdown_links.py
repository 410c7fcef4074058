"""Bare URLs in Markdown prose made into links the way GitHub does: trailing punctuation is not part of the link.

`https://example.com/page.` links `https://example.com/page`; a closing parenthesis stays only when it balances one in
the URL (`https://en.wikipedia.org/wiki/Foo_(bar)`); an entity-like `&amp;` at the end is dropped. Code spans, existing
links (`[text](url)`, `<url>`) and HTML tags are left alone.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from domain.documents import CITATION, SECTION_CITATION

_PROTECTED = re.compile(
    r"(`+)(?:.|\n)*?(?<!`)\1(?!`)"  # a code span
    r"|!?\[[^\]\n]*\]\([^)\s]*(?:\([^)\s]*\)[^)\s]*)*\)"  # a Markdown link or image
    r"|<[^<>\s]+>"  # an autolink or an HTML tag
)
_BARE = re.compile(r"(?<![\w/@.:])(?:https?://|www\.)[^\s<>`]+", re.IGNORECASE)
_TRAILING = "?!.,:;*_~'\""
_ENTITY = re.compile(r"&[A-Za-z0-9]+;$")
_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>])")
CITE_SCHEME = "cite"
_ANY_CITATION = re.compile(f"{CITATION.pattern}|{SECTION_CITATION.pattern}")


def trim_url(url: str) -> str:
    """A bare URL without the punctuation that ends the sentence around it (GitHub's extended autolink rules)."""
    while url:
        entity = _ENTITY.search(url)
        if entity is not None:
            url = url[:entity.start()]
        elif url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url


def _link(match: re.Match[str]) -> str:
    raw = match.group(0)
    url = trim_url(raw)
    rest = raw[len(url):]
    host = url.split("//", 1)[-1].split("/", 1)[0]
    if not host or host.lower() == "www." or ("." not in host and url.lower().startswith("www.")):
        return raw  # no host: not a link
    if url.lower().startswith("www."):
        label = _MD_PUNCT.sub(r"\\\1", url)
        return f"[{label}](http://{url}){rest}"
    return f"<{url}>{rest}"


def link_bare_urls(text: str) -> str:
    """Prose with each bare http(s) or www. URL written as an explicit link, its trailing punctuation outside."""
    if "http" not in text.lower() and "www." not in text.lower():
        return text
    out: list[str] = []
    position = 0
    for match in _PROTECTED.finditer(text):
        out.append(_BARE.sub(_link, text[position:match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(_BARE.sub(_link, text[position:]))
    return "".join(out)


def _cite(match: re.Match[str]) -> str:
    if match.group(1) is None:  # a section citation: the file opens whole
        shown = _MD_PUNCT.sub(r"\\\1", match.group(0)[1:-1])
        return f"[\\[{shown}\\]]({CITE_SCHEME}:{quote(match.group(3))})"
    name, page = match.group(1), match.group(2)
    return f"[\\[{match.group(0)[1:-1]}\\]]({CITE_SCHEME}:{quote(name)}#page={page})"  # shown with its brackets


def link_citations(text: str) -> str:
    """Prose with each page citation `[manual.pdf p. 412]` written as a link to that page (`cite:manual.pdf#page=412`),
    each section citation `[notes.md § Setup]` as a link to the file (`cite:notes.md`); code spans and written links
    are left alone."""
    if " p. " not in text and " § " not in text:
        return text
    out: list[str] = []
    position = 0
    for match in _PROTECTED.finditer(text):
        out.append(_ANY_CITATION.sub(_cite, text[position:match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(_ANY_CITATION.sub(_cite, text[position:]))
    return "".join(out)


def citation_target(href: str) -> tuple[str, int | None] | None:
    """(document name, page or None for a section citation) of a citation link, or None for any other link."""
    if not href.startswith(f"{CITE_SCHEME}:"):
        return None
    name, marked, page = href[len(CITE_SCHEME) + 1:].partition("#page=")
    if not name or (marked and not page.isdigit()) or "#" in name:
        return None
    return unquote(name), int(page) if marked else None
