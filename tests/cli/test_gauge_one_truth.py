"""The gauge's numbers are one computation: the breakdown's rows add up to the total (the request as it will be
sent, calibrated), and `sessions context --json` reports the same figures as the GUI's backend."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli.sessions_cmd import run_sessions
from app.container import Container
from app.gui.bridge import ContainerBackend
from domain.events import ContextBreakdown
from tests.fakes_turn import FakeAdapterFactory
from tests.rich_session import MODEL, PROVIDER, RATIO, rich_session
from ui.backend import Selection


def rows(b: ContextBreakdown) -> list[int]:
    return [b.system, b.summary, b.messages, b.attachments, b.tool_results, b.tools, b.reasoning]


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    c = Container.build(tmp_path / "home", adapter_factory=FakeAdapterFactory(default_completion="A title"))
    c.set_api_key(PROVIDER, "sk-ant-test")
    yield c
    c.close()


async def test_the_breakdown_of_a_calibrated_pruned_session_adds_up_to_its_total(container: Container) -> None:
    sid = rich_session(container)
    status = container.context_status(sid)
    b = status.breakdown
    assert all(part > 0 for part in rows(b)), b  # every part is there: summary, files, pruned results, reasoning
    assert sum(rows(b)) == status.used
    assert container.planner.plan(container.contexts.load(sid)).estimate == status.used  # what the send estimates
    results = [m for m in container.messages.snapshot(sid) if m.tool_output]
    whole = sum(container.estimator.estimate_message(m) for m in results) * RATIO
    assert b.tool_results < whole * 3 / 4  # the old results went pruned, and the row counts them as sent

    cli_out = io.StringIO()
    assert await run_sessions(container, argparse.Namespace(action="context", id=sid, json=True), cli_out,
                              io.StringIO()) == 0
    cli = json.loads(cli_out.getvalue())
    gui = await ContainerBackend(container).context_status(sid, Selection(PROVIDER, MODEL))
    assert gui == status
    assert cli["used"] == status.used == sum(cli["breakdown"].values())
    assert cli["percent"] == status.percent
    assert cli["breakdown"] == {"system": b.system, "summary": b.summary, "messages": b.messages,
                                "tool_results": b.tool_results, "tool_definitions": b.tools,
                                "reasoning": b.reasoning, "attachments": b.attachments, "web_search": b.web_search}
