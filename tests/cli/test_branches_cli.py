"""Branches through the real CLI against the fake Anthropic server: edit, regenerate with another model, list,
check out, fork, delete a branch; `sessions show --json` gives each message's id, parent and boundary flag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.harness import Cli
from tests.fakeservers.anthropic_server import FakeAnthropicServer
from tests.fakeservers.brain import Reply, ScriptedBrain

KEY = "sk-ant-branches-test-71aa"
MODEL, OTHER = "claude-branch-a", "claude-branch-b"


def _streamed(brain: ScriptedBrain) -> list[Any]:
    return [r for r in brain.seen if r.stream]


def test_edit_regenerate_branches_checkout_fork_and_delete(tmp_path: Path) -> None:
    (tmp_path / "keychain").mkdir()
    brain = ScriptedBrain(default=Reply.of_text("A title"))
    with FakeAnthropicServer(brain, api_key=KEY) as server:
        cli = Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")
        run = lambda *a, stdin="": cli.run(*a, stdin=stdin, subprocess_run=False)  # noqa: E731
        assert run("providers", "set", "anthropic", "--base-url", server.base_url).code == 0
        for model in (MODEL, OTHER):
            assert run("models", "add", "anthropic", model, "--context-window", "100000").code == 0
        assert run("keys", "set", "anthropic", stdin=KEY + "\n").code == 0
        brain.push("Lisbon.")
        first = run("chat", "-p", "anthropic", "-m", MODEL, "Capital of Portugal?")
        session = first.err.split("session: ")[1].split()[0]
        brain.push("About 545,000.")
        assert run("chat", "-s", session, "How many people live there?").code == 0
        shown = json.loads(run("sessions", "show", session, "--json").out)["messages"]
        assert [(m["content"], m["behind_boundary"]) for m in shown] == [
            ("Capital of Portugal?", False), ("Lisbon.", False), ("How many people live there?", False),
            ("About 545,000.", False)]
        assert [m["parent_id"] for m in shown] == [None] + [m["id"] for m in shown[:-1]]
        question = shown[2]["id"]

        brain.push("Porto is the second city.")
        edited = run("chat", "-s", session, "--edit", question, "And the second city?")
        assert edited.code == 0, edited.err
        sent = _streamed(brain)[-1]
        assert [m.role for m in sent.messages] == ["user", "assistant", "user"]
        assert sent.last_user_text == "And the second city?" and "545" not in json.dumps(sent.raw)

        brain.push("Porto, on the Douro.")
        again = run("chat", "-s", session, "--regenerate", "-m", OTHER)
        assert again.code == 0, again.err
        assert _streamed(brain)[-1].model == OTHER and _streamed(brain)[-1].last_user_text == "And the second city?"

        branches = json.loads(run("sessions", "branches", session, "--json").out)
        assert [(b["messages"], b["active"]) for b in branches] == [(4, False), (4, False), (4, True)]
        assert branches[0]["fork_id"] == question and branches[0]["fork_parent_id"] == shown[1]["id"]
        assert "*" in run("sessions", "branches", session).out

        assert run("sessions", "checkout", session, branches[0]["leaf_id"]).code == 0
        path = json.loads(run("sessions", "show", session, "--json").out)["messages"]
        assert [m["content"] for m in path] == [m["content"] for m in shown]

        forked = run("sessions", "fork", session, shown[1]["id"])
        assert forked.code == 0 and "2 messages" in forked.out
        new_id = forked.out.split("session ")[1].split()[0]
        copy = json.loads(run("sessions", "show", new_id, "--json").out)["messages"]
        assert [m["content"] for m in copy] == ["Capital of Portugal?", "Lisbon."]

        deleted = run("sessions", "delete-branch", session, branches[0]["leaf_id"])
        assert deleted.code == 0 and "Deleted 2 messages" in deleted.out
        left = json.loads(run("sessions", "branches", session, "--json").out)
        assert [b["leaf_id"] for b in left] == [b["leaf_id"] for b in branches[1:]] and left[-1]["active"]

        refused = run("sessions", "checkout", session, "no-such-message")
        assert refused.code != 0 and "Traceback" not in refused.err and "no-such-message" in refused.err
        assert run("chat", "-s", session, "--edit", shown[1]["id"], "text").code != 0  # an answer is not editable
        assert run("chat", "--edit", question, "text").code != 0  # --edit needs -s
