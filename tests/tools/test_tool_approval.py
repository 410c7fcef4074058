"""Approving tool requests: the fixed approvers, and the CLI's y/N prompt that refuses when there is no terminal."""

from __future__ import annotations

import io

import pytest

from app.cli.approval import CliApprover, render_request
from domain.tool_approval import AllowAllApprover, ApprovalRequest, DenyAllApprover

REQUEST = ApprovalRequest(
    tool="http_request",
    title="Allow the model to send DELETE http://api.example/items/7?",
    details=(("Method", "DELETE"), ("URL", "http://api.example/items/7"), ("Headers", "X-Admin: 1\nX-Other: 2"),
             ("Body", "(none)")),
)


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def __init__(self, text: str = "", *, tty: bool = True) -> None:
        super().__init__(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


async def test_the_fixed_approvers_answer_as_named() -> None:
    assert await AllowAllApprover().approve(REQUEST) is True
    assert await DenyAllApprover().approve(REQUEST) is False


@pytest.mark.parametrize(("answer", "allowed"), [("y\n", True), ("YES\n", True), (" yes \n", True), ("n\n", False),
                                                 ("\n", False), ("sure\n", False), ("", False)])
async def test_on_a_terminal_the_user_is_asked_and_only_yes_allows(answer: str, allowed: bool) -> None:
    stderr = Terminal()
    approver = CliApprover(stdin=Terminal(answer), stderr=stderr)
    assert await approver.approve(REQUEST) is allowed
    shown = stderr.getvalue()
    assert REQUEST.title in shown and "  Method: DELETE" in shown and "  URL: http://api.example/items/7" in shown
    assert "    X-Admin: 1\n    X-Other: 2" in shown and shown.endswith("Allow? [y/N] ")


@pytest.mark.parametrize(("stdin_tty", "stderr_tty"), [(False, True), (True, False), (False, False)])
async def test_without_a_terminal_it_refuses_without_reading(stdin_tty: bool, stderr_tty: bool) -> None:
    stdin, stderr = Terminal("y\n", tty=stdin_tty), Terminal(tty=stderr_tty)
    assert await CliApprover(stdin=stdin, stderr=stderr).approve(REQUEST) is False
    assert stdin.read() == "y\n"  # the piped input was left alone
    assert "refused without asking (no terminal)" in stderr.getvalue() and "--allow-tools" in stderr.getvalue()


async def test_allow_tools_allows_without_asking_even_without_a_terminal() -> None:
    stderr = Terminal(tty=False)
    assert await CliApprover(allow_all=True, stdin=Terminal(tty=False), stderr=stderr).approve(REQUEST) is True
    assert stderr.getvalue() == ""


def test_what_the_model_wrote_cannot_drive_the_terminal_and_long_bodies_are_cut() -> None:
    body = "\x1b]0;owned\x07" + "b" * 5000
    request = ApprovalRequest("http_request", "Allow POST \x1b[2Jhttp://x/?", (("Body", body),))
    shown = render_request(request)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b[2J" in shown
    assert "[... 3,010 more characters not shown]" in shown
