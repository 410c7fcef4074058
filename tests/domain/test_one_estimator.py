"""One place for each number: token arithmetic (characters per token, quarters, the ×3/16 of base64, per-page and
per-tile figures) lives only in the estimator (domain/context/estimator.py) and the provider rules table
(data/providers/rules.py); every other module asks them."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"domain/context/estimator.py", "data/providers/rules.py", "data/providers/thinking_rules.py"}
ARITHMETIC = [
    re.compile(r"//\s*[34]\b(?!\.)"),  # a quarter or a third: characters to tokens
    re.compile(r"(?<![/*])/\s*[34](\.0)?\b(?!\.\d)"),
    re.compile(r"\*\s*3\s*//?\s*16\b"),  # base64 characters to bytes to tokens
    re.compile(r"\b(258|3_?000)\b"),  # the providers' per-page and per-tile figures
    re.compile(r"(?i)chars_per_token|page_tokens\s*="),
]


def _code(path: Path) -> str:
    """The file's code without comments and plain strings (docstrings explain the rules; they do not compute
    them); f-strings stay, since their fields compute."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type == tokenize.COMMENT:
            continue
        if token.type == tokenize.STRING and "f" not in token.string.split("'")[0].split('"')[0].lower():
            continue
        kept.append(token.string)
    return " ".join(kept)


def test_no_token_arithmetic_outside_the_estimator_and_the_rules_table() -> None:
    found = []
    for package in ("domain", "data", "ui", "app"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in ALLOWED:
                continue
            code = _code(path)
            found += [f"{name}: {m.group(0)!r}" for pattern in ARITHMETIC for m in pattern.finditer(code)]
    assert found == []


def test_the_check_finds_token_arithmetic_where_it_is(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""len(text) // 4 in a docstring is fine."""\n'
                      "tokens = (len(text) + 3) // 4  # a quarter\n"
                      "opaque = len(data) * 3 // 16\n"
                      "pages = count * 3000\n"
                      'label = f"~{len(text) // 4} tokens"\n')
    code = _code(sample)
    assert [p.pattern for p in ARITHMETIC if p.search(code)] == [ARITHMETIC[0].pattern, ARITHMETIC[2].pattern,
                                                                  ARITHMETIC[3].pattern]
