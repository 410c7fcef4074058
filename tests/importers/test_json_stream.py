"""The streamed JSON array reader: the same items as json.loads however the bytes arrive, and syntax errors at the
same line and column as json.loads gives."""

from __future__ import annotations

import io
import json

import pytest

from data.importing.json_stream import JsonItems
from domain.importers.model import MalformedExport

ITEMS = [{"id": i, "text": "é☃ quoted \" and \\ " * (i % 7), "numbers": [1.5e3, -2, 12345678901234, 0.25],
          "flags": [True, False, None], "nested": {"a": [[], {}, [{"b": "c"}]]}} for i in range(120)]


def _items(text: str, chunk: int) -> list[object]:
    return list(JsonItems(io.BytesIO(text.encode("utf-8")).read, chunk).items(lambda i: f"conversations[{i}]"))


@pytest.mark.parametrize("chunk", [1, 3, 64, 4096, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_the_items_are_those_json_loads_reads_however_the_bytes_are_cut(chunk: int, indent: int | None) -> None:
    text = json.dumps(ITEMS, indent=indent, ensure_ascii=indent is not None)
    assert _items(text, chunk) == json.loads(text)
    assert _items(" [ ] \n", chunk) == []
    assert _items('[12, 3.5e2 , "x", 7]', chunk) == [12, 350.0, "x", 7]  # a number cut at a chunk's end is read whole


@pytest.mark.parametrize("chunk", [1, 2, 5, 100, 1 << 20])
@pytest.mark.parametrize("text", ['[{"a": 1},\n {"b": }]', "[1, 2\n, 3 4]", '[{"a":1}]x', "[1,]", '[\n\n  {"x": tru}]',
                                  '[{"a": "x\ny"}]', '[{"a": "never closed}]', '[{"a": 1}'])
def test_a_syntax_error_is_placed_where_json_loads_places_it(text: str, chunk: int) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(MalformedExport) as caught:
        _items(text, chunk)
    assert caught.value.where == f"line {expected.value.lineno}, column {expected.value.colno}"
    assert f"invalid JSON ({expected.value.msg})" in str(caught.value)


def test_bytes_that_are_not_utf8_are_refused_in_plain_words() -> None:
    with pytest.raises(MalformedExport, match="not UTF-8"):
        list(JsonItems(io.BytesIO(b'[{"a": "\xff"}]').read, 4).items(str))
