"""The Container wires the tool guard: its approver sees a POST's details, no approver refuses, and the allowed hosts
saved in the settings are read on every request."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import Container
from domain.provider_ports import ToolContext
from domain.settings import ToolSettings
from domain.tool_approval import ApprovalRequest
from domain.usecases.save_tool_settings import SaveToolSettingsUseCase
from tests.cli.echo_server import EchoServer
from tests.fakes import FakeApiKeyStorage
from tests.tools.fakes import RecordingApprover

CONTEXT = ToolContext(session_id="s1", agent_id=None)


@pytest.fixture()
def echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[EchoServer]:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)
    with EchoServer() as server:
        yield server


def post(container: Container, url: str) -> tuple[str, bool]:
    arguments = {"url": url, "method": "POST", "headers": {"X-Note": "1"}, "body": "hello"}
    outcome = asyncio.run(container.tools.execute("http_request", arguments, CONTEXT))
    return outcome.output, outcome.is_error


def test_the_containers_approver_is_asked_with_the_posts_method_url_headers_and_body(
    tmp_path: Path, echo: EchoServer
) -> None:
    approver = RecordingApprover(answer=True)
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage(), approver=approver)
    try:
        SaveToolSettingsUseCase(container.settings)(ToolSettings(("127.0.0.1",)))
        text, failed = post(container, f"{echo.url}/notes")
    finally:
        container.close()
    assert not failed and text.startswith("HTTP 201")
    assert approver.requests == [ApprovalRequest(
        tool="http_request", title=f"Allow the model to send POST {echo.url}/notes?",
        details=(("Method", "POST"), ("URL", f"{echo.url}/notes"), ("Headers", "X-Note: 1"), ("Body", "hello")),
    )]
    assert [r[:3] for r in echo.received.requests] == [("POST", "/notes", "hello")]


def test_a_container_without_an_approver_refuses_requests_other_than_get(tmp_path: Path, echo: EchoServer) -> None:
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage())
    try:
        SaveToolSettingsUseCase(container.settings)(ToolSettings(("127.0.0.1",)))
        text, failed = post(container, f"{echo.url}/notes")
    finally:
        container.close()
    assert failed and "The user did not allow this POST request" in text
    assert echo.received.requests == []


def test_allowed_hosts_saved_after_the_container_was_built_apply_to_the_next_request(
    tmp_path: Path, echo: EchoServer
) -> None:
    approver = RecordingApprover(answer=True)
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage(), approver=approver)
    try:
        refused, failed = post(container, f"{echo.url}/a")
        assert failed and refused.startswith("Refused: 127.0.0.1 is a loopback address")
        assert approver.requests == []  # a refused host is never offered to the user
        SaveToolSettingsUseCase(container.settings)(ToolSettings(("127.0.0.0/8",)))
        reached, failed = post(container, f"{echo.url}/b")
        assert not failed and reached.startswith("HTTP 201")
        SaveToolSettingsUseCase(container.settings)(ToolSettings())
        again, failed = post(container, f"{echo.url}/c")
        assert failed and again.startswith("Refused:")
    finally:
        container.close()
    assert [r[1] for r in echo.received.requests] == ["/b"]
