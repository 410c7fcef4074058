"""The address rules behind http_request: literal forms read as the C resolver reads them, which addresses are local,
what an allowed-hosts entry matches, and that a checked name keeps the addresses that were checked."""

from __future__ import annotations

import ipaddress

import pytest

from data.tools.net_guard import (
    AllowedHosts,
    NetGuard,
    RefusedTarget,
    UnresolvableHost,
    parse_ip_literal,
    refusal_reason,
)
from tests.tools.fakes import FakeResolver


@pytest.mark.parametrize(("host", "address"), [
    ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("0X7F.0.0.1", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"), ("0x7f000001", "127.0.0.1"),
    ("017700000001", "127.0.0.1"), ("0", "0.0.0.0"), ("0x", "0.0.0.0"), ("169.254.43518", "169.254.169.254"),
    ("0xa9fea9fe", "169.254.169.254"), ("1.2.65535", "1.2.255.255"), ("[::1]", "::1"),
    ("::ffff:127.0.0.1", "::ffff:7f00:1"),
])
def test_literal_addresses_are_read_in_every_form_the_resolver_accepts(host: str, address: str) -> None:
    assert parse_ip_literal(host) == ipaddress.ip_address(address)


@pytest.mark.parametrize("host", ["example.com", "08", "1.2.3.256", "1.2.65536", "0x1.0x100.1", "1..2", "", "a::b::c"])
def test_names_and_malformed_numbers_are_not_literals(host: str) -> None:
    assert parse_ip_literal(host) is None


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.255.0.9", "0.0.0.0", "0.1.2.3", "10.0.0.1", "172.31.255.255", "192.168.0.1",
    "169.254.169.254", "100.64.0.1", "100.127.255.255", "192.0.0.1", "192.0.2.1", "198.18.0.1", "224.0.0.1",
    "239.255.255.250", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fec0::1", "fc00::1", "fd00::1",
    "ff02::1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1", "2002:a9fe:a9fe::", "64:ff9b::a00:1",
    "64:ff9b:1::1", "2001:db8::1", "100::1",
])
def test_local_private_link_local_multicast_and_reserved_addresses_are_refused(address: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::1111",
                                     "2a00:1450:4001:80b::200e", "64:ff9b::808:808", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) is None


def test_allowed_entries_match_names_addresses_and_networks() -> None:
    allowed = AllowedHosts.parse(["Dev.Example.", "http://wiki.lan:8080/x", "[::1]:80", "10.0.0.0/8", "127.0.0.1",
                                  "  ", "fd00::/8"])
    assert allowed.allows_name("dev.example") and allowed.allows_name("WIKI.LAN")
    assert not allowed.allows_name("other.example")
    for yes in ("::1", "10.9.8.7", "127.0.0.1", "::ffff:127.0.0.1", "fd00::5"):
        assert allowed.allows_address(ipaddress.ip_address(yes)), yes
    for no in ("127.0.0.2", "192.168.1.1", "fe80::1"):
        assert not allowed.allows_address(ipaddress.ip_address(no)), no


async def test_a_checked_name_keeps_every_address_it_resolved_to_in_order() -> None:
    resolver = FakeResolver({"example.org": ["2606:2800:220:1::1", "93.184.216.34"]})
    target = await NetGuard(AllowedHosts, resolver=resolver, environ={}).check("Example.ORG.", 443)
    assert (target.host, target.port) == ("example.org", 443)
    assert [str(a) for a in target.addresses] == ["2606:2800:220:1::1", "93.184.216.34"]


async def test_the_environment_entries_add_to_the_allowed_list() -> None:
    resolver = FakeResolver({"printer.lan": ["192.168.1.20"]})
    guard = NetGuard(AllowedHosts, resolver=resolver, environ={"PALIMPSEST_TOOL_ALLOW_HOSTS": "nas.lan printer.lan"})
    assert [str(a) for a in (await guard.check("printer.lan", 80)).addresses] == ["192.168.1.20"]
    with pytest.raises(RefusedTarget, match=r"192\.168\.1\.21 is a private address"):
        await guard.check("192.168.1.21", 80)


async def test_a_resolver_answer_that_is_not_an_address_or_is_empty_is_an_error() -> None:
    guard = NetGuard(AllowedHosts, resolver=FakeResolver({"odd.example": ["not-an-ip"], "none.example": []}),
                     environ={})
    with pytest.raises(UnresolvableHost, match="not an IP address"):
        await guard.check("odd.example", 80)
    with pytest.raises(UnresolvableHost, match="no addresses"):
        await guard.check("none.example", 80)


async def test_a_literal_in_an_odd_spelling_is_named_by_its_canonical_address() -> None:
    guard = NetGuard(lambda: AllowedHosts.parse(["127.0.0.1"]), resolver=FakeResolver(strict=True), environ={})
    target = await guard.check("0x7f.1", 8443)
    assert target.host == "127.0.0.1" and [str(a) for a in target.addresses] == ["127.0.0.1"]
