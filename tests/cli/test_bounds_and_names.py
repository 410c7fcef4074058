"""Identifiers are bounded and elided in messages; the keyring backends are named for what they are."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backends import null

from data.keys import keychain_problem
from tests.cli.harness import Cli
from tests.data.test_keychain import PlaintextLikeKeyring

HUGE = "m" * 100_000


def _cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json", {"ANTHROPIC_API_KEY": "sk-ant-bounds-test"})


def test_a_100k_character_model_id_is_refused_in_a_short_line_and_nothing_is_stored(tmp_path: Path) -> None:
    cli = _cli(tmp_path)
    result = cli.run("chat", "-m", HUGE, "hello")
    assert result.code == 2 and len(result.err) < 300
    assert "the model id \"mmmm" in result.err and "is too long (100000 characters; at most 200)" in result.err
    added = cli.run("models", "add", "anthropic", HUGE, "--context-window", "1000")
    assert added.code == 2 and len(added.err) < 300
    listed = cli.run("sessions", "list", "--json")
    assert listed.out.strip() == "[]" and HUGE not in cli.run("models", "list").out


@pytest.mark.parametrize("length", [150, 180])
def test_a_not_found_error_elides_a_long_identifier(tmp_path: Path, length: int) -> None:
    ident = "x" * (length - 6) + "-tail!"
    result = _cli(tmp_path).run("sessions", "show", ident, subprocess_run=False)
    assert result.code == 1 and ident not in result.err
    assert f"({length} characters)" in result.err and "-tail!" in result.err
    assert "See the sessions with: palimpsest sessions list" in result.err


def test_a_not_found_error_keeps_its_own_advice_when_it_elides(tmp_path: Path) -> None:
    result = _cli(tmp_path).run("chat", "-p", "p" * 190, "hi", subprocess_run=False)
    assert result.code == 1 and "Known providers: anthropic, openai, gemini" in result.err
    assert "p" * 190 not in result.err and "(190 characters)" in result.err


def test_the_null_keyring_backend_is_called_switched_off_not_plaintext() -> None:
    problem = keychain_problem(null.Keyring())
    assert problem is not None and "keyrings.alt" not in problem and "plain" not in problem
    assert "switched off" in problem and "keyring.backends.null.Keyring" in problem
    assert "GEMINI_API_KEY" in problem


def test_a_plaintext_backend_is_named_by_its_own_class() -> None:
    problem = keychain_problem(PlaintextLikeKeyring())
    assert problem is not None and "keyrings.alt.file.PlaintextLikeKeyring" in problem and "plain-text" in problem
    assert keychain_problem(keyring.get_keyring()) is None  # the tests' in-memory backend is usable
