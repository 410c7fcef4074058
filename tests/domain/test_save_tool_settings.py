"""Allowed hosts for http_request: entries validated and normalized, junk refused with a message, nothing half-saved."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInput
from domain.settings import ToolSettings
from domain.usecases.save_tool_settings import (
    MAX_ALLOWED_HOSTS,
    AllowHostUseCase,
    DisallowHostUseCase,
    SaveToolSettingsUseCase,
    allowed_host_entry,
)
from tests.fakes import FakeSettingsRepository


@pytest.mark.parametrize(("entry", "stored"), [
    ("localhost", "localhost"),
    ("  NAS.Lan. ", "nas.lan"),
    ("nas_box.lan", "nas_box.lan"),
    ("127.0.0.1", "127.0.0.1"),
    ("[::1]", "::1"),
    ("0:0:0:0:0:0:0:1", "::1"),
    ("192.168.1.0/24", "192.168.1.0/24"),
    ("10.0.0.0/255.0.0.0", "10.0.0.0/8"),
    ("FD00::/8", "fd00::/8"),
    ("Bücher.example", "bücher.example"),
])
def test_host_names_addresses_and_networks_are_stored_in_canonical_form(entry: str, stored: str) -> None:
    assert allowed_host_entry(entry) == stored


@pytest.mark.parametrize(("entry", "says"), [
    ("", "cannot be empty"),
    ("http://localhost:8080/api", "is a URL; give only its host: localhost"),
    ("localhost:8080", "has a port; give only the host: localhost"),
    ("[::1]:8080", "has a port; give only the host: ::1"),
    ("*.lan", "wildcards are not supported"),
    ("nas.lan printer.lan", "give one host per line"),
    ("a,b", "give one host per line"),
    ("10.0.0.1/8", "has host bits set; the network is 10.0.0.0/8"),
    ("0.0.0.0/0", "would allow every address"),
    ("10.0.0.0/33", "is not a valid network"),
    ("127.1", "write all four numbers"),
    ("300.1.2.3", "is not a valid IP address"),
    ("-bad-.lan", "is not a valid host name"),
    ("two..dots", "is not a valid host name"),
    ("fe80::1%eth0", "without the %zone"),
    ("1::2::3", "is not a valid IP address"),
    ("x" * 300, "is not a valid host name"),
    ("evil\x1b[2J.lan", "is not a valid host name"),
])
def test_junk_is_refused_with_a_message_that_says_what_to_write(entry: str, says: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        allowed_host_entry(entry)
    assert says in refused.value.message
    assert len(refused.value.message) < 300


def test_saving_normalizes_drops_blank_lines_and_repeats_and_keeps_the_order() -> None:
    repo = FakeSettingsRepository()
    saved = SaveToolSettingsUseCase(repo)(ToolSettings(("LocalHost", "", "  ", "10.0.0.0/8", "localhost.", "::1")))
    assert saved == ToolSettings(("localhost", "10.0.0.0/8", "::1"))
    assert repo.tool_settings() == saved


def test_one_bad_entry_refuses_the_whole_list_and_the_stored_one_stays() -> None:
    repo = FakeSettingsRepository(tools=ToolSettings(("nas.lan",)))
    with pytest.raises(InvalidInput, match="localhost:3000"):
        SaveToolSettingsUseCase(repo)(ToolSettings(("printer.lan", "localhost:3000")))
    assert repo.tool_settings() == ToolSettings(("nas.lan",))


def test_too_many_hosts_are_refused() -> None:
    repo = FakeSettingsRepository()
    many = tuple(f"host{i}.lan" for i in range(MAX_ALLOWED_HOSTS + 1))
    with pytest.raises(InvalidInput, match="use a network"):
        SaveToolSettingsUseCase(repo)(ToolSettings(many))
    assert repo.tool_settings() == ToolSettings()


def test_allow_host_adds_once_and_disallow_removes_by_any_spelling() -> None:
    repo = FakeSettingsRepository()
    assert AllowHostUseCase(repo)("[0:0::1]") == "::1"
    AllowHostUseCase(repo)("::1")
    AllowHostUseCase(repo)("NAS.lan")
    assert repo.tool_settings().allowed_hosts == ("::1", "nas.lan")
    assert DisallowHostUseCase(repo)("[::1]") == "::1"
    assert repo.tool_settings().allowed_hosts == ("nas.lan",)


def test_disallowing_a_host_that_is_not_listed_names_the_listed_ones() -> None:
    repo = FakeSettingsRepository(tools=ToolSettings(("nas.lan",)))
    with pytest.raises(InvalidInput) as refused:
        DisallowHostUseCase(repo)("printer.lan")
    assert refused.value.message == "'printer.lan' is not an allowed host. Allowed hosts: nas.lan."
    with pytest.raises(InvalidInput, match="is a URL"):
        AllowHostUseCase(repo)("https://nas.lan/")
    assert repo.tool_settings().allowed_hosts == ("nas.lan",)
