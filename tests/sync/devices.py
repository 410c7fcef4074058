"""Devices for sync tests: each its own data folder and keychain, chatting with a fake Anthropic server offline."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.cli.harness import Cli, CliResult
from tests.fakeservers.brain import ScriptedBrain

KEY = "sk-ant-sync-test-5150"
MODEL = "claude-sync-a"
# fields each device keeps for itself: what this device spent (token totals) and when it last touched the row
LOCAL_SESSION_FIELDS = ("total_input_tokens", "total_output_tokens", "total_cache_read_tokens")


class Device:
    """One device: `palimpsest` run in-process against its own PALIMPSEST_HOME and keychain file."""

    def __init__(self, root: Path, name: str, env: dict[str, str] | None = None, subprocess: bool = False) -> None:
        (root / f"{name}-keychain").mkdir(parents=True, exist_ok=True)
        self.name = name
        self.cli = Cli(root / f"{name}-home", root / f"{name}-keychain" / "keys.json", env)
        self.subprocess = subprocess

    @property
    def home(self) -> Path:
        return self.cli.home

    def run(self, *args: str, stdin: str = "") -> CliResult:
        return self.cli.run(*args, stdin=stdin, subprocess_run=self.subprocess)

    def ok(self, *args: str, stdin: str = "") -> CliResult:
        result = self.run(*args, stdin=stdin)
        assert result.code == 0, (self.name, args, result.out, result.err)
        return result

    def use_server(self, base_url: str) -> None:
        self.ok("providers", "set", "anthropic", "--base-url", base_url)
        self.ok("models", "add", "anthropic", MODEL, "--context-window", "100000")
        self.ok("keys", "set", "anthropic", stdin=KEY + "\n")

    def chat(self, brain: ScriptedBrain, text: str, reply: str, *extra: str) -> str:
        brain.push(reply)
        result = self.ok("chat", "-p", "anthropic", "-m", MODEL, *extra, text)
        return result.err.split("session: ")[1].split()[0] if "session: " in result.err else ""

    def sync(self) -> tuple[int, int]:
        """(files received, changes sent) of one `sync now`."""
        out = self.ok("sync", "now").out
        found = re.match(r"Received (\d+) change file\(s\); sent (\d+) change", out)
        assert found, out
        return int(found.group(1)), int(found.group(2))

    def sessions(self) -> list[dict[str, Any]]:
        return json.loads(self.ok("sessions", "list", "--all", "--json").out)

    def shown(self) -> dict[str, Any]:
        """Every session's `sessions show --all --json`, without the fields each device keeps for itself."""
        shown = {}
        for s in self.sessions():
            detail = json.loads(self.ok("sessions", "show", s["id"], "--all", "--json").out)
            for name in LOCAL_SESSION_FIELDS:
                detail.pop(name)
            shown[s["id"]] = detail
        return shown

    def rename(self, session_id: str, title: str) -> None:
        from data.storage import Storage
        from domain.usecases.rename_session import RenameSessionUseCase

        storage = Storage.open(self.home)
        try:
            RenameSessionUseCase(storage.sessions, _Clock())(session_id, title)
        finally:
            storage.close()


class _Clock:
    """The wall clock (UTC)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


def sync_until_quiet(*devices: Device, rounds: int = 8) -> int:
    """Syncs the devices in turn until a whole round moves nothing; returns the rounds taken."""
    for n in range(1, rounds + 1):
        moved = [d.sync() for d in devices]
        if all(received == 0 and sent == 0 for received, sent in moved):
            return n
    raise AssertionError(f"still syncing after {rounds} rounds")


def assert_same(a: Device, b: Device) -> dict[str, Any]:
    """Both devices show the same sessions and messages, every message exactly once; returns A's."""
    left, right = a.shown(), b.shown()
    assert sorted(left) == sorted(right)
    for sid in left:
        assert left[sid] == right[sid], sid
        ids = [m["id"] for m in left[sid]["messages"]]
        assert len(ids) == len(set(ids))
    return left
