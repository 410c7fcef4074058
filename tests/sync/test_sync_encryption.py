"""An encrypted remote: no plaintext leaves the device, a wrong passphrase is refused before anything changes here,
the right one on another device brings everything over (attachments included)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.sync.devices import KEY, Device

PLANTED = "Quetzalcoatl-Marmalade"
PASSPHRASE = "correct horse battery staple"


def _remote_bytes(remote: Path) -> list[bytes]:
    return [f.read_bytes() for f in remote.rglob("*") if f.is_file()]


def _with_planted_word(tmp_path: Path, device: Device, remote: Path, *encrypt: str) -> str:
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    note = tmp_path / "note.txt"
    note.write_text(f"The attachment says {PLANTED} too.\n")
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        device.use_server(server.base_url)
        session = device.chat(brain, f"Remember the word {PLANTED}.", f"I will remember {PLANTED}.",
                              "-a", str(note))
    device.ok("sync", "setup", "folder", str(remote), *encrypt)
    device.sync()
    return session


def test_an_encrypted_remote_holds_no_plaintext(tmp_path: Path) -> None:
    plain = Device(tmp_path, "plain")
    _with_planted_word(tmp_path, plain, tmp_path / "plain-remote")
    assert any(PLANTED.encode() in data for data in _remote_bytes(tmp_path / "plain-remote"))  # the probe sees it

    secret = Device(tmp_path, "secret", {"PALIMPSEST_SYNC_PASSPHRASE": PASSPHRASE})
    _with_planted_word(tmp_path, secret, tmp_path / "secret-remote", "--encrypt")
    files = _remote_bytes(tmp_path / "secret-remote")
    assert len(files) >= 3  # the meta file, a change file, the attachment
    for word in (PLANTED, PLANTED.lower(), "Remember the word", "attachment says"):
        assert not any(word.encode() in data for data in files), word
    assert not any(PASSPHRASE.encode() in data for data in files)


def test_a_wrong_passphrase_is_refused_without_touching_local_data(tmp_path: Path) -> None:
    a = Device(tmp_path, "a", {"PALIMPSEST_SYNC_PASSPHRASE": PASSPHRASE})
    session = _with_planted_word(tmp_path, a, tmp_path / "remote", "--encrypt")
    b = Device(tmp_path, "b", {"PALIMPSEST_SYNC_PASSPHRASE": "wrong horse"})
    b.ok("sessions", "list")
    before = b.ok("sessions", "list", "--all", "--json").out
    refused = b.run("sync", "setup", "folder", str(tmp_path / "remote"))
    assert refused.code == 1 and "passphrase does not match" in refused.err
    assert b.run("sync", "now").code == 1 and "not set up" in b.run("sync", "now").err
    assert b.ok("sessions", "list", "--all", "--json").out == before
    assert not b.cli.keyring_file.exists() or "palimpsest-sync" not in b.cli.keyring_file.read_text()

    b.cli.env["PALIMPSEST_SYNC_PASSPHRASE"] = PASSPHRASE
    b.ok("sync", "setup", "folder", str(tmp_path / "remote"))
    b.sync()
    shown = json.loads(b.ok("sessions", "show", session, "--json").out)
    first = shown["messages"][0]
    assert PLANTED in first["content"] and first["attachments"][0]["name"] == "note.txt"
    sha = first["attachments"][0]["sha256"]
    assert PLANTED.encode() in (b.home / "attachments" / sha[:2] / sha).read_bytes()
