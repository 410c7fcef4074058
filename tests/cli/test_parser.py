"""The argument parser implements the CLI contract's commands and flags."""

from __future__ import annotations

import pytest

from app.cli.parser import build_parser


def parse(*argv: str):  # type: ignore[no-untyped-def]
    return build_parser().parse_args(list(argv))


def test_chat_takes_session_provider_model_agent_and_jsonl() -> None:
    args = parse("chat", "-s", "S1", "-p", "openai", "-m", "gpt-x", "--agent", "Coder", "--jsonl", "hi")
    assert (args.command, args.session_id, args.provider, args.model, args.agent, args.jsonl, args.message) == (
        "chat", "S1", "openai", "gpt-x", "Coder", True, "hi")
    assert parse("chat", "--new", "-").message == "-"


def test_chat_refuses_a_session_together_with_new(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse("chat", "-s", "S1", "--new", "hi")
    assert exit_info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_every_contract_command_parses() -> None:
    assert parse("sessions", "list", "--json").json
    assert parse("sessions", "show", "S", "--json").id == "S"
    export = parse("sessions", "export", "S", "--format", "json", "-o", "out.json")
    assert (export.format, export.output) == ("json", "out.json")
    assert parse("sessions", "search", "tide").query == "tide"
    assert parse("sessions", "compact", "S", "--instructions", "focus").instructions == "focus"
    assert parse("sessions", "reset-context", "S").action == "reset-context"
    assert parse("sessions", "delete", "S").action == "delete"
    assert parse("providers", "list").action == "list"
    assert parse("providers", "set", "openai", "--base-url", "http://x/v1").base_url == "http://x/v1"
    added = parse("providers", "add", "Local", "--type", "openai_compatible", "--base-url", "http://x/v1")
    assert (added.name, added.provider_type) == ("Local", "openai_compatible")
    listed = parse("models", "list", "-p", "gemini", "--refresh")
    assert (listed.provider, listed.refresh) == ("gemini", True)
    model = parse("models", "add", "openai", "tiny", "--context-window", "8192", "--max-output", "512")
    assert (model.provider, model.model, model.context_window, model.max_output) == ("openai", "tiny", 8192, 512)
    assert parse("keys", "set", "anthropic").provider == "anthropic"
    assert parse("keys", "delete", "anthropic").action == "delete"
    assert parse("keys", "status").action == "status"


def test_no_command_means_the_desktop_app_and_screenshot_takes_a_session() -> None:
    args = parse()
    assert args.command is None and args.screenshot is None
    shot = parse("--screenshot", "shot.png", "--session", "S1")
    assert (shot.screenshot, shot.session) == ("shot.png", "S1")
