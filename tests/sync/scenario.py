"""The issue's scenario on any remote: both devices chat in one conversation offline, branch, compact, rename and
delete on both sides, then sync both ways until quiet and show the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain
from tests.sync.devices import KEY, Device, assert_same, sync_until_quiet


def run_scenario(a: Device, b: Device, setup: Sequence[str]) -> dict[str, Any]:
    """Runs the scenario; returns what both devices show at the end (asserted equal)."""
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        for device in (a, b):
            device.use_server(server.base_url)
        talk = a.chat(brain, "Capital of Portugal?", "Lisbon.")
        trash = a.chat(brain, "Put me in the trash on A", "Fine.")
        purge = a.chat(brain, "Delete me for good on B", "Fine.")
        revive = a.chat(brain, "Delete me on A, talk on B", "Fine.")
        for device in (a, b):
            device.ok("sync", "setup", *setup)
        sync_until_quiet(a, b)
        assert {s["id"] for s in b.sessions()} == {talk, trash, purge, revive}

        a.chat(brain, "How many people live there?", "About 545,000.", "-s", talk)
        b.chat(brain, "And its river?", "The Tagus.", "-s", talk)
        brain.push("Roughly half a million.")
        a.ok("chat", "-s", talk, "--regenerate")
        b.chat(brain, "And the bridge?", "The 25 de Abril bridge.", "-s", talk)
        brain.push("Summary: Lisbon is the capital; the Tagus; the bridge.")
        b.ok("sessions", "compact", talk)
        a.rename(talk, "Lisbon, renamed on A")
        b.rename(trash, "Renamed on B before A trashed it")
        a.ok("sessions", "delete", trash)
        b.ok("sessions", "delete", purge, "--permanently")
        a.ok("sessions", "delete", revive, "--permanently")
        b.chat(brain, "Still here?", "Yes.", "-s", revive)

        sync_until_quiet(a, b)
    shown = assert_same(a, b)
    assert set(shown) == {talk, revive}  # trashed on A, purged on B; kept: a message came after the delete
    texts = [m["content"] for m in shown[talk]["messages"]]
    for text in ("Capital of Portugal?", "About 545,000.", "Roughly half a million.", "And its river?",
                 "The Tagus.", "And the bridge?"):
        assert texts.count(text) == 1, text
    assert shown[talk]["title"] == "Lisbon, renamed on A"
    assert shown[talk]["compacted_summary"] == "Summary: Lisbon is the capital; the Tagus; the bridge."
    seq = {m["id"]: m["seq"] for m in shown[talk]["messages"]}
    record = shown[talk]["compactions"][-1]
    assert record["boundary"] == seq[record["through_id"]] + 1  # just after the last message it summarizes
    kept = next(m for m in shown[talk]["messages"] if m["seq"] == shown[talk]["compact_boundary"])
    assert kept["content"] == "And the bridge?" and kept["active"]  # the first message kept whole stays the first
    assert "Still here?" in [m["content"] for m in shown[revive]["messages"]]
    trashed = [s for s in a.sessions() if s["id"] == trash]
    assert trashed == []
    return shown
