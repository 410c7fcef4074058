"""http_request sends methods other than GET and HEAD only after the user approves; binary bodies are described."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from data.tools import BuiltinTools
from data.tools.http_request import HttpRequestTool
from domain.provider_ports import ToolContext
from tests.tools.fakes import FakeMemories, FakeMessages, FixedClock, RecordingApprover
from tests.tools.http_server import RecordingServer, Route

CTX = ToolContext(session_id="s1", agent_id=None)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40


@pytest.fixture()
def server() -> Iterator[RecordingServer]:
    routes = {
        "/admin/all": Route(200, b"everything deleted", {"Content-Type": "text/plain"}),
        "/logo.png": Route(200, PNG, {"Content-Type": "image/png"}),
        "/blob": Route(200, PNG, {}),
        "/data.bin": Route(200, b"\xff\xfe\xfd" * 1000, {"Content-Type": "application/x-custom"}),
        "/notes": Route(200, "naïve café".encode(), {"Content-Type": "application/x-custom"}),
        "/wide": Route(200, "wide text".encode("utf-16"), {"Content-Type": "application/x-custom; charset=utf-16"}),
    }
    with RecordingServer(routes).running() as running:
        yield running


def tool(approver: RecordingApprover | None = None, max_bytes: int = 5 * 1024 * 1024) -> HttpRequestTool:
    return HttpRequestTool(allowed_hosts=["127.0.0.1"], approver=approver, max_bytes=max_bytes)


def delete_call(server: RecordingServer) -> dict[str, object]:
    return {"url": f"http://127.0.0.1:{server.port}/admin/all", "method": "DELETE",
            "headers": {"X-Admin": "yes"}, "body": "confirm=1"}


async def test_without_an_approver_other_methods_are_refused_and_not_sent(server: RecordingServer) -> None:
    outcome = await tool().run(delete_call(server), CTX)
    assert outcome.is_error and "The user did not allow this DELETE request" in outcome.output
    assert server.seen == []


async def test_a_refusing_user_sees_method_url_headers_and_body_and_nothing_is_sent(server: RecordingServer) -> None:
    approver = RecordingApprover(False)
    outcome = await tool(approver).run(delete_call(server), CTX)
    assert outcome.is_error and "did not allow" in outcome.output
    assert server.seen == []
    [request] = approver.requests
    assert request.tool == "http_request"
    assert dict(request.details) == {
        "Method": "DELETE", "URL": f"http://127.0.0.1:{server.port}/admin/all", "Headers": "X-Admin: yes",
        "Body": "confirm=1",
    }
    assert "DELETE" in request.title


async def test_an_approved_request_is_sent_as_asked(server: RecordingServer) -> None:
    approver = RecordingApprover(True)
    outcome = await tool(approver).run(delete_call(server), CTX)
    assert not outcome.is_error and outcome.output.endswith("everything deleted")
    [seen] = server.seen
    assert (seen.method, seen.path, seen.headers["x-admin"], seen.body) == ("DELETE", "/admin/all", "yes", b"confirm=1")


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
async def test_every_method_but_get_and_head_asks(server: RecordingServer, method: str) -> None:
    approver = RecordingApprover(False)
    await tool(approver).run({"url": f"http://127.0.0.1:{server.port}/admin/all", "method": method}, CTX)
    assert [r.details[0] for r in approver.requests] == [("Method", method)]


@pytest.mark.parametrize("method", ["GET", "head", None])
async def test_get_and_head_do_not_ask(server: RecordingServer, method: str | None) -> None:
    approver = RecordingApprover(False)
    args = {"url": f"http://127.0.0.1:{server.port}/admin/all"} | ({"method": method} if method else {})
    outcome = await tool(approver).run(args, CTX)
    assert not outcome.is_error and approver.requests == []


async def test_the_approver_reaches_the_tool_through_builtin_tools(server: RecordingServer) -> None:
    approver = RecordingApprover(True)
    tools = BuiltinTools(FakeMemories(), FakeMessages(), FixedClock(), http_allowed_hosts=["127.0.0.1"],
                         approver=approver)
    outcome = await tools.execute("http_request", delete_call(server), CTX)
    assert not outcome.is_error and len(approver.requests) == 1


async def test_a_binary_body_is_described_by_type_and_size(server: RecordingServer) -> None:
    outcome = await tool().run({"url": f"http://127.0.0.1:{server.port}/logo.png"}, CTX)
    assert not outcome.is_error
    assert outcome.output.endswith(f"[binary body (image/png), {len(PNG):,} bytes; not shown as text]")
    assert "\ufffd" not in outcome.output and "PNG" not in outcome.output.split("\n\n", 1)[1][:20]


async def test_untyped_and_unknown_typed_binary_bodies_are_recognized_by_their_bytes(server: RecordingServer) -> None:
    untyped = await tool().run({"url": f"http://127.0.0.1:{server.port}/blob"}, CTX)
    assert untyped.output.endswith(f"[binary body (no declared type), {len(PNG):,} bytes; not shown as text]")
    custom = await tool().run({"url": f"http://127.0.0.1:{server.port}/data.bin"}, CTX)
    assert custom.output.endswith("[binary body (application/x-custom), 3,000 bytes; not shown as text]")
    for output in (untyped.output, custom.output):
        assert "\ufffd" not in output


async def test_text_of_an_unknown_type_is_still_shown_as_text(server: RecordingServer) -> None:
    notes = await tool().run({"url": f"http://127.0.0.1:{server.port}/notes"}, CTX)
    assert notes.output.endswith("naïve café")
    wide = await tool().run({"url": f"http://127.0.0.1:{server.port}/wide"}, CTX)
    assert wide.output.endswith("wide text")


async def test_a_binary_body_cut_at_the_cap_says_so(server: RecordingServer) -> None:
    outcome = await tool(max_bytes=1000).run({"url": f"http://127.0.0.1:{server.port}/logo.png"}, CTX)
    assert outcome.output.endswith("[binary body (image/png), more than 1,000 bytes (reading stopped there); "
                                   "not shown as text]")
