"""http_request never reaches the user's own machine or network unless the user allowed the host.

A refused call is an error outcome for the model and the server never sees the request. Names are looked up through
an injected resolver (no DNS); the servers listen on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from data.tools.base import ToolArgumentError
from data.tools.http_request import HttpRequestTool
from data.tools.net_guard import Resolver, system_resolver
from domain.provider_ports import ToolContext
from domain.tool_approval import AllowAllApprover
from tests.tools.fakes import FakeResolver, RecordingApprover
from tests.tools.http_server import RecordingServer, Route

CTX = ToolContext(session_id="s1", agent_id=None)
TEXT = {"Content-Type": "text/plain"}


@pytest.fixture(autouse=True)
def _no_allowed_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PALIMPSEST_TOOL_ALLOW_HOSTS", raising=False)


@pytest.fixture()
def server() -> Iterator[RecordingServer]:
    routes = {
        "/admin/all": Route(200, b"everything deleted", TEXT),
        "/page": Route(200, b"the page", TEXT),
        "/secret": Route(200, b"internal secret", TEXT),
    }
    with RecordingServer(routes).running() as running:
        yield running


def tool(resolver: Resolver | None = None, **kwargs: object) -> HttpRequestTool:
    return HttpRequestTool(resolver=resolver or FakeResolver(strict=True), **kwargs)  # type: ignore[arg-type]


async def test_the_admin_delete_from_the_issue_is_refused_and_never_sent(server: RecordingServer) -> None:
    args = {"url": f"http://127.0.0.1:{server.port}/admin/all", "method": "DELETE", "headers": {"X-Admin": "1"}}
    approver = RecordingApprover(True)
    outcome = await tool(approver=approver).run(args, CTX)
    assert outcome.is_error
    assert "Refused" in outcome.output and "loopback" in outcome.output
    assert "Settings → Tools → Allowed hosts" in outcome.output
    assert server.seen == [] and approver.requests == []  # refused before anyone is asked


@pytest.mark.parametrize("host", [
    "127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f.1", "0x7f000001", "0177.0.0.1", "017700000001",
    "0.0.0.0", "0", "[::1]", "[::]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]",
])
async def test_every_spelling_of_this_machine_is_refused_without_a_lookup(server: RecordingServer, host: str) -> None:
    resolver = FakeResolver(strict=True)
    try:
        outcome = await tool(resolver).run({"url": f"http://{host}:{server.port}/secret"}, CTX)
    except ToolArgumentError as err:  # the URL parser rejects some dotted forms outright (an error outcome too)
        assert host == "0177.0.0.1" and "is not valid" in str(err)
    else:
        assert outcome.is_error and outcome.output.startswith("Refused:"), outcome.output
    assert server.seen == []


@pytest.mark.parametrize(("host", "kind"), [
    ("169.254.169.254", "link-local"), ("10.0.0.8", "private"), ("172.16.3.4", "private"),
    ("192.168.1.1", "private"), ("100.64.0.1", "not a public"), ("224.0.0.251", "multicast"),
    ("255.255.255.255", "private"), ("240.0.0.1", "private"), ("[fe80::1]", "link-local"),
    ("[fd12:3456::1]", "private"), ("[fec0::1]", "site-local"), ("[ff02::1]", "multicast"),
    ("[::ffff:169.254.169.254]", "link-local"), ("0xa9.0xfe.0xa9.0xfe", "link-local"),
])
async def test_local_network_metadata_and_multicast_addresses_are_refused(host: str, kind: str) -> None:
    outcome = await tool().run({"url": f"http://{host}/latest/meta-data/"}, CTX)
    assert outcome.is_error and outcome.output.startswith("Refused:")
    assert kind in outcome.output


async def test_a_name_that_resolves_to_loopback_is_refused(server: RecordingServer) -> None:
    resolver = FakeResolver({"innocent.example": ["127.0.0.1"]})
    outcome = await tool(resolver).run({"url": f"http://innocent.example:{server.port}/secret"}, CTX)
    assert outcome.is_error and "resolves to 127.0.0.1" in outcome.output
    assert server.seen == []


async def test_a_name_is_refused_when_any_of_its_addresses_is_local(server: RecordingServer) -> None:
    resolver = FakeResolver({"mixed.example": ["93.184.216.34", "10.1.2.3"]})
    outcome = await tool(resolver).run({"url": "http://mixed.example/"}, CTX)
    assert outcome.is_error and "resolves to 10.1.2.3" in outcome.output


async def test_localhost_through_the_system_resolver_is_refused(server: RecordingServer) -> None:
    outcome = await tool(system_resolver).run({"url": f"http://localhost:{server.port}/secret"}, CTX)
    assert outcome.is_error and "loopback" in outcome.output
    assert server.seen == []


async def test_an_unknown_name_is_an_error_outcome() -> None:
    outcome = await tool(FakeResolver()).run({"url": "http://nowhere.example/"}, CTX)
    assert outcome.is_error and "could not be resolved" in outcome.output


async def test_a_redirect_to_a_local_address_is_refused_at_that_hop(server: RecordingServer) -> None:
    target = f"http://127.0.0.1:{server.port}/secret"
    server.routes["/go"] = Route(302, b"", {"Location": target})
    resolver = FakeResolver({"pages.test": ["127.0.0.1"]})
    outcome = await tool(resolver, allowed_hosts=["pages.test"]).run(
        {"url": f"http://pages.test:{server.port}/go"}, CTX
    )
    assert outcome.is_error
    assert f"redirected to {target}" in outcome.output and "loopback" in outcome.output
    assert server.paths == ["/go"]  # the first hop ran (allowed by name); the redirect target did not


async def test_a_redirect_to_cloud_metadata_is_refused(server: RecordingServer) -> None:
    server.routes["/meta"] = Route(301, b"", {"Location": "http://169.254.169.254/latest/meta-data/iam"})
    outcome = await tool(allowed_hosts=["127.0.0.1"]).run({"url": f"http://127.0.0.1:{server.port}/meta"}, CTX)
    assert outcome.is_error and "169.254.169.254" in outcome.output and "link-local" in outcome.output


async def test_a_redirect_to_a_name_resolving_to_loopback_is_refused(server: RecordingServer) -> None:
    server.routes["/hop"] = Route(307, b"", {"Location": f"http://rebound.example:{server.port}/secret"})
    resolver = FakeResolver({"rebound.example": ["127.0.0.1"]})
    outcome = await tool(resolver, allowed_hosts=["127.0.0.1"]).run(
        {"url": f"http://127.0.0.1:{server.port}/hop"}, CTX
    )
    # 127.0.0.1 is allowed as an address, so a name resolving there is too; a name not allowed resolving to
    # another local address is not:
    assert not outcome.is_error and "internal secret" in outcome.output
    resolver.table["rebound.example"] = ["10.0.0.5"]
    outcome = await tool(resolver, allowed_hosts=["127.0.0.1"]).run(
        {"url": f"http://127.0.0.1:{server.port}/hop"}, CTX
    )
    assert outcome.is_error and "resolves to 10.0.0.5" in outcome.output


async def test_allowed_redirects_are_followed_and_the_final_url_is_reported(server: RecordingServer) -> None:
    server.routes["/start"] = Route(302, b"", {"Location": "/page"})
    outcome = await tool(allowed_hosts=["127.0.0.1"]).run({"url": f"http://127.0.0.1:{server.port}/start"}, CTX)
    assert not outcome.is_error
    assert f"URL after 1 redirect(s): http://127.0.0.1:{server.port}/page" in outcome.output
    assert outcome.output.endswith("the page")


async def test_a_redirect_loop_stops_with_an_error(server: RecordingServer) -> None:
    server.routes["/loop"] = Route(302, b"", {"Location": "/loop"})
    outcome = await tool(allowed_hosts=["127.0.0.1"]).run({"url": f"http://127.0.0.1:{server.port}/loop"}, CTX)
    assert outcome.is_error and "Stopped after 10 redirects" in outcome.output
    assert server.paths == ["/loop"] * 11


async def test_a_redirect_that_repeats_a_post_elsewhere_is_not_followed(server: RecordingServer) -> None:
    server.routes["/form"] = Route(307, b"", {"Location": "/admin/all"})
    outcome = await tool(allowed_hosts=["127.0.0.1"], approver=AllowAllApprover()).run(
        {"url": f"http://127.0.0.1:{server.port}/form", "method": "POST", "body": "x=1"}, CTX
    )
    assert outcome.output.startswith("HTTP 307")
    assert "redirect not followed" in outcome.output and "/admin/all" in outcome.output
    assert server.paths == ["/form"]


async def test_a_dns_answer_that_changes_after_the_check_is_never_used(server: RecordingServer) -> None:
    resolver = FakeResolver({"rebind.test": ["127.0.0.1"]}, later={"rebind.test": ["127.0.0.2"]})
    outcome = await tool(resolver, allowed_hosts=["127.0.0.1"]).run(
        {"url": f"http://rebind.test:{server.port}/page"}, CTX
    )
    assert not outcome.is_error and outcome.output.endswith("the page")
    assert resolver.lookups == ["rebind.test"]  # one lookup, and the connection went to the address it checked
    assert server.seen[0].headers["host"] == f"rebind.test:{server.port}"


async def test_a_host_allowed_by_name_reaches_its_local_address(server: RecordingServer) -> None:
    resolver = FakeResolver({"devbox.lan": ["127.0.0.1"]})
    outcome = await tool(resolver, allowed_hosts=["DevBox.lan."]).run(
        {"url": f"http://devbox.lan:{server.port}/page"}, CTX
    )
    assert not outcome.is_error and outcome.output.endswith("the page")


async def test_an_allowed_address_is_allowed_in_any_spelling(server: RecordingServer) -> None:
    outcome = await tool(allowed_hosts=["127.0.0.1"]).run({"url": f"http://2130706433:{server.port}/page"}, CTX)
    assert not outcome.is_error and outcome.output.endswith("the page")


async def test_allowing_one_host_does_not_allow_another(server: RecordingServer) -> None:
    outcome = await tool(allowed_hosts=["127.0.0.2", "localhost"]).run(
        {"url": f"http://127.0.0.1:{server.port}/page"}, CTX
    )
    assert outcome.is_error and server.seen == []


async def test_the_environment_variable_allows_hosts(server: RecordingServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{server.port}/page"
    assert (await tool().run({"url": url}, CTX)).is_error
    monkeypatch.setenv("PALIMPSEST_TOOL_ALLOW_HOSTS", "example.org, 127.0.0.1")
    outcome = await tool().run({"url": url}, CTX)
    assert not outcome.is_error and outcome.output.endswith("the page")


async def test_a_callable_allowed_list_is_read_on_every_request(server: RecordingServer) -> None:
    allowed: list[str] = []
    http = tool(allowed_hosts=lambda: allowed)
    url = f"http://127.0.0.1:{server.port}/page"
    assert (await http.run({"url": url}, CTX)).is_error
    allowed.append("127.0.0.0/8")
    assert not (await http.run({"url": url}, CTX)).is_error


async def test_an_international_name_is_looked_up_and_allowed_in_its_idna_form(server: RecordingServer) -> None:
    resolver = FakeResolver({"xn--bcher-kva.test": ["127.0.0.1"]})
    url = f"http://bücher.test:{server.port}/page"
    refused = await tool(resolver).run({"url": url}, CTX)
    assert refused.is_error and "resolves to 127.0.0.1" in refused.output
    outcome = await tool(resolver, allowed_hosts=["Bücher.test"]).run({"url": url}, CTX)
    assert not outcome.is_error and outcome.output.endswith("the page")
    assert set(resolver.lookups) == {"xn--bcher-kva.test"}
    assert server.seen[0].headers["host"] == f"xn--bcher-kva.test:{server.port}"
