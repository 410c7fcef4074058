"""`palimpsest models set-window ID auto`: a window set on a guess (or learned, or set by the user) goes back to the
automatic one, and `sessions context` follows; `models set-window ID N` sets the user's own."""

from __future__ import annotations

import json
from pathlib import Path

from app.container import Container
from data.storage import Storage
from domain.models import WindowSource
from tests.cli.harness import Cli
from tests.fakes import FakeApiKeyStorage

MODEL = "claude-sonnet-4-6"


def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", tmp_path / "keys.json")


def window_of(c: Cli, session: str) -> tuple[int, str]:
    shown = c.run("sessions", "context", session, "--json", subprocess_run=False)
    assert shown.code == 0, shown.err
    data = json.loads(shown.out)
    return data["window"], data["window_source"]


def test_set_window_auto_undoes_a_window_guessed_from_usage(tmp_path: Path) -> None:
    c = cli(tmp_path)
    container = Container.build(tmp_path / "home", keys=FakeApiKeyStorage())
    try:
        session = container.create_session(provider_id="anthropic", model_id=MODEL).id
    finally:
        container.close()
    registry, source = window_of(c, session)
    assert source == "registry" and registry > 100_000
    storage = Storage.open(tmp_path / "home")
    try:  # what the silent-truncation guess records
        storage.models.record_limit("anthropic", MODEL, 4_140, source=WindowSource.GUESSED)
    finally:
        storage.close()
    assert window_of(c, session) == (4_140, "guessed_from_usage")

    undone = c.run("models", "set-window", f"anthropic/{MODEL}", "auto", subprocess_run=False)
    assert undone.code == 0, undone.err
    assert f"anthropic/{MODEL}: automatic context window, {registry:,} tokens (registry)" in undone.out
    assert window_of(c, session) == (registry, "registry")

    mine = c.run("models", "set-window", MODEL, "64000", subprocess_run=False)  # one provider has this id
    assert mine.code == 0 and "64,000 tokens (set by you)" in mine.out
    assert window_of(c, session) == (64_000, "user")
    assert c.run("models", "set-window", MODEL, "auto", "-p", "anthropic", subprocess_run=False).code == 0
    assert window_of(c, session) == (registry, "registry")


def test_set_window_names_what_is_wrong(tmp_path: Path) -> None:
    c = cli(tmp_path)
    bad = c.run("models", "set-window", f"anthropic/{MODEL}", "lots", subprocess_run=False)
    assert bad.code != 0 and "'lots' is not a window" in bad.err
    unknown = c.run("models", "set-window", "no-such-model-here", "auto", subprocess_run=False)
    assert unknown.code != 0 and "name it as PROVIDER/MODEL" in unknown.err
