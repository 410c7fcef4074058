"""A message refused before it is stored names no session: the session the command created is removed again, so
printing `session: ID` pointed at a session that does not exist."""

from __future__ import annotations

from tests.cli.test_commands import MODEL, Env, env  # noqa: F401 - the configured CLI with its fake server


def test_a_refused_first_message_prints_no_session_line_and_leaves_no_session(env: Env) -> None:  # noqa: F811
    result = env.run("chat", "-p", "anthropic", "-m", MODEL, "word " * 40_000)
    assert result.code == 1 and "too long" in result.err
    assert "session:" not in result.err
    assert env.run("sessions", "list", "--json").out.strip() == "[]"


def test_an_accepted_first_message_still_names_its_session_first(env: Env) -> None:  # noqa: F811
    result = env.run("chat", "-p", "anthropic", "-m", MODEL, "hello there")
    assert result.code == 0 and result.err.startswith("session: ")
