"""html_to_text: readable text out of HTML, in memory bounded by the body's size even with a million attributes."""

from __future__ import annotations

import importlib
import tracemalloc
from collections.abc import Callable

import pytest

from data.tools.html_text import html_to_text
from data.tools.http_request import HttpRequestTool
from domain.provider_ports import ToolContext
from tests.tools.http_server import RecordingServer, Route


def peak_bytes(work: Callable[[], object]) -> int:
    """The most memory allocated at once while `work` runs (what already existed is not counted)."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_scripts_styles_comments_and_hidden_elements_are_dropped() -> None:
    page = """<!doctype html><html><head><title> Tide   tables &amp; more</title>
    <style>p { color: red }</style><script>var s = "</p> secret";</script></head><body>
    <h1 class="a>b" data-x='>'>High water</h1><!-- a comment --><p>At 06:12 &amp; 18:40.</p>
    <noscript>enable js</noscript><svg><title>icon</title><text>drawn</text></svg><template><p>later</p></template>
    <SCRIPT type="module">hidden()</script>a &lt; b<br/>done</body></html>"""
    text = html_to_text(page)
    assert text == "Tide tables & more\n\nHigh water\n\nAt 06:12 & 18:40.\n\na < b\ndone"


def test_whitespace_collapses_and_blank_runs_shrink_to_one_blank_line() -> None:
    assert html_to_text("<p>one   two\t three</p>\n\n\n<p>four</p><div></div><div></div><p>five</p>") == \
        "one two three\n\nfour\n\nfive"
    assert html_to_text("<pre>line 1\n   line 2</pre>") == "line 1\nline 2"
    assert html_to_text("<b>bold</b><i>italic</i> and <a href='x'>link</a>") == "bolditalic and link"


def test_broken_markup_still_gives_the_text() -> None:
    assert html_to_text("<p>x < y and 3<4</p>") == "x < y and 3<4"
    assert html_to_text("<div title=\"unclosed>text</div><p>after") == "text\n\nafter"  # ends at the next >
    assert html_to_text("<p>before<!-- never closed <p>hidden") == "before"
    assert html_to_text("<script>no end") == ""
    assert html_to_text("") == ""


def test_character_references_are_decoded_across_long_text() -> None:
    text = html_to_text("<p>" + "a&amp;b " * 40_000 + "</p>")
    assert text.count("a&b") == 40_000 and "&amp;" not in text


def test_one_tag_with_a_million_attributes_parses_in_little_memory() -> None:
    page = "<html><body><div " + " ".join(f'data-a{i}="v{i % 10}"' for i in range(1_200_000)) + ">kept</div></body>"
    size = len(page.encode())
    assert size > 4_000_000
    result: list[str] = []
    peak = peak_bytes(lambda: result.append(html_to_text(page)))
    assert result == ["kept"]
    assert peak < 3 * size, f"{peak:,} bytes at peak for a {size:,}-byte page"


def test_many_tags_with_a_million_attributes_in_total_stay_within_three_times_the_body() -> None:
    attrs = " ".join(f'a{i}="{i}"' for i in range(20))
    page = "<html><body>" + "".join(f"<span {attrs}>w{n % 7} </span>" for n in range(50_000)) + "</body></html>"
    size = len(page.encode())
    result: list[str] = []
    peak = peak_bytes(lambda: result.append(html_to_text(page)))
    assert result[0].startswith("w0 w1 w2") and result[0].count("w") == 50_000
    assert peak < 3 * size, f"{peak:,} bytes at peak for a {size:,}-byte page"


@pytest.mark.parametrize("word", ["plain ", "漢字かな "])
def test_a_page_of_mostly_text_stays_within_three_times_the_body(word: str) -> None:
    page = "<html><body><p>" + word * 800_000 + "</p></body></html>"
    size = len(page.encode())
    result: list[str] = []
    peak = peak_bytes(lambda: result.append(html_to_text(page)))
    assert len(result[0]) == len(word) * 800_000 - 1
    assert peak < 3 * size, f"{peak:,} bytes at peak for a {size:,}-byte page"


async def test_the_tool_fetches_and_reduces_a_page_with_a_million_attributes_within_three_times_its_size() -> None:
    page = ("<html><body><p" + " x=1" * 1_200_000 + ">the text</p></body></html>").encode()  # 4.8 MB, as reported
    routes = {"/attrs": Route(200, page, {"Content-Type": "text/html; charset=utf-8"})}
    tool = HttpRequestTool(allowed_hosts=["127.0.0.1"])
    with RecordingServer(routes).running() as server:
        url = f"http://127.0.0.1:{server.port}/attrs"
        importlib.import_module("httpx2")  # the tool imports its HTTP client on its first request: not the page's
        tracemalloc.start()
        try:
            outcome = await tool.run({"url": url}, ToolContext(session_id="s1", agent_id=None))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert outcome.output.endswith("\n\nthe text")
    assert peak < 3 * len(page), f"{peak:,} bytes at peak for a {len(page):,}-byte page"
